/*
 * cmd_ledger_import.c - `gpurent ledger add` and `ledger import --csv`: the
 * runs written into the ledger by hand, or from a file 'ledger export --csv' wrote.
 */
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/model/gpu.h"
#include "core/books/ledger_import.h"
#include "store/ledger.h"
#include "kit/cmd.h"
#include "kit/common.h"
#include "kit/ledgeropt.h"
#include "kit/opt.h"
#include "base/util.h"
#include "cmd/books/cmd_ledger_int.h"

/* ---- ledger add ---- */

struct add_opts {
	const char *currency, *start, *end, *gpu, *billing, *host, *command, *notes, *problems;
	const char *cost_s, *price_s;   /* as written */
	struct opt_money cost, price;
	struct opt_list tags;
	double duration;
	long gpus;
	bool have_cost, have_price, have_duration, have_gpus;
	char tag_buf[1024];
};

/* --cost and --price: the amount, and the text as written for messages. */
static int add_money(const struct opt *op, const char *v, void *ctx, char *err, size_t n)
{
	struct add_opts *o = ctx;
	struct opt plain = *op;
	bool is_cost = !strcmp(op->name, "cost");

	plain.cb = NULL;
	plain.dest = is_cost ? &o->cost : &o->price;
	*(is_cost ? &o->cost_s : &o->price_s) = v;
	return opt_value(&plain, v, ctx, err, n);
}

static int add_parse(int argc, char **argv, const char **ledger_path, struct add_opts *o)
{
	const struct opt opts[] = {
		LEDGER_OPT(ledger_path),
		{.name = "cost", .type = OPT_MONEY, .cb = add_money, .arg = "MONEY",
		 .help = N_("what the run cost"), .example = "12.5CNY", .seen = &o->have_cost},
		{.name = "price", .type = OPT_MONEY, .cb = add_money, .arg = "MONEY",
		 .help = N_("price per hour of the whole rental"), .example = "1.88CNY",
		 .seen = &o->have_price},
		{.name = "currency", .type = OPT_STRING, .dest = &o->currency, .arg = "CODE",
		 .help = N_("the currency of --cost and --price"), .example = "USD"},
		{.name = "duration", .type = OPT_DURATION, .dest = &o->duration, .arg = "DUR",
		 .help = N_("how long the run took"), .seen = &o->have_duration},
		{.name = "start", .type = OPT_STRING, .dest = &o->start, .arg = "TIME",
		 .help = N_("when the run started"), .example = "2024-03-05T14:00"},
		{.name = "end", .type = OPT_STRING, .dest = &o->end, .arg = "TIME",
		 .help = N_("when the run ended"), .example = "2024-03-05T18:00"},
		{.name = "gpu", .type = OPT_STRING, .dest = &o->gpu, .arg = "NAME",
		 .help = N_("the GPU (a name from data/gpus.csv is normalised)"), .example = "RTX4090"},
		{.name = "gpus", .type = OPT_INT, .dest = &o->gpus, .arg = "N", .min = 0, .max = 1000000,
		 .help = N_("how many GPUs"), .seen = &o->have_gpus},
		{.name = "billing", .type = OPT_STRING, .dest = &o->billing, .arg = "MODE",
		 .help = N_("the billing mode"), .example = "per-second"},
		OPT_STR("host", &o->host, "NAME", N_("the host")),
		OPT_STR("command", &o->command, "CMD", N_("the command that ran")),
		OPT_MANY("tag", &o->tags, "TAG", N_("a tag (repeatable)")),
		OPT_STR("notes", &o->notes, "TEXT", N_("notes")),
		OPT_STR("problems", &o->problems, "TEXT", N_("what went wrong")),
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = "ledger add", .usage = ledger_usage, .flags = 0,
				   .min_operands = 0, .max_operands = 0, .operands = NULL};
	int rc;

	if ((rc = opt_parse(&oc, opts, argc, argv, o, NULL)) != OPT_GO)
		return rc;
	for (size_t i = 0; i < o->tags.n; i++) {
		const char *v = o->tags.v[i];
		size_t used = strlen(o->tag_buf);
		if (!*v || used + strlen(v) + 2 > sizeof(o->tag_buf))
			return msg_usage(_("--tag: expected a short non-empty tag"));
		snprintf(o->tag_buf + used, sizeof(o->tag_buf) - used, "%s%s", used ? "," : "", v);
	}
	return OPT_GO;
}

int ledger_add_cmd(int argc, char **argv)
{
	struct add_opts o;
	const char *path = NULL;
	struct ledger_run r;
	struct ledger *l = NULL;
	struct gpu_db gdb;
	bool have_gdb = false;
	char err[1024], cost_code[8] = "", price_code[8] = "", currency[8] = "", a[32], b[32];
	double cost = NAN, price = NAN, dur = NAN, start = NAN, end = NAN, now;
	long gpus = -1;
	int64_t id;
	int rc;

	memset(&o, 0, sizeof(o));
	rc = add_parse(argc, argv, &path, &o);
	opt_list_free(&o.tags);
	if (rc != OPT_GO)
		return rc;
	if (!o.have_cost && !o.have_price)
		return msg_usage(_("--cost: expected what the run cost (or --price per hour "
				   "with --duration)"));
	/* code stays "" when the amount named no currency */
	if (o.have_cost) {
		cost = o.cost.amount;
		if (o.cost.has_code)
			snprintf(cost_code, sizeof(cost_code), "%s", o.cost.code);
	}
	if (o.have_price) {
		price = o.price.amount;
		if (o.price.has_code)
			snprintf(price_code, sizeof(price_code), "%s", o.price.code);
	}
	if (o.currency) {
		size_t n = strlen(o.currency);
		if (n < 3 || n > 7 || strspn(o.currency, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					     "abcdefghijklmnopqrstuvwxyz") != n)
			return msg_usage(_("--currency: expected a currency code such as USD "
					   "or CNY, got '%s'"), o.currency);
		for (size_t i = 0; i < n; i++)
			currency[i] = (char)toupper((unsigned char)o.currency[i]);
		currency[n] = '\0';
	}
	if (cost_code[0] && currency[0] && strcmp(cost_code, currency))
		return msg_usage(_("--cost: in %s but --currency is %s; a run has one currency"),
				 cost_code, currency);
	if (price_code[0] && (currency[0] || cost_code[0]) &&
	    strcmp(price_code, currency[0] ? currency : cost_code))
		return msg_usage(_("--price: in %s but the cost is in %s; a run has one "
				   "currency"), price_code, currency[0] ? currency : cost_code);
	if (!currency[0])
		snprintf(currency, sizeof(currency), "%s", cost_code[0] ? cost_code : price_code);
	if (!currency[0])
		return msg_usage(_("%s: expected an amount with its currency (12.5CNY, "
				   "$3) or --currency CODE, got '%s'"), o.have_cost ? "--cost" : "--price",
				 o.have_cost ? o.cost_s : o.price_s);
	if (o.have_duration)
		dur = o.duration;
	if (o.start && ledger_time_parse(o.start, &start))
		return msg_usage(_("--start: expected unix seconds or ISO 8601 "
				   "(2024-03-05T14:00, optionally Z or +08:00), got '%s'"), o.start);
	if (o.end && ledger_time_parse(o.end, &end))
		return msg_usage(_("--end: expected unix seconds or ISO 8601 "
				   "(2024-03-05T18:00, optionally Z or +08:00), got '%s'"), o.end);
	if (o.have_gpus)
		gpus = o.gpus;
	if (o.end && o.have_duration)
		return msg_usage(_("--end: give --end or --duration, not both"));
	if (o.end && !o.start)
		return msg_usage(_("--end: needs --start"));
	now = (double)time(NULL);
	if (isnan(start))
		start = isfinite(dur) ? now - dur : now;
	if (isfinite(dur))
		end = start + dur;
	if (isfinite(end) && end < start)
		return msg_usage(_("--end: expected a time after --start"));
	if (isnan(cost) && isfinite(price) && isfinite(end))
		cost = price * (end - start) / 3600.0;
	else if (isnan(cost))
		return msg_usage(_("--cost: expected what the run cost (--price alone needs "
				   "--duration or --end to compute it)"));

	ledger_run_init(&r);
	r.kind = "manual";
	r.start = start;
	r.end = end;
	r.cost = cost;
	r.price_per_hour = price;
	r.currency = currency;
	r.billing_mode = o.billing;
	r.host = o.host;
	r.command = o.command;
	r.notes = o.notes;
	r.problems = o.problems;
	r.tags = o.tag_buf[0] ? o.tag_buf : NULL;
	r.gpu_count = (int)gpus;
	if (o.gpu) {
		/* The short name from data/gpus.csv ("4090" -> RTX4090) so summaries
		 * group one card under one name; unknown cards are kept as written. */
		const char *s;
		if (!common_load_data(&gdb, NULL))
			have_gdb = true;
		r.gpu_type = (s = ledger_gpu_short(have_gdb ? &gdb : NULL, o.gpu)) ? s : o.gpu;
		if (r.gpu_count < 0)
			r.gpu_count = 1;
	}
	if ((rc = ledgeropt_open(path, &l)))
		goto out_free_gdb;
	rc = ledger_add(l, &r, &id, err, sizeof(err));
	if (rc == LEDGER_INVALID) {
		rc = msg_usage("%s", err);
		goto out_close;
	} else if (rc) {
		rc = msg_fail("%s", err);
		goto out_close;
	}
	printf(_("run %lld recorded: %s %s"), (long long)id, ledger_fmt_money(cost, a, sizeof(a)), currency);
	if (isfinite(end))
		printf(_(", %.2f h"), (end - start) / 3600.0);
	if (!o.have_cost)
		printf(_(" (%s %s/h x duration)"), ledger_fmt_money(price, b, sizeof(b)), currency);
	printf(_(", in %s\n"), ledger_path(l));
	rc = msg_finish(EXIT_OK);
out_close:
	ledger_close(l);
out_free_gdb:
	if (have_gdb)
		gpu_db_free(&gdb);
	return rc;
}

/* ---- ledger import --csv ---- */

/* The file is read and every row checked (src/core/books/ledger_import.c), then
 * stored in one transaction (ledger_import_runs()): all or nothing. */
int ledger_import_cmd(int argc, char **argv)
{
	const char *path = NULL;
	struct ledger_import im;
	struct ledger *l = NULL;
	bool csv_flag = false;
	size_t added = 0, known = 0, bad;
	char *buf = NULL, err[1024];
	size_t len;
	int nops, rc;
	const struct opt opts[] = {
		OPT_BOOL("csv", &csv_flag, N_("the file is CSV as 'ledger export --csv' writes it")),
		LEDGER_OPT(&path),
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = "ledger import", .usage = ledger_usage, .flags = 0,
				   .min_operands = 1, .max_operands = 1, .operands = "FILE"};

	if ((rc = opt_parse(&oc, opts, argc, argv, NULL, &nops)) != OPT_GO)
		return rc;
	if (!csv_flag)
		return msg_usage(_("expected --csv (the format 'ledger export --csv' writes)"));
	if (common_read_file(argv[0], &buf, &len, err, sizeof(err)))
		return msg_fail("%s", err);
	rc = ledger_import_parse(buf, len, argv[0], &im, err, sizeof(err));
	free(buf);
	if (rc)
		return msg_usage("%s", err);
	if ((rc = ledgeropt_open(path, &l)))
		goto out_free;
	if ((rc = ledger_import_runs(l, im.runs, im.n, &added, &known, &bad, err, sizeof(err)))) {
		if (bad < im.n)
			msg_error("%s:%zu: %s", argv[0], im.lines[bad], err);
		else
			msg_error("%s", err);
		rc = rc == LEDGER_INVALID ? EXIT_USAGE : EXIT_RUNTIME;
		goto out_free;
	}
	printf(_("%s: %zu runs, %zu new, %zu already in the ledger\n"), argv[0], im.n, added, known);
	rc = msg_finish(EXIT_OK);
out_free:
	ledger_close(l);
	ledger_import_free(&im);
	return rc;
}

