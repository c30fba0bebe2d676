/*
 * cmd_bill.c - `gpurent bill import|list|audit`: providers' billing
 * exports read into the ledger (src/core/books/bill.h, src/store/ledger_bill.c)
 * and audited against its runs (src/core/books/audit.h). docs/bill.md.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/books/audit.h"
#include "core/books/bill.h"
#include "core/text/currency.h"
#include "store/ledger.h"
#include "kit/cmd.h"
#include "os/progress.h"
#include "cmd/books/billwords.h"
#include "kit/common.h"
#include "kit/ledgeropt.h"
#include "kit/opt.h"
#include "base/out.h"
#include "base/util.h"

static const char usage[] = N_(
	"usage: gpurent bill import FILE... [--currency CODE] [--ledger PATH]\n"
	"       gpurent bill list [--json] [--ledger PATH]\n"
	"       gpurent bill audit [--from TIME] [--to TIME] [--budget MONEY] [--json]\n"
	"                          [--ledger PATH]\n"
	"\n"
	"Read a provider's billing export into the ledger and audit it: where the\n"
	"money went (GPU time, storage, egress, images, IPs, other) and what leaked.\n"
	"\n"
	"  bill import FILE...  AWS Cost and Usage Report (CUR 2.0 or legacy CSV),\n"
	"                       Google Cloud billing export CSV, Azure cost details\n"
	"                       CSV (EA, MCA, pay-as-you-go; localised headers),\n"
	"                       FOCUS 1.0-1.2 (BilledCost summed, EffectiveCost and\n"
	"                       ListCost shown beside), OCI cost reports, or gpurent's\n"
	"                       neutral CSV (time,end,item,resource,kind,quantity,\n"
	"                       unit,amount,currency); the format is found from the\n"
	"                       header, its names matched without regard to case.\n"
	"                       Each file's lines and total per currency are printed.\n"
	"                       Importing a file again adds nothing; a bad line\n"
	"                       stores nothing of its file.\n"
	"  bill list            every stored line, oldest first\n"
	"  bill audit           the split by kind for the period and per resource,\n"
	"                       and the findings, each with the amount at stake and\n"
	"                       the fix: billing rounding (sessions billed above the\n"
	"                       time used), storage that outlived its instance,\n"
	"                       egress above GPU time, stopped-not-released boxes\n"
	"                       (IP and disk billed with no GPU), GPU lines with no\n"
	"                       ledger run, runs whose ledger cost differs from the\n"
	"                       bill, spend over --budget and the day it runs out\n"
	"\n"
	"  --from TIME, --to TIME  the period [from, to): ISO 8601 (2024-03-05,\n"
	"                       2024-03-05T14:00Z) or unix seconds, UTC without a\n"
	"                       zone (default: the bill's own span)\n"
	"  --budget MONEY       a budget or balance for the period (500CNY, $200)\n"
	"  --currency CODE      (import) the currency of lines whose export names\n"
	"                       none (FOCUS examples, some Azure exports); said so\n"
	"  --json               JSON (schema gpurent.bill-audit/1, gpurent.bill/1)\n"
	"  --progress, -q/--quiet  (import) the progress line even in a pipe, or\n"
	"                       never; by default on a terminal only, after a second\n"
	"  --ledger PATH        the ledger (default $GPURENT_LEDGER, else\n"
	"                       ~/.local/share/gpurent/ledger.db)\n"
	"\n"
	"Each currency is audited apart; none is converted. Exit status: 0, 1 a\n"
	"runtime failure (the ledger), 2 bad input (FILE:LINE: column: expected ...).\n"
	"Formats, columns and formulas: docs/bill.md.\n");

/* ---- bill import ---- */

static int load_rules(struct bill_rules *rules)
{
	const char *buf, *fname;
	char *owned = NULL, err[512];
	size_t len;
	int rc;

	if ((rc = common_data_file("bill_kinds.csv", &buf, &len, &owned, &fname)))
		return rc;
	rc = bill_rules_load(buf, len, fname, rules, err, sizeof(err));
	free(owned);
	if (rc)
		return msg_usage("%s", err);
	return 0;
}

/* FILE's line: its format, lines, new lines and total per currency (FOCUS:
 * effective and list cost beside), and where the currency came from */
static void import_line(const char *file, const struct bill_export *b, size_t added,
			const char *currency)
{
	char name[1024], (*cur)[8] = NULL;
	double *sum = NULL;
	size_t nc = 0;

	printf(_("%s: %s, %zu lines, %zu new"), out_safe(file, strlen(file), name, sizeof(name)),
	       bill_format_name(b->format), b->n, added);
	if (b->n && (!(cur = calloc(b->n, sizeof(*cur))) || !(sum = calloc(b->n, sizeof(*sum)))))
		b = NULL;   /* out of memory: the line without totals */
	for (size_t i = 0; b && i < b->n; i++) {
		size_t k = 0;
		while (k < nc && strcmp(cur[k], b->v[i].currency))
			k++;
		if (k == nc)
			snprintf(cur[nc++], sizeof(cur[0]), "%s", b->v[i].currency);
		sum[k] += b->v[i].amount;
	}
	for (size_t k = 0; k < nc; k++)
		printf(", %.2f %s", sum[k], cur[k]);
	if (b && b->n && (!isnan(b->effective) || !isnan(b->list))) {
		printf(" (");
		if (!isnan(b->effective))
			printf(_("effective %.2f"), b->effective);
		if (!isnan(b->list))
			printf(_("%slist %.2f"), isnan(b->effective) ? "" : ", ", b->list);
		printf(" %s)", cur[0]);
	}
	if (b && b->currency_given)
		printf(_("; %s from --currency: %s"), currency,
		       b->currency_column[0] ? _("empty currency cells") : _("the export has no currency column"));
	printf("\n");
	free(cur);
	free(sum);
}

static int bill_import_cmd(int argc, char **argv)
{
	const char *path = NULL, *currency = NULL;
	char code[CURRENCY_CODE_MAX + 1];
	struct bill_rules rules = {0};
	struct bill_export *bills = NULL;
	struct ledger *l = NULL;
	char err[1024];
	int nops, rc;
	const struct opt opts[] = {
		{.name = "currency", .type = OPT_STRING, .dest = &currency, .arg = "CODE",
		 .help = N_("the currency of lines that name none"), .example = "EUR"},
		LEDGER_OPT(&path),
		OPT_PROGRESS_FLAGS,
		OPT_TABLE_END,
	};
	struct progress pr = {.label = "bill import", .units = "files"};
	bool shown;
	const struct opt_cmd oc = {.name = "bill import", .usage = usage, .flags = 0, .min_operands = 1,
				   .max_operands = -1, .operands = "FILE"};

	if ((rc = opt_parse(&oc, opts, argc, argv, NULL, &nops)) != OPT_GO)
		return rc;
	if (currency && currency_canonical(currency, code))
		return msg_usage(_("--currency: expected a currency code such as USD, got '%s'"), currency);
	if (currency)
		currency = code;
	if ((rc = load_rules(&rules)))
		return rc;
	if (!(bills = calloc((size_t)nops, sizeof(*bills)))) {
		bill_rules_free(&rules);
		return msg_fail(_("out of memory"));
	}
	/* every file is parsed before anything is stored: a bad line in any
	 * of them stores nothing */
	rc = EXIT_USAGE;
	pr.total_units = (uint64_t)nops;
	for (int i = 0; i < nops; i++) {
		struct stat st;
		if (!stat(argv[i], &st) && S_ISREG(st.st_mode))
			pr.total_bytes += (uint64_t)st.st_size;
	}
	shown = progress_begin(&pr);
	for (int i = 0; i < nops; i++) {
		char *buf;
		size_t len;
		if (common_read_file(argv[i], &buf, &len, err, sizeof(err))) {
			progress_end(&pr);
			rc = msg_fail("%s", err);
			goto out_free;
		}
		if (bill_parse_currency(buf, len, argv[i], &rules, currency, &bills[i], err, sizeof(err))) {
			free(buf);
			progress_end(&pr);
			msg_error("%s", err);
			goto out_free;
		}
		free(buf);
		progress_add(&pr, 1, len);
	}
	if (shown)
		progress_end(&pr);
	if ((rc = ledgeropt_open(path, &l)))
		goto out_free;
	for (int i = 0; i < nops; i++) {
		size_t added;
		if (ledger_bill_import(l, &bills[i], argv[i], &added, err, sizeof(err))) {
			rc = msg_fail("%s", err);
			goto out_free;
		}
		import_line(argv[i], &bills[i], added, currency);
	}
	rc = msg_finish(EXIT_OK);
out_free:
	for (int i = 0; i < nops; i++)
		bill_free(&bills[i]);
	free(bills);
	bill_rules_free(&rules);
	ledger_close(l);
	return rc;
}

/* ---- bill list ---- */

static int bill_list_cmd(int argc, char **argv)
{
	const char *path = NULL;
	struct ledger *l;
	struct bill_export b;
	bool json = false;
	char err[1024], t0[32], t1[32], s1[BILL_TEXT_MAX * 4], s2[BILL_TEXT_MAX * 4];
	int rc;
	const struct opt opts[] = {
		LEDGER_OPT(&path),
		OPT_BOOL("json", &json, N_("print JSON")),
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = "bill list", .usage = usage, .flags = 0, .min_operands = 0,
				   .max_operands = 0, .operands = NULL};

	if ((rc = opt_parse(&oc, opts, argc, argv, NULL, NULL)) != OPT_GO)
		return rc;
	if ((rc = ledgeropt_open(path, &l)))
		return rc;
	if (ledger_bill_list(l, &b, err, sizeof(err))) {
		ledger_close(l);
		return msg_fail("%s", err);
	}
	if (json) {
		struct json j;
		json_init(&j, stdout);
		json_obj_begin(&j, NULL);
		json_str(&j, "schema", "gpurent.bill/1");
		json_str(&j, "ledger", ledger_path(l));
		json_arr_begin(&j, "items");
		for (size_t i = 0; i < b.n; i++) {
			const struct bill_item *it = &b.v[i];
			json_obj_begin(&j, NULL);
			json_str(&j, "start", out_utc(it->start, t0, sizeof(t0)));
			json_str(&j, "end", out_utc(it->end, t1, sizeof(t1)));
			json_str(&j, "provider", it->provider);
			json_str(&j, "service", it->service);
			json_str(&j, "item", it->item);
			json_str(&j, "resource", it->resource);
			json_str(&j, "kind", bill_kind_name(it->kind));
			json_num(&j, "quantity", it->quantity);
			json_str(&j, "unit", it->unit);
			json_num(&j, "amount", it->amount);
			json_str(&j, "currency", it->currency);
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_obj_end(&j);
	} else if (!b.n) {
		printf(_("no bill lines in %s\n"), ledger_path(l));
	} else {
		static const int hw[] = {-20, -8, -8, 12, -4, -28, 0};
		const char *const hc[] = {_("START"), _("PROVIDER"), _("KIND"), _("AMOUNT"), _("CUR"), _("ITEM"),
					  _("RESOURCE")};
		out_heading(stdout, hw, hc, ARRAY_SIZE(hw));
		for (size_t i = 0; i < b.n; i++) {
			const struct bill_item *it = &b.v[i];
			char prov[64];
			printf("%-20s %-8s %-8s %12.4f %-4s %-28s %s\n", out_utc(it->start, t0, sizeof(t0)),
			       out_safe(it->provider, strlen(it->provider), prov, sizeof(prov)),
			       bill_kind_name(it->kind), it->amount, it->currency,
			       out_safe(it->item, strlen(it->item), s1, sizeof(s1)),
			       out_safe(it->resource, strlen(it->resource), s2, sizeof(s2)));
		}
	}
	bill_free(&b);
	ledger_close(l);
	return msg_finish(EXIT_OK);
}

/* ---- bill audit ---- */

static void audit_json(struct json *j, const struct audit_result *r)
{
	char t[32];

	json_obj_begin(j, NULL);
	json_str(j, "currency", r->currency);
	json_str(j, "from", out_utc(r->from, t, sizeof(t)));
	json_str(j, "to", out_utc(r->to, t, sizeof(t)));
	json_int(j, "lines", (long)r->lines);
	json_num(j, "total", r->total);
	json_num(j, "gross", r->gross);
	json_num(j, "credits", r->credits);
	json_num(j, "net", r->net);
	json_obj_begin(j, "by_kind");
	for (int k = 0; k < BILL_NKINDS; k++)
		json_num(j, bill_kind_name((enum bill_kind)k), r->by_kind[k]);
	json_obj_end(j);
	json_arr_begin(j, "resources");
	for (size_t i = 0; i < r->nres; i++) {
		json_obj_begin(j, NULL);
		json_str(j, "resource", r->res[i].resource);
		json_num(j, "total", r->res[i].total);
		json_obj_begin(j, "by_kind");
		for (int k = 0; k < BILL_NKINDS; k++)
			json_num(j, bill_kind_name((enum bill_kind)k), r->res[i].by_kind[k]);
		json_obj_end(j);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_arr_begin(j, "findings");
	for (size_t i = 0; i < r->nf; i++) {
		const struct audit_finding *f = &r->f[i];
		char words[1024];
		json_obj_begin(j, NULL);
		json_str(j, "code", audit_code_name(f->code));
		json_num(j, "amount", f->amount);
		json_str(j, "resource", f->resource);
		json_str(j, "from", out_utc(f->from, t, sizeof(t)));
		json_str(j, "to", out_utc(f->to, t, sizeof(t)));
		json_int(j, "count", (long)f->count);
		json_num(j, "billed", f->code == AUDIT_STORAGE_OUTLIVED ? NAN : f->billed);
		json_num(j, "used", f->code == AUDIT_STORAGE_OUTLIVED ? NAN : f->used);
		json_str(j, "what", billwords_finding(f, r->currency, words, sizeof(words)));
		json_str(j, "fix", billwords_fix(f->code));
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

static void audit_text(const struct audit_result *r)
{
	char t0[32], t1[32], words[1024], res[BILL_TEXT_MAX * 4];

	if (r->from == r->to) {
		/* only a --to before the bill's first line gives it (audit.h) */
		printf(_("%s: nothing to audit before --to %s: the bill's first %s line is not earlier\n"),
		       r->currency, out_utc(r->to, t1, sizeof(t1)), r->currency);
		return;
	}
	printf(_("%s, %s to %s: %zu lines, %.2f %s\n"), r->currency, out_utc(r->from, t0, sizeof(t0)),
	       out_utc(r->to, t1, sizeof(t1)), r->lines, r->total, r->currency);
	/* credits: CUR's credit and refund lines, GCP's credits field */
	if (r->credits != 0)
		printf(_("  gross %.2f %s, credits %.2f %s, net %.2f %s\n"), r->gross, r->currency, r->credits,
		       r->currency, r->net, r->currency);
	for (int k = 0; k < BILL_NKINDS; k++)
		printf("  %s%*s %12.2f %5.1f%%\n", billwords_kind((enum bill_kind)k),
		       out_width(billwords_kind((enum bill_kind)k)) < 10 ?
		       (int)(10 - out_width(billwords_kind((enum bill_kind)k))) : 0, "", r->by_kind[k],
		       r->total != 0 ? 100.0 * r->by_kind[k] / r->total : 0.0);
	printf(_("Per resource:\n"));
	for (size_t i = 0; i < r->nres; i++) {
		const char *name = r->res[i].resource[0] ? r->res[i].resource : _("(no resource id)");
		printf("  %12.2f  %s\n", r->res[i].total, out_safe(name, strlen(name), res, sizeof(res)));
	}
	if (!r->nf) {
		printf(_("No findings.\n"));
		return;
	}
	printf(_("Findings, largest first:\n"));
	for (size_t i = 0; i < r->nf; i++) {
		billwords_finding(&r->f[i], r->currency, words, sizeof(words));
		printf("  %12.2f  [%s] %s\n", r->f[i].amount, audit_code_name(r->f[i].code),
		       out_safe(words, strlen(words), res, sizeof(res)));
		printf("                %s\n", billwords_fix(r->f[i].code));
	}
}

/* The ledger's runs as the audit sees them; *out is the caller's (free()). */
static int audit_runs(struct ledger *l, struct audit_run **out, size_t *n, char *err, size_t errlen)
{
	struct ledger_entries es;

	*out = NULL;
	*n = 0;
	if (ledger_list(l, LEDGER_OLDEST_FIRST, 0, &es, err, errlen))
		return -1;
	if (es.n && !(*out = calloc(es.n, sizeof(**out)))) {
		ledger_entries_free(&es);
		snprintf(err, errlen, "%s", _("out of memory"));
		return -1;
	}
	for (size_t i = 0; i < es.n; i++) {
		const struct ledger_run *r = &es.v[i].run;
		struct audit_run *a = &(*out)[i];
		a->id = es.v[i].id;
		a->start = r->start;
		a->end = r->end;
		a->cost = r->cost;
		snprintf(a->currency, sizeof(a->currency), "%s", r->currency ? r->currency : "");
		/* the box and its GPU: a run is matched to its own bill lines */
		snprintf(a->host, sizeof(a->host), "%s", r->host ? r->host : "");
		snprintf(a->gpu, sizeof(a->gpu), "%s", r->gpu_type ? r->gpu_type : "");
	}
	*n = es.n;
	ledger_entries_free(&es);
	return 0;
}

static int time_opt(const struct opt *o, const char *v, void *ctx, char *err, size_t n)
{
	(void)ctx;
	if (bill_parse_time(v, (double *)o->data)) {
		snprintf(err, n, _("expected a time such as 2024-03-05 or 2024-03-05T14:00Z, got '%s'"), v);
		return -1;
	}
	return 0;
}

static int bill_audit_cmd(int argc, char **argv)
{
	const char *path = NULL;
	struct opt_money budget = {.amount = NAN};
	struct audit_run *runs = NULL;
	struct ledger *l = NULL;
	struct bill_export b = {0};
	struct json j;
	size_t nruns = 0;
	double from = NAN, to = NAN;
	bool json = false, have_budget = false;
	char err[1024], (*curs)[8] = NULL;
	size_t ncur = 0;
	int rc;
	const struct opt opts[] = {
		{.name = "budget", .type = OPT_MONEY, .dest = &budget, .arg = "MONEY",
		 .help = N_("a budget or balance for the period"), .seen = &have_budget},
		{.name = "from", .type = OPT_STRING, .cb = time_opt, .raw = true, .data = &from,
		 .arg = "TIME", .help = N_("start of the period (UTC)"), .example = "2024-03-01"},
		LEDGER_OPT(&path),
		OPT_BOOL("json", &json, N_("print JSON")),
		{.name = "to", .type = OPT_STRING, .cb = time_opt, .raw = true, .data = &to,
		 .arg = "TIME", .help = N_("end of the period (UTC)"), .example = "2024-04-01"},
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = "bill audit", .usage = usage, .flags = 0, .min_operands = 0,
				   .max_operands = 0, .operands = NULL};

	if ((rc = opt_parse(&oc, opts, argc, argv, NULL, NULL)) != OPT_GO)
		return rc;
	if (!isnan(from) && !isnan(to) && to <= from)
		return msg_usage(_("--to: expected a time after --from"));
	if ((rc = ledgeropt_open(path, &l)))
		return rc;
	rc = EXIT_RUNTIME;
	if (ledger_bill_list(l, &b, err, sizeof(err)) || audit_runs(l, &runs, &nruns, err, sizeof(err)))
		goto out_error;
	/* the currencies, in order of first appearance */
	if (b.n && !(curs = calloc(b.n, sizeof(*curs))))
		goto out_nomem;
	for (size_t i = 0; i < b.n; i++) {
		size_t k = 0;
		while (k < ncur && strcmp(curs[k], b.v[i].currency))
			k++;
		if (k == ncur)
			snprintf(curs[ncur++], sizeof(curs[0]), "%s", b.v[i].currency);
	}
	if (have_budget && budget.has_code && ncur && strcmp(budget.code, curs[0])) {
		rc = msg_usage(_("--budget: expected an amount in %s, the bill's currency, got %s"),
			       curs[0], budget.code);
		goto out_free;
	}
	if (json) {
		json_init(&j, stdout);
		json_obj_begin(&j, NULL);
		json_str(&j, "schema", "gpurent.bill-audit/1");
		json_str(&j, "ledger", ledger_path(l));
		json_arr_begin(&j, "audits");
	} else if (!ncur) {
		printf(_("no bill lines in %s: import one with 'gpurent bill import FILE'\n"), ledger_path(l));
	}
	for (size_t k = 0; k < ncur; k++) {
		struct audit_opts ao = {.from = from, .to = to, .currency = curs[k],
					.budget = have_budget && k == 0 ? budget.amount : NAN};
		struct audit_result r;
		if (audit_bill(b.v, b.n, runs, nruns, &ao, &r, err, sizeof(err)))
			goto out_error;
		if (json)
			audit_json(&j, &r);
		else
			audit_text(&r);
		if (!json && k + 1 < ncur)
			printf("\n");
		audit_result_free(&r);
	}
	if (json) {
		json_arr_end(&j);
		json_obj_end(&j);
	}
	rc = msg_finish(EXIT_OK);
	goto out_free;
out_nomem:
	snprintf(err, sizeof(err), "%s", _("out of memory"));
out_error:
	msg_error("%s", err);
out_free:
	free(curs);
	free(runs);
	bill_free(&b);
	ledger_close(l);
	return rc;
}

/* MUST stay sorted by name. */
static const struct opt_sub subs[] = {
	{"audit", bill_audit_cmd},
	{"import", bill_import_cmd},
	{"list", bill_list_cmd},
};

int cmd_bill(int argc, char **argv)
{
	const struct opt_cmd oc = {.name = "bill", .usage = usage, .flags = OPT_STOP_AT_OPERAND,
				   .max_operands = -1, .subs = subs, .n_subs = ARRAY_SIZE(subs)};

	return ledgeropt_dispatch(&oc, usage, argc, argv);
}
