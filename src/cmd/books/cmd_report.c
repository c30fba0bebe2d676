/*
 * cmd_report.c - `gpurent report`: the ledger and the imported bills as
 * one self-contained HTML page (inline SVG and CSS, no script, no font or
 * URL from outside), each chart beside a table of the same numbers; or
 * one chart as SVG (--svg). docs/report.md.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/books/audit.h"
#include "core/books/bill.h"
#include "core/estimate/estimate.h"
#include "core/plan/plan.h"
#include "store/ledger.h"
#include "kit/cmd.h"
#include "cmd/books/billwords.h"
#include "kit/common.h"
#include "cmd/plan/offers_load.h"
#include "kit/opt.h"
#include "cmd/plan/plan_setup.h"
#include "cmd/books/svg.h"
#include "kit/wlargs.h"
#include "base/util.h"

static const char usage[] = N_(
	"usage: gpurent report [WORKLOAD.yaml] [--FIELD VALUE]... [--out FILE] [--svg CHART]\n"
	"                      [--ledger PATH]\n"
	"\n"
	"Draw where the money went, from the ledger's runs and the bills imported\n"
	"with 'gpurent bill import': one HTML page (inline SVG and CSS, no script,\n"
	"nothing fetched; opens offline and prints), each chart with a table of\n"
	"the same numbers:\n"
	"  spend     the bill's spend by ISO week, stacked by kind (GPU time,\n"
	"            storage, egress, images, IPs, other)\n"
	"  runs      cost per run (the 20 most recent)\n"
	"  tags      cost per tag (as 'ledger summary' by tag)\n"
	"  gpus      GPU-hours per GPU (as 'ledger summary' by GPU)\n"
	"  findings  the audit's findings ranked by the amount at stake (as\n"
	"            'bill audit')\n"
	"Given a workload (a YAML file or the fields as options, as for 'gpurent\n"
	"plan'), two more:\n"
	"  plan      the plan's total cost against finish time for every feasible\n"
	"            offer of the default catalog, the cost-finish Pareto front\n"
	"            marked (as 'plan' prints them), in --currency (the config's\n"
	"            currency, CNY under zh_CN, else USD) at data/currencies.csv's rate\n"
	"  memory    the estimate's memory per GPU by component against the memory\n"
	"            tiers (as 'estimate' prints them)\n"
	"Amounts are in the first currency of the bill (spend, findings) or in the\n"
	"runs' currency (runs, tags: --currency when a run has it, else the first\n"
	"run's); what is in another currency is named under its chart with its\n"
	"count and sum, never converted.\n"
	"\n"
	"  --currency CODE  the plan's money and the runs' charts in CODE (RMB is CNY)\n"
	"  --out FILE     write there (default report.html; with --svg, stdout)\n"
	"  --svg CHART    one chart as SVG: spend, runs, tags, gpus, findings,\n"
	"                 plan or memory\n"
	"  --ledger PATH  the ledger (default $GPURENT_LEDGER, else\n"
	"                 ~/.local/share/gpurent/ledger.db)\n"
	"\n"
	"Exit status: 0, 1 a runtime failure, 2 bad input. docs/report.md.\n"
	"\n"
	"Workload fields (see 'gpurent help estimate'):\n");

static void print_usage(FILE *f)
{
	fputs(_(usage), f);
	wlargs_print_fields(f);
}

enum chart { CH_SPEND, CH_RUNS, CH_TAGS, CH_GPUS, CH_FINDINGS, CH_PLAN, CH_MEMORY, CH_N };
static const char *const chart_names[] = {"spend", "runs", "tags", "gpus", "findings", "plan",
					  "memory", NULL};

#define MAX_BARS 64
#define LABEL_MAX 40

struct data {
	struct ledger_entries es;
	struct ledger_summary tags, gpus;
	struct bill_export bill;
	struct audit_result audit;
	bool have_audit;
	char run_cur[8];
	char bill_cur[8];
	/* the plan's money: shown in cur (--currency, the config's, CNY under
	 * zh_CN), converted from USD with data/currencies.csv's row (rate_note) */
	char cur[8];
	double usd_per_unit;
	char rate_note[1200];
	/* given a workload: the plan (choices borrow offers) and the estimate */
	bool have_plan, have_est;
	struct plan_result plan;
	struct estimate est;
};

/* A label cut to LABEL_MAX bytes (at a UTF-8 boundary) with "…" in buf. */
static const char *cut(const char *s, char *buf, size_t n)
{
	size_t len = strlen(s), k;

	if (len <= LABEL_MAX || n < LABEL_MAX + 4)
		return s;
	k = LABEL_MAX - 1;
	while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
		k--;
	memcpy(buf, s, k);
	memcpy(buf + k, "\xE2\x80\xA6", 4);
	return buf;
}

/* A table's head; bit i of num marks column i numeric (right-aligned). */
static void table_begin(FILE *f, const char *const *head, size_t n, unsigned num)
{
	fputs("<div class=\"t\"><table><thead><tr>", f);
	for (size_t i = 0; i < n; i++) {
		fputs(num & (1u << i) ? "<th class=\"n\">" : "<th>", f);
		svg_escape(f, head[i]);
		fputs("</th>", f);
	}
	fputs("</tr></thead><tbody>\n", f);
}

static void table_end(FILE *f)
{
	fputs("</tbody></table></div>\n", f);
}

/* A bar chart's table beside it: the chart's box ends, then one row a bar,
 * its label and its value. */
static void bar_table(FILE *f, const char *key_head, const char *value_head, const char *const *lab,
		      const double *v, size_t n)
{
	const char *head[] = {key_head, value_head};

	fputs("</div>\n", f);   /* the chart's box ends; its table follows */
	table_begin(f, head, 2, 2);
	for (size_t i = 0; i < n; i++) {
		fputs("<tr><td>", f);
		svg_escape(f, lab[i]);
		fprintf(f, "</td><td class=\"n\">%.2f</td></tr>\n", v[i]);
	}
	table_end(f);
}

/* ---- the charts ---- */

static void week_of(double t, char *buf, size_t n)
{
	time_t tt = (time_t)floor(t);
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(buf, n, "%G-W%V", &tm))
		snprintf(buf, n, "?");
}

struct week_spend {
	char week[16];                /* "2024-W10" */
	double v[BILL_NKINDS];
};

static int by_week(const void *a, const void *b)
{
	return strcmp(((const struct week_spend *)a)->week, ((const struct week_spend *)b)->week);
}

/* What a chart in currency cur leaves out: the runs (bills: false) or the
 * bill lines in any other currency, named with their count and sum, since
 * none is converted (docs/report.md "Currencies"). */
static void note_others(FILE *f, const struct data *d, const char *cur, bool bills)
{
	char codes[8][8], line[600];
	double sum[8] = {0};
	size_t cnt[8] = {0}, nc = 0, k = 0;

	for (size_t i = 0; i < (bills ? d->bill.n : d->es.n); i++) {
		const char *c = bills ? d->bill.v[i].currency : d->es.v[i].run.currency;
		double v = bills ? d->bill.v[i].amount : d->es.v[i].run.cost;
		size_t j;
		if (!c || !*c || !strcmp(c, cur) || (!bills && !ledger_known(v)))
			continue;
		for (j = 0; j < nc && strcmp(codes[j], c); j++)
			;
		if (j == nc) {
			if (nc == 8)
				continue;
			snprintf(codes[nc++], sizeof(codes[0]), "%s", c);
		}
		cnt[j]++;
		sum[j] += v;
	}
	if (!nc)
		return;
	k = (size_t)snprintf(line, sizeof(line), "%s", _("Not drawn, in their own currency (never converted):"));
	for (size_t j = 0; j < nc && k < sizeof(line); j++)
		k += (size_t)snprintf(line + k, sizeof(line) - k, _(" %zu %s in %s (%.2f %s)"), cnt[j],
				      bills ? Q_("bill line", "bill lines", cnt[j]) : Q_("run", "runs", cnt[j]),
				      codes[j], sum[j], codes[j]);
	fputs("<p class=\"note\">", f);
	svg_escape(f, line);
	fputs("</p>\n", f);
}

/*
 * Spend by ISO week and kind. Every week is in the table, with the total;
 * the chart draws the MAX_BARS - 1 most recent weeks and one bar "earlier"
 * that sums the weeks before them, and says so (report-spend-64-weeks:
 * weeks past the 64th vanished).
 */
static void chart_spend(FILE *f, const struct data *d, bool table)
{
	struct week_spend *w = NULL;
	char unit[32], earlier[64], title[160];
	const char *cat[MAX_BARS], *ser[BILL_NKINDS];
	double v[MAX_BARS * BILL_NKINDS] = {0}, all = 0;
	size_t nw = 0, cap = 0, last = 0, first, nb;

	for (size_t i = 0; i < d->bill.n; i++) {
		const struct bill_item *it = &d->bill.v[i];
		char wk[16];
		size_t k;
		if (strcmp(it->currency, d->bill_cur))
			continue;
		week_of(it->start, wk, sizeof(wk));
		/* bills come in time order: the week of the line before, mostly */
		if (last < nw && !strcmp(w[last].week, wk)) {
			k = last;
		} else {
			for (k = 0; k < nw && strcmp(w[k].week, wk); k++)
				;
		}
		if (k == nw) {
			if (util_grow((void **)&w, &cap, nw + 1, sizeof(*w))) {
				msg_error(_("out of memory"));
				free(w);
				return;
			}
			memset(&w[nw], 0, sizeof(w[0]));
			snprintf(w[nw++].week, sizeof(w[0].week), "%s", wk);
		}
		w[k].v[it->kind] += it->amount;
		last = k;
	}
	/* weeks sort as text ("2024-W09" < "2024-W10") */
	if (nw)
		qsort(w, nw, sizeof(*w), by_week);
	first = nw > MAX_BARS ? nw - (MAX_BARS - 1) : 0;   /* weeks [0, first) are "earlier" */
	nb = 0;
	if (first) {
		snprintf(earlier, sizeof(earlier), _("earlier (%zu weeks)"), first);
		cat[nb] = earlier;
		for (size_t i = 0; i < first; i++)
			for (int k = 0; k < BILL_NKINDS; k++)
				v[k] += w[i].v[k];
		nb++;
	}
	for (size_t i = first; i < nw; i++, nb++) {
		cat[nb] = w[i].week;
		memcpy(&v[nb * BILL_NKINDS], w[i].v, sizeof(w[i].v));
	}
	for (int k = 0; k < BILL_NKINDS; k++)
		ser[k] = billwords_kind((enum bill_kind)k);
	snprintf(unit, sizeof(unit), "%s", d->bill_cur[0] ? d->bill_cur : "-");
	if (first)
		snprintf(title, sizeof(title), _("the first bar sums the %zu weeks before %s; the table "
						 "lists every week"), first, w[first].week);
	svg_stacked_bars(f, _("Spend by week and kind"), unit, cat, nb, ser, BILL_NKINDS, v);
	note_others(f, d, d->bill_cur, true);
	if (first) {
		fputs("<p class=\"note\">", f);
		svg_escape(f, title);
		fputs("</p>\n", f);
	}
	if (!table) {
		free(w);
		return;
	}
	fputs("</div>\n", f);   /* the chart's box ends; its table follows */
	{
		const char *head[BILL_NKINDS + 2];
		head[0] = _("week");
		for (int k = 0; k < BILL_NKINDS; k++)
			head[k + 1] = ser[k];
		head[BILL_NKINDS + 1] = _("total");
		table_begin(f, head, BILL_NKINDS + 2, ~1u);
	}
	/* every week, the chart's "earlier" ones too, and the total of all */
	for (size_t i = 0; i < nw; i++) {
		double t = 0;
		fprintf(f, "<tr><td class=\"k\">%s</td>", w[i].week);
		for (int k = 0; k < BILL_NKINDS; k++) {
			fprintf(f, "<td class=\"n\">%.2f</td>", w[i].v[k]);
			t += w[i].v[k];
		}
		fprintf(f, "<td class=\"n\">%.2f</td></tr>\n", t);
		all += t;
	}
	if (nw) {
		fprintf(f, "<tr class=\"sum\"><td class=\"k\">%s</td>", _("total"));
		for (int k = 0; k < BILL_NKINDS; k++) {
			double t = 0;
			for (size_t i = 0; i < nw; i++)
				t += w[i].v[k];
			fprintf(f, "<td class=\"n\">%.2f</td>", t);
		}
		fprintf(f, "<td class=\"n\">%.2f</td></tr>\n", all);
	}
	table_end(f);
	free(w);
}

static void chart_runs(FILE *f, const struct data *d, bool table)
{
	char labels[20][LABEL_MAX + 32], unit[32];
	const char *lab[20];
	double v[20];
	size_t n = 0;

	/* the 20 most recent runs with a cost in the currency, oldest first */
	for (size_t i = d->es.n; i-- > 0 && n < 20;) {
		const struct ledger_run *r = &d->es.v[i].run;
		char b[LABEL_MAX + 4];
		if (!ledger_known(r->cost) || !r->currency || strcmp(r->currency, d->run_cur))
			continue;
		snprintf(labels[n], sizeof(labels[0]), "#%lld %s", (long long)d->es.v[i].id,
			 r->tags ? cut(r->tags, b, sizeof(b)) : "");
		v[n++] = r->cost;
	}
	for (size_t i = 0; i < n / 2; i++) {
		char t[sizeof(labels[0])];
		double tv = v[i];
		memcpy(t, labels[i], sizeof(t));
		memcpy(labels[i], labels[n - 1 - i], sizeof(t));
		memcpy(labels[n - 1 - i], t, sizeof(t));
		v[i] = v[n - 1 - i];
		v[n - 1 - i] = tv;
	}
	for (size_t i = 0; i < n; i++)
		lab[i] = labels[i];
	snprintf(unit, sizeof(unit), "%s %s", _("cost per run,"), d->run_cur[0] ? d->run_cur : "-");
	svg_hbars(f, _("Cost per run"), unit, lab, v, n);
	note_others(f, d, d->run_cur, false);
	if (!table)
		return;
	bar_table(f, _("run"), _("cost"), lab, v, n);
}

/* A summary's groups in currency cur as bars: cost, or GPU-hours. */
static void chart_summary(FILE *f, const struct ledger_summary *s, const char *cur, bool hours,
			  const char *title, const char *unit, const char *key_head, bool table, const struct data *d)
{
	char labels[MAX_BARS][LABEL_MAX + 4];
	const char *lab[MAX_BARS];
	double v[MAX_BARS];
	size_t n = 0;

	for (size_t i = 0; i < s->n && n < MAX_BARS; i++) {
		if (!hours && strcmp(s->v[i].currency, cur))
			continue;
		if (hours && !(s->v[i].gpu_hours > 0))
			continue;
		char b[LABEL_MAX + 4];
		snprintf(labels[n], sizeof(labels[0]), "%s", cut(s->v[i].key, b, sizeof(b)));
		v[n++] = hours ? s->v[i].gpu_hours : s->v[i].cost;
	}
	for (size_t i = 0; i < n; i++)
		lab[i] = labels[i];
	svg_hbars(f, title, unit, lab, v, n);
	if (!hours)
		note_others(f, d, cur, false);
	if (!table)
		return;
	bar_table(f, key_head, hours ? _("GPU-hours") : _("cost"), lab, v, n);
}

static void chart_findings(FILE *f, const struct data *d, bool table)
{
	char labels[MAX_BARS][LABEL_MAX + 4], unit[48], b[LABEL_MAX + 4];
	const char *lab[MAX_BARS];
	double v[MAX_BARS];
	size_t n = 0;

	for (size_t i = 0; d->have_audit && i < d->audit.nf && n < MAX_BARS; i++) {
		if (d->audit.f[i].code == AUDIT_BALANCE_RUNOUT)
			continue;   /* a date, not an amount */
		snprintf(labels[n], sizeof(labels[0]), "%s",
			 cut(billwords_title(d->audit.f[i].code), b, sizeof(b)));
		v[n++] = d->audit.f[i].amount;
	}
	for (size_t i = 0; i < n; i++)
		lab[i] = labels[i];
	snprintf(unit, sizeof(unit), "%s %s", _("at stake,"), d->bill_cur[0] ? d->bill_cur : "-");
	svg_hbars(f, _("Audit findings, largest first"), unit, lab, v, n);
	if (!table)
		return;
	fputs("</div>\n", f);   /* the chart's box ends; its table follows */
	{
		const char *head[] = {_("finding"), _("at stake"), _("what"), _("fix")};
		table_begin(f, head, 4, 2);
	}
	for (size_t i = 0; d->have_audit && i < d->audit.nf; i++) {
		char words[1024];
		fputs("<tr><td>", f);
		svg_escape(f, billwords_title(d->audit.f[i].code));
		fprintf(f, "</td><td class=\"n\">%.2f</td><td>", d->audit.f[i].amount);
		svg_escape(f, billwords_finding(&d->audit.f[i], d->bill_cur, words, sizeof(words)));
		fputs("</td><td>", f);
		svg_escape(f, billwords_fix(d->audit.f[i].code));
		fputs("</td></tr>\n", f);
	}
	table_end(f);
}

static void chart_plan(FILE *f, const struct data *d, bool table)
{
	size_t n = d->have_plan ? d->plan.n : 0;
	double *x = n ? calloc(n, sizeof(*x)) : NULL, *y = n ? calloc(n, sizeof(*y)) : NULL;
	bool *front = n ? calloc(n, sizeof(*front)) : NULL;

	if (n && (!x || !y || !front))
		n = 0;
	char ylab[48], thead[48];

	for (size_t i = 0; i < n; i++) {
		x[i] = d->plan.ranked[i].wall_s / 3600.0;
		y[i] = d->plan.ranked[i].cost.total / d->usd_per_unit;
		front[i] = d->plan.ranked[i].pareto;
	}
	snprintf(ylab, sizeof(ylab), _("total cost, %s"), d->cur);
	snprintf(thead, sizeof(thead), _("total, %s"), d->cur);
	svg_scatter(f, _("Total cost against finish time, every feasible offer"),
		    _("finish time (h)"), ylab, x, y, front, n);
	if (strcmp(d->cur, "USD")) {
		char note[1400];
		snprintf(note, sizeof(note), _("in %s: 1 USD = %.4g %s (%s)"), d->cur, 1 / d->usd_per_unit, d->cur,
			 d->rate_note);
		fputs("<p class=\"note\">", f);
		svg_escape(f, note);
		fputs("</p>\n", f);
	}
	free(x);
	free(y);
	free(front);
	if (!table)
		return;
	fputs("</div>\n", f);   /* the chart's box ends; its table follows */
	{
		const char *head[] = {_("offer (Pareto front)"), _("GPUs"), _("finish (h)"), thead};
		table_begin(f, head, 4, 14);
	}
	for (size_t i = 0; d->have_plan && i < d->plan.n; i++) {
		const struct plan_choice *c = &d->plan.ranked[i];
		char name[256];
		if (!c->pareto)
			continue;
		snprintf(name, sizeof(name), "%.*s %.*s %s", (int)c->offer->provider.len, c->offer->provider.p,
			 (int)c->offer->instance.len, c->offer->instance.p, plan_mode_name(c->mode));
		fputs("<tr><td>", f);
		svg_escape(f, name);
		fprintf(f, "</td><td class=\"n\">%g</td><td class=\"n\">%.2f</td><td class=\"n\">%.2f</td></tr>\n",
			c->gpus, c->wall_s / 3600.0, c->cost.total / d->usd_per_unit);
	}
	table_end(f);
}

/* The estimate's memory per GPU in GB, in the parts of its peak phase
 * (formulas.md "Peak by phase"); the parts sum to mem.total. */
#define MEM_PARTS 8
static void mem_parts(const struct est_mem *m, double v[MEM_PARTS])
{
	double listed;

	memset(v, 0, MEM_PARTS * sizeof(*v));
	v[0] = m->weights;
	v[3] = m->adapters + m->quant_consts;
	if (m->peak_phase != EST_PHASE_LOAD) {
		v[1] = m->gradients;
		v[2] = m->optimizer;
	}
	if (m->peak_phase == EST_PHASE_TRAIN) {
		v[4] = m->activations + m->logits;
		v[5] = m->kv_cache;
	}
	listed = v[0] + v[1] + v[2] + v[3] + v[4] + v[5];
	v[6] = m->allocated - listed > 0 ? m->allocated - listed : 0;   /* sharding, dequant ... */
	v[7] = m->total - m->allocated > 0 ? m->total - m->allocated : 0;  /* reserve + context */
	for (int j = 0; j < MEM_PARTS; j++)
		v[j] /= 1e9;
}

static void chart_memory(FILE *f, const struct data *d, bool table)
{
	const char *ser[MEM_PARTS] = {
		_("weights"), _("gradients"), _("optimizer states"), _("adapters, quantization"),
		_("activations, logits"), _("KV cache"), _("other peak terms"), _("allocator, CUDA context"),
	};
	double v[MEM_PARTS] = {0};

	if (d->have_est)
		mem_parts(&d->est.mem, v);
	svg_stack_marks(f, _("Memory per GPU by component, against the memory tiers"), _("GB per GPU"),
			ser, v, MEM_PARTS, est_tiers_gb, d->have_est ? EST_NTIERS : 0);
	if (!table)
		return;
	fputs("</div>\n", f);   /* the chart's box ends; its table follows */
	{
		const char *head[] = {_("component"), _("GB per GPU")};
		table_begin(f, head, 2, 2);
	}
	for (int j = 0; d->have_est && j < MEM_PARTS; j++) {
		fputs("<tr><td>", f);
		svg_escape(f, ser[j]);
		fprintf(f, "</td><td class=\"n\">%.2f</td></tr>\n", v[j]);
	}
	if (d->have_est) {
		fprintf(f, "<tr><td>%s</td><td class=\"n\">%.2f</td></tr>\n", _("total"),
			d->est.mem.total / 1e9);
		for (int k = 0; k < EST_NTIERS; k++)
			fprintf(f, "<tr><td>%g GB %s</td><td class=\"n\">%.0f%%</td></tr>\n",
				d->est.tiers[k].gb, d->est.tiers[k].fits ? _("tier: fits") : _("tier: does not fit"),
				100 * d->est.tiers[k].used);
	}
	table_end(f);
}

static void chart(FILE *f, enum chart c, const struct data *d, bool table)
{
	char unit[48];

	switch (c) {
	case CH_SPEND:
		chart_spend(f, d, table);
		break;
	case CH_RUNS:
		chart_runs(f, d, table);
		break;
	case CH_TAGS:
		snprintf(unit, sizeof(unit), "%s %s", _("cost per tag,"), d->run_cur[0] ? d->run_cur : "-");
		chart_summary(f, &d->tags, d->run_cur, false, _("Cost per tag"), unit, _("tag"), table, d);
		break;
	case CH_GPUS:
		chart_summary(f, &d->gpus, d->run_cur, true, _("GPU-hours by GPU"), _("GPU-hours (h)"),
			      _("GPU"), table, d);
		break;
	case CH_PLAN:
		chart_plan(f, d, table);
		break;
	case CH_MEMORY:
		chart_memory(f, d, table);
		break;
	default:
		chart_findings(f, d, table);
	}
}

static const char css[] =
	"*{box-sizing:border-box}"
	"html{overflow-x:hidden}"
	"body{font-family:system-ui,\"PingFang SC\",\"Microsoft YaHei\",\"Noto Sans CJK SC\","
	"\"WenQuanYi Micro Hei\",sans-serif;margin:0 auto;padding:12px;max-width:1400px;color:#111;"
	"background:#fff;overflow-wrap:break-word}"
	"h1{font-size:1.4em}h2{font-size:1.1em;margin:0 0 6px}"
	"section{display:flex;flex-wrap:wrap;gap:16px;margin:0 0 28px;break-inside:avoid}"
	".c{flex:1 1 480px;min-width:0}.c svg{width:100%;height:auto;display:block}"
	".t{flex:1 1 320px;min-width:0;overflow-x:auto}.note{font-size:13px;margin:4px 0 0;color:#444}"
	"tr.sum td{font-weight:600;border-top:1px solid #999}"
	"table{border-collapse:collapse;font-size:13px;width:100%}"
	"th,td{border-bottom:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top}"
	".n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}.k{white-space:nowrap}"
	"@media print{body{max-width:none}section{break-inside:avoid}}";

static int write_report(FILE *f, const struct data *d, const char *ledger)
{
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	static const char *const titles[CH_N] = {
		N_("Spend by week and kind"), N_("Cost per run"), N_("Cost per tag"),
		N_("GPU-hours by GPU"), N_("Audit findings"), N_("The plan: cost against finish time"),
		N_("The estimate: memory per GPU"),
	};

	if (!gmtime_r(&now, &tm) || !strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm))
		snprintf(when, sizeof(when), "-");
	/* TRANSLATORS: the page's HTML lang attribute (BCP 47): zh-CN */
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"%s\"><head><meta charset=\"utf-8\">"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
		"<title>%s</title><style>%s</style></head><body>\n", _("en"), _("gpurent report"), css);
	fprintf(f, "<h1>%s</h1><p>", _("gpurent report"));
	svg_escape(f, ledger);
	fprintf(f, " &middot; %s &middot; %zu %s &middot; %zu %s</p>\n", when, d->es.n, _("runs"),
		d->bill.n, _("bill lines"));
	for (int c = 0; c < CH_N; c++) {
		if ((c == CH_PLAN && !d->have_plan) || (c == CH_MEMORY && !d->have_est))
			continue;
		fprintf(f, "<h2 id=\"%s\">%s</h2><section><div class=\"c\" id=\"chart-%s\">\n",
			chart_names[c], _(titles[c]), chart_names[c]);
		chart(f, (enum chart)c, d, true);
		fputs("</section>\n", f);
	}
	fputs("</body></html>\n", f);
	return ferror(f) ? -1 : 0;
}

static int load(struct ledger *l, struct data *d, char *err, size_t errlen)
{
	struct audit_run *runs = NULL;

	if (ledger_list(l, LEDGER_OLDEST_FIRST, 0, &d->es, err, errlen) ||
	    ledger_summarize(&d->es, LEDGER_BY_TAG, &d->tags, err, errlen) ||
	    ledger_summarize(&d->es, LEDGER_BY_GPU, &d->gpus, err, errlen) ||
	    ledger_bill_list(l, &d->bill, err, errlen))
		return -1;
	/* the runs' chart in the reader's currency when a run has it, else the first's */
	for (size_t i = 0; i < d->es.n && !d->run_cur[0]; i++)
		if (d->es.v[i].run.currency && ledger_known(d->es.v[i].run.cost) && !strcmp(d->es.v[i].run.currency, d->cur))
			snprintf(d->run_cur, sizeof(d->run_cur), "%s", d->es.v[i].run.currency);
	for (size_t i = 0; i < d->es.n && !d->run_cur[0]; i++)
		if (d->es.v[i].run.currency && ledger_known(d->es.v[i].run.cost))
			snprintf(d->run_cur, sizeof(d->run_cur), "%s", d->es.v[i].run.currency);
	if (d->bill.n) {
		struct audit_opts ao = {.from = NAN, .to = NAN, .budget = NAN};
		snprintf(d->bill_cur, sizeof(d->bill_cur), "%s", d->bill.v[0].currency);
		ao.currency = d->bill_cur;
		if (d->es.n && !(runs = calloc(d->es.n, sizeof(*runs)))) {
			snprintf(err, errlen, "%s", _("out of memory"));
			return -1;
		}
		for (size_t i = 0; i < d->es.n; i++) {
			const struct ledger_run *r = &d->es.v[i].run;
			runs[i].id = d->es.v[i].id;
			runs[i].start = r->start;
			runs[i].end = r->end;
			runs[i].cost = r->cost;
			snprintf(runs[i].currency, sizeof(runs[i].currency), "%s", r->currency ? r->currency : "");
			snprintf(runs[i].host, sizeof(runs[i].host), "%s", r->host ? r->host : "");
			snprintf(runs[i].gpu, sizeof(runs[i].gpu), "%s", r->gpu_type ? r->gpu_type : "");
		}
		if (audit_bill(d->bill.v, d->bill.n, runs, d->es.n, &ao, &d->audit, err, errlen)) {
			free(runs);
			return -1;
		}
		d->have_audit = true;
		free(runs);
	}
	return 0;
}

static void data_free(struct data *d)
{
	ledger_entries_free(&d->es);
	ledger_summary_free(&d->tags);
	ledger_summary_free(&d->gpus);
	bill_free(&d->bill);
	audit_result_free(&d->audit);
	if (d->have_plan)
		plan_result_free(&d->plan);
}

/* The workload's plan on the default catalog and its estimate, as plan and
 * estimate compute them (plan_setup.h). c, mdb and ps stay alive while
 * d->plan is used. 0, or the exit code (message printed). */
static int load_workload(struct workload *w, const char *file, struct offers_ctx *c,
			 struct model_db *mdb, struct plan_setup *ps, struct data *d)
{
	struct workload wd = *w;
	struct model_spec arch;
	const struct gpu_spec *gpu;
	struct plan_opts po;
	char err[512];
	int bad, rc;

	if (workload_resolve(&wd, mdb, &c->gdb, &arch, &gpu, &bad, err, sizeof(err)))
		return wlargs_field_error(file, &wd, bad, err);
	if (estimate_run(&wd, &arch, gpu, &d->est, err, sizeof(err))) {
		return wlargs_field_error(file, &wd, d->est.bad_field, err);
	}
	d->have_est = true;
	/* a service, or a job without its size, has no plan to draw */
	if (workload_is_set(&wd, "serve") ||
	    (!workload_is_set(&wd, "tokens") && !workload_is_set(&wd, "samples")))
		return 0;
	plan_opts_default(&po);
	po.top = 1000;   /* every feasible offer (plan --top's bound) */
	if ((rc = plan_setup_load(ps, c, NULL, 0, &po)))
		return rc;
	if ((rc = plan_setup_run(c, file, &wd, &arch, gpu, &po, &d->plan)))
		return rc;
	d->have_plan = true;
	return 0;
}

/* The reader's currency into d (c: the offers' currency table, NULL when
 * no plan is drawn). 0, or the exit code (message printed). */
static int report_currency(const struct offers_ctx *c, const char *code, struct data *d)
{
	const struct currency *cu;

	snprintf(d->cur, sizeof(d->cur), "%s", code && *code ? code : "USD");
	d->usd_per_unit = 1;
	if (!c)
		return 0;
	if (!(cu = currency_find(&c->currencies, d->cur)) || !(cu->usd > 0))
		return msg_usage(_("--currency: unknown currency '%s' (see data/currencies.csv, or --rate %s=N)"),
				 d->cur, d->cur);
	snprintf(d->cur, sizeof(d->cur), "%s", cu->code);
	d->usd_per_unit = cu->usd;
	offers_rate_note(cu, d->rate_note, sizeof(d->rate_note));
	return 0;
}

int cmd_report(int argc, char **argv)
{
	const char *path = NULL, *out = NULL, *file = NULL, *currency = NULL;
	struct workload w;
	struct data d;
	struct ledger *l = NULL;
	struct offers_ctx oc_offers;
	struct model_db mdb;
	struct plan_setup ps = {0};
	bool svg_seen = false, have_wl = false, have_offers = false, have_mdb = false;
	char err[1024];
	int svg_i = 0, rc;
	FILE *f;
	const struct opt opts[] = {
		OPT_STR("currency", &currency, "CODE", N_("the plan's money in this currency (RMB and ¥ are CNY)")),
		{.name = "ledger", .type = OPT_FILE, .dest = &path, .arg = "PATH",
		 .help = N_("the ledger database"), .example = "/dev/null"},
		/* the example writes nowhere: tests/cli/options.sh runs it in the tree */
		{.name = "out", .type = OPT_FILE, .dest = &out, .arg = "FILE",
		 .help = N_("where to write the page (or the chart)"), .example = "/dev/null"},
		{.name = "svg", .type = OPT_CHOICE, .dest = &svg_i, .choices = chart_names,
		 .arg = "CHART", .help = N_("one chart as SVG: spend, runs, tags, gpus, findings, plan, memory"),
		 .seen = &svg_seen},
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = "report", .max_operands = -1, .usage_fn = print_usage};

	memset(&d, 0, sizeof(d));
	workload_init(&w);
	if ((rc = wlargs_parse(&oc, opts, argc, argv, &w, &file, NULL)) != OPT_GO)
		return rc;
	if (path && !*path)
		return msg_usage(_("--ledger: expected a file path, got ''"));
	if (out && !*out)
		return msg_usage(_("--out: expected a file path, got ''"));
	have_wl = file != NULL;
	for (size_t i = 0; i < sizeof(w.set) / sizeof(w.set[0]); i++)
		have_wl = have_wl || w.set[i];
	if (svg_seen && (svg_i == CH_PLAN || svg_i == CH_MEMORY) && !have_wl)
		return msg_usage(_("--svg %s: expected a workload (a YAML file or --model ...)"),
				 chart_names[svg_i]);
	if (have_wl) {
		if ((rc = offers_init(&oc_offers, "report")))
			return rc;
		have_offers = true;
		if (common_load_data(NULL, &mdb)) {
			rc = EXIT_RUNTIME;
			goto out_free;
		}
		have_mdb = true;
		if ((rc = load_workload(&w, file, &oc_offers, &mdb, &ps, &d)))
			goto out_free;
	}
	if ((rc = report_currency(have_offers ? &oc_offers : NULL, currency, &d)))
		goto out_free;
	if (ledger_open(path, &l, err, sizeof(err))) {
		rc = msg_fail("%s", err);
		goto out_free;
	}
	rc = EXIT_RUNTIME;
	if (load(l, &d, err, sizeof(err))) {
		msg_error("%s", err);
		goto out_free;
	}
	if (!out && !svg_seen)
		out = "report.html";
	if (!out) {
		f = stdout;
	} else if (!(f = fopen(out, "w"))) {
		msg_error(_("%s: cannot write: %s"), out, strerror(errno));
		goto out_free;
	}
	if (svg_seen)
		chart(f, (enum chart)svg_i, &d, false);
	else
		write_report(f, &d, ledger_path(l));
	if (f != stdout) {
		if (ferror(f) | fclose(f)) {
			msg_error(_("%s: write failed"), out);
			goto out_free;
		}
		if (!svg_seen)
			printf(_("wrote %s\n"), out);
	}
	rc = msg_finish(EXIT_OK);
out_free:
	data_free(&d);
	ledger_close(l);
	plan_setup_free(&ps);
	if (have_mdb)
		model_db_free(&mdb);
	if (have_offers)
		offers_free(&oc_offers);
	return rc;
}
