/*
 * cmd_offers.c - `gpurent offers [QUERY] [--catalog PATH]... [--sort F[-],...]
 * [--limit N] [--json|--csv]`: search GPU offers in price catalogs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/market/query.h"
#include "core/text/units.h"
#include "kit/cmd.h"
#include "kit/common.h"
#include "kit/opt.h"
#include "cmd/plan/offers_load.h"
#include "base/out.h"
#include "base/util.h"

static const char usage[] = N_(
	"usage: gpurent offers [QUERY...] [--catalog PATH]... [--sort|-o FIELD[-],...] [--limit N]\n"
	"                      [--json | --csv] [--currency CODE] [--rate CODE=PER_USD] [--progress | --quiet]\n"
	"                      [--trust-catalog]\n"
	"\n"
	"Search GPU offers in price catalogs: SkyPilot vms.csv files (any provider;\n"
	"a file, or a folder of them) and gpurent's own offer files. Without\n"
	"--catalog: the bundled data/offers.csv, the catalogs 'gpurent catalog\n"
	"update' fetched, then ~/.sky/catalogs/<newest>/ when present (less the\n"
	"providers fetched). GPU names are normalised to data/gpus.csv (the catalog's per-GPU\n"
	"memory decides A100 40 vs 80 GB); prices are USD per GPU-hour unless\n"
	"--currency is given. Quirky rows (placeholder spot prices, duplicates,\n"
	"memory given as a total, CPU-only rows, missing prices, unknown GPUs) are\n"
	"counted and reported under the results, never priced. GCP GPU rows are\n"
	"priced with their host VM in the same zone, as SkyPilot does. Marks: '!'\n"
	"a spot price at or above on-demand (suspect: plan does not rank it unless\n"
	"--trust-catalog, which drops that spot price instead); 'far below' an offer\n"
	"under half the median per-GPU price of its GPU; 'access' the membership\n"
	"an offer needs (campus HPC, an institution's pool).\n"
	"\n"
	"QUERY: clauses 'field op value' joined by AND, e.g.\n"
	"  gpurent offers 'gpu=A100 gpu_mem>=40 gpus>=2 price<3 spot'\n"
	"ops: < <= == (=) != >= > in notin, also vast's eq neq gt gte lt lte nin and\n"
	"'not in'; a bare yes/no field means true; lists: gpu in [A100,H100];\n"
	"field=any matches every offer. vast.ai's queries work as they are:\n"
	"  gpurent offers 'gpu_name=RTX_4090 num_gpus>=4 geolocation notin [CN,VN]' -o 'dph-'\n"
	"its field names are aliases or conversions (docs/offers.md \"vast.ai queries\");\n"
	"a field only vast's live API knows (reliability, verified, inet_down, ...)\n"
	"is refused with exit 2, never ignored. Fields:\n");

static void usage_to(FILE *f)
{
	fputs(_(usage), f);
	for (size_t i = 0; i < query_nfields; i++)
		fprintf(f, "  %-15s %-10s %s\n", query_fields[i].name, query_fields[i].unit,
			msg_tr(query_fields[i].help));
	fputs(_("\n--sort (or -o/--order) FIELD, FIELD- (descending) or several: 'gpus-,price';\n"
	      "default price; --limit N (default 20,\n"
	      "0 = all); --json / --csv output; --currency CNY shows prices in CNY at the\n"
	      "rate of data/currencies.csv or --rate CNY=7.2.\n"
	      "Exit status: 0 ok (also when nothing matches), 2 bad input: a bad query,\n"
	      "or bad catalog rows (each reported as file:line: field: ...; the rest load).\n"),
	      f);
}

struct search {
	struct query q;
	struct query_sort sort;
	size_t limit;
	struct offer *heap;   /* the best `limit` so far, worst on top */
	size_t n;
	size_t matched;
};

/* price ascending, the tie-break after the user's keys (set by cmd_offers) */
static struct query_sort by_price;

/* Where an offer is, as precisely as its catalog says: the zone, else
 * the region (the table's and CSV's region column). */
static const struct cat_str *place(const struct offer *o)
{
	return o->zone.len ? &o->zone : &o->region;
}

/* Total order: the sort field, then price, provider, instance, region, line. */
static int order(const struct query_sort *s, const struct offer *a, const struct offer *b)
{
	int r = query_compare(s, a, b);
	size_t m;

	if (r)
		return r;
	if ((r = query_compare(&by_price, a, b)))
		return r;
	m = a->provider.len < b->provider.len ? a->provider.len : b->provider.len;
	if ((r = memcmp(a->provider.p, b->provider.p, m)) || (r = (int)a->provider.len - (int)b->provider.len))
		return r;
	m = a->instance.len < b->instance.len ? a->instance.len : b->instance.len;
	if ((r = memcmp(a->instance.p, b->instance.p, m)) || (r = (int)a->instance.len - (int)b->instance.len))
		return r;
	m = a->region.len < b->region.len ? a->region.len : b->region.len;
	if ((r = memcmp(a->region.p, b->region.p, m)) || (r = (int)a->region.len - (int)b->region.len))
		return r;
	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	return (a->line > b->line) - (a->line < b->line);
}

static void sift_down(struct search *s, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, big = i;
		struct offer t;
		if (l < s->n && order(&s->sort, &s->heap[l], &s->heap[big]) > 0)
			big = l;
		if (r < s->n && order(&s->sort, &s->heap[r], &s->heap[big]) > 0)
			big = r;
		if (big == i)
			return;
		t = s->heap[i];
		s->heap[i] = s->heap[big];
		s->heap[big] = t;
		i = big;
	}
}

static bool keep(void *ctx, const struct offer *o)
{
	struct search *s = ctx;

	if (!query_match(&s->q, o))
		return false;
	s->matched++;
	if (!s->limit)
		return true;
	if (s->n < s->limit) {
		size_t i = s->n++;
		s->heap[i] = *o;
		while (i && order(&s->sort, &s->heap[i], &s->heap[(i - 1) / 2]) > 0) {
			struct offer t = s->heap[i];
			s->heap[i] = s->heap[(i - 1) / 2];
			s->heap[(i - 1) / 2] = t;
			i = (i - 1) / 2;
		}
	} else if (order(&s->sort, o, &s->heap[0]) < 0) {
		s->heap[0] = *o;
		sift_down(s, 0);
	}
	return false;
}

/* keep()'s test alone: pure, safe on the loader's second thread */
static bool match(void *ctx, const struct offer *o)
{
	const struct search *s = ctx;

	return query_match(&s->q, o);
}

static const struct query_sort *sort_for_qsort;

static int qsort_cmp(const void *a, const void *b)
{
	return order(sort_for_qsort, a, b);
}

static const char *gpu_label(const struct offer *o, char *buf, size_t n)
{
	if (o->gpu) {
		size_t len = strcspn(o->gpu->aliases, "|");
		snprintf(buf, n, "%.*s", (int)len, len ? o->gpu->aliases : o->gpu->name);
	} else {
		snprintf(buf, n, "%.*s?", (int)o->gpu_name.len, o->gpu_name.p);
	}
	return buf;
}

/* The note column: access, outlier, suspect; "" when none. */
static const char *offer_note(const struct offer *o, char *buf, size_t n, size_t peers)
{
	char acc[96];
	size_t used = 0;

	buf[0] = '\0';
	if (o->suspect == OFFER_SPOT_AT_OR_ABOVE)
		used += (size_t)snprintf(buf + used, n - used, "%s", _("! spot>=on-demand"));
	if (used < n && o->peer_ratio > 0 && o->peer_ratio < CATALOG_OUTLIER_RATIO)
		used += (size_t)snprintf(buf + used, n - used, Q_("%s%.0f%% below the median of %zu offer",
								  "%s%.0f%% below the median of %zu offers", peers),
					 used ? "; " : "", (1 - o->peer_ratio) * 100, peers);
	if (used < n && o->access.len)
		snprintf(buf + used, n - used, _("%saccess: %s"), used ? "; " : "",
			 out_safe(o->access.p, o->access.len, acc, 40));
	return buf;
}

static void csv_text(const struct cat_str *s)
{
	if (s->len)   /* an empty field (access, host) may have no pointer */
		out_csv_field(stdout, s->p, s->len);
}

/* --json: the offers shown and the catalogs read. */
static void print_json(const struct offers_ctx *c, const struct search *s, const struct offer *res, size_t nres,
		       const char *cur, double fx, bool trust)
{
	struct json j;
	char g[64];

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", "gpurent.offers/1");
	json_str(&j, "currency", cur);
	json_num(&j, "matched", (double)s->matched);
	json_bool(&j, "trust_catalog", trust);
	json_arr_begin(&j, "offers");
	for (size_t i = 0; i < nres; i++) {
		const struct offer *o = &res[i];
		char b[512];
		json_obj_begin(&j, NULL);
#define JS(k, cs) (snprintf(b, sizeof(b), "%.*s", (int)(cs).len, (cs).len ? (cs).p : ""), json_str(&j, k, b))
		JS("provider", o->provider);
		JS("instance", o->instance);
		JS("region", o->region);
		if (o->zone.len)
			JS("zone", o->zone);
		json_str(&j, "gpu", gpu_label(o, g, sizeof(g)));
		json_str(&j, "gpu_spec", o->gpu ? o->gpu->name : "");
		JS("gpu_catalog_name", o->gpu_name);
		json_num(&j, "gpus", o->gpus);
		json_num(&j, "gpu_mem_bytes", o->gpu_mem);
		json_num(&j, "price_per_gpu_hour", offer_price_per_gpu(o) / fx);
		json_num(&j, "instance_price_per_hour", o->price / fx);
		json_num(&j, "spot_price_per_gpu_hour", offer_spot_per_gpu(o) / fx);
		json_bool(&j, "spot_only", o->spot_only);
		json_num(&j, "vcpus", o->vcpus);
		json_num(&j, "ram_gib", o->ram_gib);
		json_str(&j, "supply", supply_type_name(o->supply));
		json_bool(&j, "slice", o->is_slice);
		JS("billing", o->billing);
		JS("source", o->source);
		JS("access", o->access);
		JS("host", o->host);
		json_str(&j, "suspect", o->suspect == OFFER_SPOT_AT_OR_ABOVE ? "spot_at_or_above" : "");
		{
			size_t peers;
			double ratio = offer_peer_ratio(&c->set, o, &peers);
			json_num(&j, "peer_ratio", ratio);
			json_num(&j, "peers", (double)peers);
			json_bool(&j, "far_below_peers", ratio > 0 && ratio < CATALOG_OUTLIER_RATIO);
		}
		json_str(&j, "catalog", c->set.reports[o->file].path);
		json_int(&j, "line", (long)o->line);
#undef JS
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_arr_begin(&j, "catalogs");
	for (size_t i = 0; i < c->set.nreports; i++) {
		const struct catalog_report *r = &c->set.reports[i];
		json_obj_begin(&j, NULL);
		json_str(&j, "path", r->path);
		json_str(&j, "format", r->format);
		json_num(&j, "rows", (double)r->rows);
		json_num(&j, "offers", (double)r->loaded);
		json_num(&j, "cpu_only", (double)r->cpu_only);
		json_num(&j, "missing_price", (double)r->missing_price);
		json_num(&j, "duplicates", (double)r->duplicates);
		json_num(&j, "bad_rows", (double)r->bad_rows);
		json_num(&j, "spot_placeholder", (double)r->spot_placeholder);
		json_num(&j, "spot_above_price", (double)r->spot_above_price);
		json_num(&j, "unknown_gpu", (double)r->unknown_gpu);
		json_str(&j, "unknown_gpu_names", r->unknown_names);
		json_num(&j, "mem_total_fixed", (double)r->mem_total_fixed);
		json_num(&j, "mem_from_spec", (double)r->mem_from_spec);
		json_num(&j, "no_host", (double)r->no_host);
		json_num(&j, "hosts_joined", (double)r->hosts_joined);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
}

/* --csv: the offers shown, one row each. */
static void print_csv(const struct offer *res, size_t nres, const char *cur, double fx)
{
	char g[64];
	printf("provider,instance,region,gpu,gpus,gpu_mem_gb,price_per_gpu_hour,spot_price_per_gpu_hour,"
	       "vcpus,ram_gib,supply,currency,access,host,suspect,peer_ratio\n");
	for (size_t i = 0; i < nres; i++) {
		const struct offer *o = &res[i];
		csv_text(&o->provider);
		putchar(',');
		csv_text(&o->instance);
		putchar(',');
		csv_text(place(o));
		putchar(',');
		gpu_label(o, g, sizeof(g));
		out_csv_field(stdout, g, strlen(g));
		printf(",%g,%.1f,%.4f,%.4f,%g,%g,%s,%s,", o->gpus,
		       o->gpu_mem / 1e9, offer_price_per_gpu(o) / fx, offer_spot_per_gpu(o) / fx,
		       o->vcpus, o->ram_gib, supply_type_name(o->supply), cur);
		csv_text(&o->access);
		putchar(',');
		csv_text(&o->host);
		printf(",%s,%.3f\n", o->suspect == OFFER_SPOT_AT_OR_ABOVE ? "spot_at_or_above" : "",
		       o->peer_ratio);
	}
}

/* The table: the offers shown, what they were out of, the notes, the catalogs read. */
static void print_table(const struct offers_ctx *c, const struct search *s, const struct offer *res, size_t nres,
			const char *cur, double fx, const char *sort_text)
{
	char g[64], spot[16], od[16], prov[64], inst[128], reg[128], gs[128], note[256], line[1024];
	size_t len;
	bool any_suspect = false, any_far = false;
	static const int w[] = {-14, -30, -14, 4, 7, 9, 9, 5, 7, -12, -16, 0};
	const char *const h[] = {_("provider"), _("instance"), "gpu", "n", _("mem GB"), _("/GPU-h"),
				 _("spot"), "vCPU", _("RAM GiB"), _("supply"), _("region"), _("note")};

	out_heading(stdout, w, h, ARRAY_SIZE(w));
	for (size_t i = 0; i < nres; i++) {
		const struct offer *o = &res[i];
		size_t peers;
		offer_peer_ratio(&c->set, o, &peers);
		if (o->spot_price > 0)
			snprintf(spot, sizeof(spot), "%.3f%s", offer_spot_per_gpu(o) / fx,
				 o->suspect == OFFER_SPOT_AT_OR_ABOVE ? "!" : "");
		else
			snprintf(spot, sizeof(spot), "-");
		snprintf(od, sizeof(od), o->spot_only ? "-" : "%.3f", offer_price_per_gpu(o) / fx);
		any_suspect |= o->suspect == OFFER_SPOT_AT_OR_ABOVE;
		any_far |= o->peer_ratio > 0 && o->peer_ratio < CATALOG_OUTLIER_RATIO;
		/* catalog text is escaped for the terminal (out.h), then cut to its column */
		gpu_label(o, g, sizeof(g));
		offer_note(o, note, sizeof(note), peers);
		len = (size_t)snprintf(line, sizeof(line), "%-14s %-30s %-14s %4g %7.1f %9s %9s %5g %7g %-12s %-16s %s",
		       out_safe(o->provider.p, o->provider.len, prov, 15),
		       out_safe(o->instance.p, o->instance.len, inst, 31),
		       out_safe(g, strlen(g), gs, sizeof(gs)), o->gpus, o->gpu_mem / 1e9,
		       od, spot, o->vcpus, o->ram_gib,
		       supply_type_name(o->supply), out_safe(place(o)->p, place(o)->len, reg, 25), note);
		/* no trailing blanks on a row without a note */
		if (len >= sizeof(line))
			len = sizeof(line) - 1;
		while (len && line[len - 1] == ' ')
			line[--len] = '\0';
		puts(line);
	}
	const struct currency *cu = currency_find(&c->currencies, cur);   /* found: fx > 0 */

	printf(_("%zu of %zu matching offers shown (prices in %s per GPU-hour; sort: %s)\n"), nres,
	       s->matched, cu->code, sort_text);
	if (strcmp(cu->code, "USD")) {
		char rnote[1600];

		printf(_("1 USD = %.4g %s, from %s\n"), 1 / cu->usd, cu->code,
		       offers_rate_note(cu, rnote, sizeof(rnote)));
	}
	if (any_suspect)
		printf("%s\n", _("! spot at or above on-demand: the columns may be swapped; plan does not rank "
			     "these rows (--trust-catalog ranks them on on-demand)"));
	if (any_far)
		printf(_("far below: under %.1fx the median per-GPU on-demand price of the same GPU "
			 "(docs/offers.md \"Suspect prices\")\n"), CATALOG_OUTLIER_RATIO);
	printf(_("Catalogs:\n"));
	offers_report(stdout, c);
}

int cmd_offers(int argc, char **argv)
{
	struct offers_ctx c;
	struct search s;
	char query_text[4096] = "", err[512], cur[8] = "USD";
	const char *sort_text = "price", *currency = "USD";
	struct opt_list cats = {0}, rates = {0};
	long limit = 20;
	size_t nres;
	struct offer *res;
	bool json = false, csv = false, trust = false;
	double fx = 1;
	int rc;

	memset(&s, 0, sizeof(s));
	s.limit = 20;
	if ((rc = offers_init(&c, "offers")))
		return rc;
	{
		const struct opt opts[] = {
			OPT_MANY("catalog", &cats, "PATH", N_("a SkyPilot catalog file or folder, or an offers CSV")),
			OPT_BOOL("csv", &csv, N_("print CSV")),
			OPT_STR("currency", &currency, "CODE", N_("show prices in this currency")),
			OPT_BOOL("json", &json, N_("print JSON")),
			OPT_LONG("limit", &limit, 0, 100000000, "N", N_("show at most N offers (0: all)")),
			{.name = "rate", .type = OPT_LIST, .dest = &rates, .arg = "CODE=N",
			 .help = N_("units of CODE per USD"), .example = "CNY=7.2"},
			{.name = "order", .short_name = 'o', .type = OPT_STRING, .dest = &sort_text, .arg = "KEYS",
			 .help = N_("the same as --sort (vast's -o)"), .example = "num_gpus-"},
			{.name = "sort", .type = OPT_STRING, .dest = &sort_text, .arg = "KEYS",
			 .help = N_("sort keys: FIELD[-],FIELD[-]... ('-' descending)"), .example = "gpus-,price"},
			OPT_BOOL("trust-catalog", &trust,
				 N_("take a spot price at or above on-demand as no spot (rank on on-demand)")),
			OPT_PROGRESS_FLAGS,
			OPT_TABLE_END,
		};
		const struct opt_cmd oc = {.name = "offers", .max_operands = -1, .usage_fn = usage_to};
		int nops;

		if ((rc = opt_parse(&oc, opts, argc, argv, NULL, &nops)) != OPT_GO)
			goto out;
		for (int i = 0; i < nops; i++) {
			size_t used = strlen(query_text);
			snprintf(query_text + used, sizeof(query_text) - used, "%s%s", used ? " " : "", argv[i]);
		}
	}
	s.limit = (size_t)limit;
	by_price = (struct query_sort){1, {{query_field_index("price"), false}}};
	snprintf(cur, sizeof(cur), "%s", currency);
	for (size_t i = 0; i < rates.n; i++)
		if ((rc = offers_set_rate(&c, rates.v[i])))
			goto out;
	if (json && csv) {
		msg_error(_("choose one of --json and --csv"));
		rc = EXIT_USAGE;
		goto out;
	}
	fx = offers_rate(&c, cur);
	if (fx <= 0) {
		msg_error(_("--currency: unknown currency '%s' (see data/currencies.csv, or --rate %s=N)"),
			     cur, cur);
		rc = EXIT_USAGE;
		goto out;
	}
	if (query_parse(query_text, &s.q, err, sizeof(err)) ||
	    query_sort_parse(sort_text, &s.sort, err, sizeof(err))) {
		msg_error(_("%s"), err);
		rc = EXIT_USAGE;
		goto out;
	}
	if (s.limit && !(s.heap = calloc(s.limit, sizeof(*s.heap)))) {
		rc = EXIT_RUNTIME;
		goto out;
	}
	c.trust_catalog = trust;
	if ((rc = offers_load(&c, (char **)cats.v, cats.n, keep, match, &s)))
		goto out;
	res = s.limit ? s.heap : c.set.v;
	nres = s.limit ? s.n : c.set.n;
	for (size_t i = 0; i < nres; i++)   /* the heap's copies were taken before the peers were known */
		res[i].peer_ratio = offer_peer_ratio(&c.set, &res[i], NULL);
	sort_for_qsort = &s.sort;
	if (nres)   /* qsort(NULL, 0) is undefined: no offer matched */
		qsort(res, nres, sizeof(*res), qsort_cmp);

	if (json)
		print_json(&c, &s, res, nres, cur, fx, trust);
	else if (csv)
		print_csv(res, nres, cur, fx);
	else
		print_table(&c, &s, res, nres, cur, fx, sort_text);
	rc = msg_finish(c.bad_rows ? EXIT_USAGE : EXIT_OK);
out:
	free(s.heap);
	opt_list_free(&cats);
	opt_list_free(&rates);
	offers_free(&c);
	return rc;
}
