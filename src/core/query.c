/*
 * query.c - parsing and evaluating offer queries (query.h).
 */
#include "query.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "names.h"
#include "quote.h"
#include "units.h"
#include "../util/util.h"

/* MUST stay sorted by name. */
const struct query_field query_fields[] = {
	{"arch", Q_STR, "", "GPU architecture (Ampere, Hopper, ...)"},
	{"billing", Q_STR, "", "billing profile name"},
	{"class", Q_STR, "", "GPU class: datacenter, workstation, consumer, tpu"},
	{"disk", Q_NUM, "GB", "instance disk"},
	{"gpu", Q_STR, "", "GPU: catalog name, alias or family (A100 matches 40 and 80 GB)"},
	{"gpu_mem", Q_NUM, "GB", "memory per GPU (a slice's own share)"},
	{"gpus", Q_NUM, "", "GPUs per instance"},
	{"instance", Q_STR, "", "instance type"},
	{"instance_price", Q_NUM, "USD/h", "on-demand price of the whole instance"},
	{"interconnect", Q_STR, "", "GPU link: nvlink, nvlink-bridge, pcie, ..."},
	{"max_runtime", Q_NUM, "h", "per-job time limit (campus HPC); 0 = none"},
	{"mem_bw", Q_NUM, "GB/s", "GPU memory bandwidth"},
	{"price", Q_NUM, "USD/GPU-h", "on-demand price per GPU-hour"},
	{"provider", Q_STR, "", "provider (catalog folder or provider column)"},
	{"queue_wait", Q_NUM, "h", "typical queue wait (campus HPC); 0 = none"},
	{"ram", Q_NUM, "GiB", "host memory"},
	{"region", Q_STR, "", "region"},
	{"slice", Q_BOOL, "", "a share of a GPU (MIG, vGPU, time-slice)"},
	{"spot", Q_BOOL, "", "a spot / interruptible price is offered"},
	{"spot_price", Q_NUM, "USD/GPU-h", "spot price per GPU-hour; 0 = none"},
	{"storage", Q_BOOL, "", "persistent storage survives a stop"},
	{"supply", Q_STR, "", "hyperscaler, ai-cloud, campus-hpc, serverless, marketplace"},
	{"tflops", Q_NUM, "TFLOPS", "dense BF16 (else FP16) tensor TFLOPS per GPU"},
	{"vcpus", Q_NUM, "", "host vCPUs"},
};
const size_t query_nfields = ARRAY_SIZE(query_fields);

enum {
	F_ARCH, F_BILLING, F_CLASS, F_DISK, F_GPU, F_GPU_MEM, F_GPUS, F_INSTANCE, F_INSTANCE_PRICE,
	F_INTERCONNECT, F_MAX_RUNTIME, F_MEM_BW, F_PRICE, F_PROVIDER, F_QUEUE_WAIT, F_RAM,
	F_REGION, F_SLICE, F_SPOT, F_SPOT_PRICE, F_STORAGE, F_SUPPLY, F_TFLOPS, F_VCPUS,
};

int query_field_index(const char *name)
{
	for (size_t i = 0; i < query_nfields; i++)
		if (!strcmp(query_fields[i].name, name))
			return (int)i;
	return -1;
}

double query_num(int field, const struct offer *o)
{
	const struct gpu_spec *g = o->gpu;

	switch (field) {
	case F_DISK: return o->disk_gb;
	case F_GPU_MEM: return o->gpu_mem / 1e9;
	case F_GPUS: return o->gpus;
	case F_INSTANCE_PRICE: return o->price;
	case F_MAX_RUNTIME: return o->max_runtime / 3600;
	case F_MEM_BW: return g ? g->mem_bw / 1e9 : 0;
	case F_PRICE: return offer_rank_per_gpu(o);   /* spot-only rows: their spot price */
	case F_QUEUE_WAIT: return o->queue_wait / 3600;
	case F_RAM: return o->ram_gib;
	case F_SLICE: return o->is_slice;
	case F_SPOT: return o->spot_price > 0;
	case F_SPOT_PRICE: return offer_spot_per_gpu(o);
	case F_STORAGE: return o->persistent_storage;
	case F_TFLOPS: return g ? (g->bf16_flops > 0 ? g->bf16_flops : g->fp16_flops) / 1e12 : 0;
	case F_VCPUS: return o->vcpus;
	}
	return 0;
}

static struct cat_str cs(const char *s)
{
	struct cat_str r = {s, (uint32_t)strlen(s)};
	return r;
}

struct cat_str query_str(int field, const struct offer *o, char *buf, size_t n)
{
	const struct gpu_spec *g = o->gpu;

	(void)buf;
	(void)n;
	switch (field) {
	case F_ARCH: return cs(g ? g->arch : "");
	case F_BILLING: return o->billing;
	case F_CLASS: return cs(g ? gpu_class_name(g->cls) : "");
	case F_GPU: return g ? cs(g->name) : o->gpu_name;
	case F_INSTANCE: return o->instance;
	case F_INTERCONNECT: return cs(g ? gpu_link_name(g->link) : "");
	case F_PROVIDER: return o->provider;
	case F_REGION: return o->region;
	case F_SUPPLY: return cs(supply_type_name(o->supply));
	}
	return cs("");
}

/* ---- parsing ---- */

struct lexer {
	const char *p;
	char err[256];
};

static void skip_ws(struct lexer *lx)
{
	while (isspace((unsigned char)*lx->p))
		lx->p++;
}

/* A word or a quoted string into out. 0; -1 for none; -2 when it is
 * longer than n - 1 bytes (never truncated: a cut value would match
 * something else, or nothing, without a word). */
static int word(struct lexer *lx, char *out, size_t n)
{
	size_t k = 0;
	bool longer = false;

	skip_ws(lx);
	if (*lx->p == '"' || *lx->p == '\'') {
		char q = *lx->p++;
		while (*lx->p && *lx->p != q) {
			if (k + 1 < n)
				out[k++] = *lx->p;
			else
				longer = true;
			lx->p++;
		}
		if (*lx->p != q)
			return -1;
		lx->p++;
	} else {
		while (*lx->p && !isspace((unsigned char)*lx->p) && !strchr("<>=!~,[]", *lx->p)) {
			if (k + 1 < n)
				out[k++] = *lx->p;
			else
				longer = true;
			lx->p++;
		}
	}
	out[k] = '\0';
	if (longer)
		return -2;
	return k ? 0 : -1;
}

/* The message for a word() that failed with rc at what ("a value"). */
static int word_error(int rc, const char *name, const char *what, size_t max, char *err, size_t errlen)
{
	if (rc == -2)
		snprintf(err, errlen, "query: %s: value longer than %zu characters", name, max);
	else
		snprintf(err, errlen, "query: %s: expected %s", name, what);
	return -1;
}

static int parse_number_value(const char *v, int field, double *out)
{
	char tmp[QUERY_MAX_VALUE + 1], e[256];

	if (*v == '$')
		v++;
	if (strlen(v) >= sizeof(tmp))
		return -1;
	memcpy(tmp, v, strlen(v) + 1);
	/* a plain decimal: strtod would take hex, inf and nan too */
	if (!units_scan_number(tmp, out))
		return 0;
	if (field == F_GPU_MEM || field == F_DISK || field == F_RAM) {
		double b;
		if (!units_parse_bytes(tmp, &b, e, sizeof(e))) {
			*out = field == F_RAM ? b / 1073741824.0 : b / 1e9;
			return 0;
		}
	}
	if (field == F_MAX_RUNTIME || field == F_QUEUE_WAIT) {
		double s;
		if (!units_parse_duration(tmp, &s, e, sizeof(e))) {
			*out = s / 3600;
			return 0;
		}
	}
	return -1;
}

static const char *op_name(enum qop op)
{
	static const char *const n[] = {"<", "<=", "==", "!=", ">=", ">", "in", "notin"};
	return n[op];
}

int query_parse(const char *text, struct query *q, char *err, size_t errlen)
{
	struct lexer lx = {text, ""};
	char name[64], val[QUERY_MAX_VALUE + 1], qv[QUOTE_KEEP * 4 + 8];
	int rc;

	memset(q, 0, sizeof(*q));
	for (;;) {
		struct query_clause *c;
		const struct query_field *f;
		int idx;

		skip_ws(&lx);
		if (!*lx.p)
			return 0;
		if (q->n >= QUERY_MAX_CLAUSES) {
			snprintf(err, errlen, "query: more than %d clauses", QUERY_MAX_CLAUSES);
			return -1;
		}
		if ((rc = word(&lx, name, sizeof(name)))) {
			if (rc == -2) {
				snprintf(err, errlen, "query: field name longer than %zu characters", sizeof(name) - 1);
				return -1;
			}
			snprintf(err, errlen, "query: near '%s': expected a field name",
				 quote_value_n(lx.p, strnlen(lx.p, 20), qv, sizeof(qv)));
			return -1;
		}
		idx = query_field_index(name);
		if (idx < 0) {
			struct names_suggest sg;
			names_suggest_init(&sg, name);
			for (size_t i = 0; i < query_nfields; i++)
				names_suggest_add(&sg, query_fields[i].name);
			if (sg.best[0])
				snprintf(err, errlen, "query: %s: unknown field (did you mean '%s'?)",
					 quote_value(name, qv, sizeof(qv)), sg.best);
			else
				snprintf(err, errlen, "query: %s: unknown field (see 'gpurent help offers')",
					 quote_value(name, qv, sizeof(qv)));
			return -1;
		}
		f = &query_fields[idx];
		c = &q->c[q->n++];
		c->field = idx;
		skip_ws(&lx);
		/* the operator */
		if (!strncmp(lx.p, "<=", 2)) c->op = QOP_LE, lx.p += 2;
		else if (!strncmp(lx.p, ">=", 2)) c->op = QOP_GE, lx.p += 2;
		else if (!strncmp(lx.p, "==", 2)) c->op = QOP_EQ, lx.p += 2;
		else if (!strncmp(lx.p, "!=", 2)) c->op = QOP_NE, lx.p += 2;
		else if (*lx.p == '<') c->op = QOP_LT, lx.p++;
		else if (*lx.p == '>') c->op = QOP_GT, lx.p++;
		else if (*lx.p == '=') c->op = QOP_EQ, lx.p++;
		else if (!strncmp(lx.p, "notin", 5) && (isspace((unsigned char)lx.p[5]) || lx.p[5] == '['))
			c->op = QOP_NOTIN, lx.p += 5;
		else if (!strncmp(lx.p, "in", 2) && (isspace((unsigned char)lx.p[2]) || lx.p[2] == '['))
			c->op = QOP_IN, lx.p += 2;
		else if (f->type == Q_BOOL) {
			c->op = QOP_EQ;
			c->boolean = true;
			continue;
		} else if (strchr("!~", *lx.p)) {
			snprintf(err, errlen, "query: %s: unknown operator near '%s' (use < <= == != >= > in notin)",
				 name, quote_value_n(lx.p, strnlen(lx.p, 8), qv, sizeof(qv)));
			return -1;
		} else {
			snprintf(err, errlen, "query: %s: expected an operator (< <= == != >= > in notin) and a value",
				 name);
			return -1;
		}
		if (strchr("<>=!~", *lx.p)) {
			snprintf(err, errlen, "query: %s: unknown operator near '%s%s' (use < <= == != >= > in notin)",
				 name, op_name(c->op), quote_value_n(lx.p, strnlen(lx.p, 4), qv, sizeof(qv)));
			return -1;
		}
		/* the value(s) */
		skip_ws(&lx);
		if (c->op == QOP_IN || c->op == QOP_NOTIN) {
			if (*lx.p != '[') {
				snprintf(err, errlen, "query: %s: expected a list like [a,b] after %s", name, op_name(c->op));
				return -1;
			}
			lx.p++;
			for (;;) {
				if ((rc = word(&lx, val, sizeof(val))) == -2)
					return word_error(rc, name, "", QUERY_MAX_VALUE, err, errlen);
				if (rc || c->nvals >= QUERY_MAX_LIST) {
					snprintf(err, errlen, "query: %s: expected up to %d values in [a,b,...]",
						 name, QUERY_MAX_LIST);
					return -1;
				}
				names_norm(val, c->vals[c->nvals++], sizeof(c->vals[0]));
				skip_ws(&lx);
				if (*lx.p == ',') {
					lx.p++;
					continue;
				}
				if (*lx.p == ']') {
					lx.p++;
					break;
				}
				snprintf(err, errlen, "query: %s: expected ',' or ']' in the list", name);
				return -1;
			}
			if (f->type == Q_NUM) {
				snprintf(err, errlen, "query: %s: in/notin applies to text fields; use < > for numbers", name);
				return -1;
			}
			continue;
		}
		if ((rc = word(&lx, val, sizeof(val)))) {
			char what[32];
			snprintf(what, sizeof(what), "a value after %s", op_name(c->op));
			return word_error(rc, name, what, QUERY_MAX_VALUE, err, errlen);
		}
		switch (f->type) {
		case Q_NUM:
			if (parse_number_value(val, idx, &c->num)) {
				snprintf(err, errlen, "query: %s: expected a number%s%s, got '%s'", name,
					 f->unit[0] ? " in " : "", f->unit, quote_value(val, qv, sizeof(qv)));
				return -1;
			}
			break;
		case Q_BOOL: {
			int b;
			char e[64];
			if (c->op != QOP_EQ && c->op != QOP_NE) {
				snprintf(err, errlen, "query: %s: a yes/no field takes == or !=", name);
				return -1;
			}
			if (units_parse_bool(val, &b, e, sizeof(e))) {
				snprintf(err, errlen, "query: %s: expected true or false, got '%s'", name,
					 quote_value(val, qv, sizeof(qv)));
				return -1;
			}
			c->boolean = b;
			break;
		}
		case Q_STR:
			if (c->op != QOP_EQ && c->op != QOP_NE) {
				snprintf(err, errlen, "query: %s: text takes == != in notin, not %s", name, op_name(c->op));
				return -1;
			}
			names_norm(val, c->vals[0], sizeof(c->vals[0]));
			c->nvals = 1;
			break;
		}
	}
}

/* ---- evaluation ---- */

/* gpu=X: the catalog's name, an alias, the full name, or the family
 * (the name's words up to the first with a digit: "A100", "RTX 4090"). */
static bool gpu_matches(const struct offer *o, const char *want)
{
	char nn[160], fam[96];
	const struct gpu_spec *g = o->gpu;

	names_norm_n(o->gpu_name.p, o->gpu_name.len, nn, sizeof(nn));
	if (!strcmp(nn, want))
		return true;
	if (!g)
		return false;
	if (!strcmp(names_norm(g->name, nn, sizeof(nn)), want) || names_in_list(want, g->aliases))
		return true;
	names_family(g->name, fam, sizeof(fam));
	return !strcmp(fam, want);
}

static bool text_equal(const struct query_clause *c, const struct offer *o, const char *v)
{
	char buf[160], tmp[8];
	struct cat_str s;

	if (c->field == F_GPU)
		return gpu_matches(o, v);
	s = query_str(c->field, o, tmp, sizeof(tmp));
	names_norm_n(s.p, s.len, buf, sizeof(buf));
	return !strcmp(buf, v);
}

bool query_match(const struct query *q, const struct offer *o)
{
	for (int i = 0; i < q->n; i++) {
		const struct query_clause *c = &q->c[i];
		bool ok = false;

		switch (query_fields[c->field].type) {
		case Q_NUM: {
			double v = query_num(c->field, o);
			switch (c->op) {
			case QOP_LT: ok = v < c->num; break;
			case QOP_LE: ok = v <= c->num; break;
			case QOP_EQ: ok = v == c->num; break;
			case QOP_NE: ok = v != c->num; break;
			case QOP_GE: ok = v >= c->num; break;
			case QOP_GT: ok = v > c->num; break;
			default: break;
			}
			break;
		}
		case Q_BOOL: {
			bool v = query_num(c->field, o) != 0;
			ok = c->op == QOP_NE ? v != c->boolean : v == c->boolean;
			break;
		}
		case Q_STR: {
			bool any = false;
			for (int k = 0; k < c->nvals && !any; k++)
				any = text_equal(c, o, c->vals[k]);
			ok = (c->op == QOP_NE || c->op == QOP_NOTIN) ? !any : any;
			break;
		}
		}
		if (!ok)
			return false;
	}
	return true;
}

int query_sort_parse(const char *text, struct query_sort *s, char *err, size_t errlen)
{
	char name[64], qv[QUOTE_KEEP * 4 + 8];
	size_t n = strlen(text);

	s->desc = n && text[n - 1] == '-';
	if (s->desc)
		n--;
	if (n && text[n - 1] == '+')
		n--;
	if (n >= sizeof(name)) {
		snprintf(err, errlen, "--sort: field name longer than %zu characters", sizeof(name) - 1);
		return -1;
	}
	snprintf(name, sizeof(name), "%.*s", (int)n, text);
	quote_value(name, qv, sizeof(qv));
	s->field = query_field_index(name);
	if (s->field < 0) {
		struct names_suggest sg;
		names_suggest_init(&sg, name);
		for (size_t i = 0; i < query_nfields; i++)
			names_suggest_add(&sg, query_fields[i].name);
		snprintf(err, errlen, "--sort: %s: unknown field%s%s%s", qv, sg.best[0] ? " (did you mean '" : "",
			 sg.best, sg.best[0] ? "'?)" : "");
		return -1;
	}
	return 0;
}

int query_compare(const struct query_sort *s, const struct offer *a, const struct offer *b)
{
	int r;

	if (query_fields[s->field].type == Q_STR) {
		char t1[8], t2[8];
		struct cat_str x = query_str(s->field, a, t1, sizeof(t1));
		struct cat_str y = query_str(s->field, b, t2, sizeof(t2));
		size_t m = x.len < y.len ? x.len : y.len;
		r = strncasecmp(x.p, y.p, m);
		if (!r)
			r = (x.len > y.len) - (x.len < y.len);
	} else {
		double x = query_num(s->field, a), y = query_num(s->field, b);
		/* offers without the value (0 = unknown spot price...) go last */
		if (s->field == F_SPOT_PRICE && (x <= 0) != (y <= 0))
			return x <= 0 ? 1 : -1;
		r = (x > y) - (x < y);
	}
	return s->desc ? -r : r;
}
