/*
 * test_evidence.c - issue 12 item 4: estimate every row of the published
 * measurements in tests/data/evidence.csv (each cited by its source column)
 * and print the error of each, then the median and worst error per
 * category. It asserts what must hold now - every row parses, its workload
 * resolves, it names a source, its category and metric are known - and not
 * the accuracy targets (the next issue's work): the printed medians are
 * written into docs/accuracy.md. Needs nothing outside the repository.
 * Issue 30: rows of newer sources carry a `split` (fit / held, fixed before
 * they were estimated); the held rows' medians are printed per category
 * and pooled, with a NOT MET line per issue 30 target they miss (printed,
 * not asserted); issue 12's asserted targets stay on the rows without a
 * split, the set they were set on.
 */
#include "testutil.h"

#include "core/text/csv.h"

static const char *const categories[] = {
	"full", "lora", "qlora", "sharded", "inference", "kv_cache", "decode_speed", "train_speed",
};
#define NCAT (sizeof(categories) / sizeof(categories[0]))
#define MAXROWS 1024

/* The workload fields of a row: CSV column and flag. */
static const struct {
	const char *col, *flag;
} fieldcols[] = {
	{"model", "model"},           {"task", "task"},
	{"precision", "precision"},   {"micro_batch", "micro-batch"},
	{"seq", "seq"},               {"gpus", "gpus"},
	{"zero", "zero"},             {"quant_bits", "quant-bits"},
	{"kv_dtype", "kv-dtype"},     {"context", "context"},
	{"concurrency", "concurrency"}, {"gpu", "gpu"},
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static bool is_speed_cat(const char *c)
{
	return !strcmp(c, "decode_speed") || !strcmp(c, "train_speed");
}

/* The median of the n values of a (sorted here). */
static double median_of(double *a, size_t n)
{
	qsort(a, n, sizeof(a[0]), cmp_double);
	return n % 2 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
}

static int category_index(const char *c)
{
	for (size_t i = 0; i < NCAT; i++)
		if (!strcmp(categories[i], c))
			return (int)i;
	return -1;
}

/* Bytes for a memory unit, tokens/s for a speed unit; 0 when unknown. */
static double unit_scale(const char *unit, bool speed)
{
	if (speed)  /* img/s: a vision model's images (samples) a second on one GPU */
		return !strcmp(unit, "tok/s") || !strcmp(unit, "tok/s/gpu") || !strcmp(unit, "img/s") ? 1 : 0;
	if (!strcmp(unit, "GiB"))
		return 1073741824.0;
	if (!strcmp(unit, "MiB"))
		return 1048576.0;
	if (!strcmp(unit, "GB"))
		return 1e9;
	return 0;
}

/* A URL or repo@commit:path. */
static bool has_source(const char *s)
{
	const char *at = strchr(s, '@');

	if (!strncmp(s, "https://", 8) && strlen(s) > 12)
		return true;
	return at && at > s && strchr(at, ':') && strchr(s, '/') && strlen(strchr(at, ':')) > 1;
}

/* A row's source group: its id without the trailing -NN ("lf-a100-80"). */
struct group {
	char name[32];
	size_t ci, n;
	double err[MAXROWS];
};
#define MAXGROUPS 64

static void group_add(struct group *g, size_t *ng, const char *id, size_t ci, double rel)
{
	char name[32];
	const char *dash = strrchr(id, '-');
	size_t len = dash && dash > id ? (size_t)(dash - id) : strlen(id);
	size_t i;

	snprintf(name, sizeof(name), "%.*s", (int)(len < sizeof(name) ? len : sizeof(name) - 1), id);
	for (i = 0; i < *ng; i++)
		if (g[i].ci == ci && !strcmp(g[i].name, name))
			break;
	if (i == *ng) {
		assert_true(*ng < MAXGROUPS);
		snprintf(g[i].name, sizeof(g[i].name), "%s", name);
		g[i].ci = ci;
		g[i].n = 0;
		(*ng)++;
	}
	assert_true(g[i].n < MAXROWS);
	g[i].err[g[i].n++] = rel;
}

/* The columns the test reads. */
struct cols {
	int field[ARRAY_SIZE(fieldcols)];
	int id, cat, fw, gc, extra, metric, meas, unit, src, fit, run, excl, split;
};

/* One row, estimated: what the summary needs. */
struct result {
	const char *id, *cat, *fw, *metric, *run;
	int ci;
	bool speed, fit;
	bool held;           /* split "held": collected for issue 30 and never fitted to */
	double m, est, rel;
	const char *why;     /* excluded (docs/accuracy.md "Rows excluded"); NULL: counted */
	const char *hand;    /* excluded by hand: the evidence (the excluded column); NULL: not */
};

/* Estimate row r of c into *o; fails the test on a row that cannot be read. */
static void evaluate(const struct csv *c, const struct csv_row *r, const struct cols *k, size_t i,
		     struct result *o)
{
	const char *id = csv_get(r, k->id), *cat = csv_get(r, k->cat), *metric = csv_get(r, k->metric);
	const char *gc = csv_get(r, k->gc), *extra = csv_get(r, k->extra);
	int ci = category_index(cat);
	bool speed = ci >= 0 && is_speed_cat(cat);
	struct workload w;
	struct model_spec arch;
	struct estimate e;
	double m, scale, est = 0;
	char *end, err[512], args[1024];
	size_t off = 0;

	if (!*id)
		fail_msg("tests/data/evidence.csv row %zu: empty id", i + 1);
	for (size_t j = 0; j < i; j++)
		if (!strcmp(csv_get(&c->rows[j], k->id), id))
			fail_msg("%s: id used twice", id);
	if (ci < 0)
		fail_msg("%s: category %s is not one of full, lora, qlora, sharded, inference, "
			 "kv_cache, decode_speed, train_speed", id, cat);
	if (!*csv_get(r, k->fw))
		fail_msg("%s: no framework", id);
	if (!has_source(csv_get(r, k->src)))
		fail_msg("%s: source %s is neither a URL nor repo@commit:path", id, csv_get(r, k->src));
	/* the metric must be one the category measures */
	if (speed ? strcmp(metric, "tokens_per_second")
		  : !strcmp(cat, "kv_cache") ? strcmp(metric, "kv_cache")
		  : strcmp(metric, "peak_allocated") && strcmp(metric, "peak_reserved") &&
		    strcmp(metric, "nvidia_smi"))
		fail_msg("%s: metric %s does not fit category %s", id, metric, cat);
	scale = unit_scale(csv_get(r, k->unit), speed);
	if (scale <= 0)
		fail_msg("%s: unit %s is not known for %s", id, csv_get(r, k->unit), cat);
	m = strtod(csv_get(r, k->meas), &end);
	if (end == csv_get(r, k->meas) || *end || !(m > 0) || !isfinite(m))
		fail_msg("%s: measured %s is not a positive number", id, csv_get(r, k->meas));
	m *= scale;

	/* the row as workload flags */
	for (size_t f = 0; f < ARRAY_SIZE(fieldcols); f++) {
		const char *v = csv_get(r, k->field[f]);
		if (*v)
			off += (size_t)snprintf(args + off, sizeof(args) - off, "--%s %s ", fieldcols[f].flag, v);
	}
	if (!strcmp(gc, "true"))
		off += (size_t)snprintf(args + off, sizeof(args) - off, "--grad-checkpointing ");
	else if (!strcmp(gc, "false"))
		/* said off: not the framework's default */
		off += (size_t)snprintf(args + off, sizeof(args) - off, "--no-grad-checkpointing ");
	else if (*gc)
		fail_msg("%s: grad_checkpointing %s is not true or false", id, gc);
	if (*extra)
		off += (size_t)snprintf(args + off, sizeof(args) - off, "%s ", extra);
	/* a time needs an amount of work; the rate does not depend on it */
	if (speed && !strstr(extra, "--tokens") && !strstr(extra, "--samples"))
		off += (size_t)snprintf(args + off, sizeof(args) - off, "--tokens 100000000");
	assert_true(off < sizeof(args));
	if (tu_estimate_args(args, &w, &arch, &e, err, sizeof(err)))
		fail_msg("%s: %s (%s)", id, err, args);

	if (!strcmp(metric, "peak_allocated"))
		est = e.mem.allocated;
	else if (!strcmp(metric, "peak_reserved"))
		est = e.mem.allocated + e.mem.allocator;
	else if (!strcmp(metric, "nvidia_smi"))
		est = e.mem.total;
	else if (!strcmp(metric, "kv_cache"))
		est = e.mem.kv_cache;
	else if (!strcmp(cat, "decode_speed"))
		est = e.decode_tokens_per_second;
	else if (e.wall_seconds > 0)  /* train: tokens/s per GPU, communication included */
		est = e.work / e.wall_seconds / (double)w.gpus;
	if (!(est > 0) || !isfinite(est))
		fail_msg("%s: no estimate of %s (%s)", id, metric, args);
	if (!strcmp(csv_get(r, k->unit), "img/s") && !e.work_is_samples)
		fail_msg("%s: unit img/s for a model whose work is tokens", id);
	if (*csv_get(r, k->split) && strcmp(csv_get(r, k->split), "fit") && strcmp(csv_get(r, k->split), "held"))
		fail_msg("%s: split %s is not fit or held", id, csv_get(r, k->split));
	if (!strcmp(csv_get(r, k->split), "held") && !strcmp(csv_get(r, k->fit), "fit"))
		fail_msg("%s: a held-out row cannot be fitted to", id);
	*o = (struct result){.id = id, .cat = cat, .fw = csv_get(r, k->fw), .metric = metric,
			     .run = csv_get(r, k->run), .ci = ci, .speed = speed,
			     .fit = !strcmp(csv_get(r, k->fit), "fit"), .m = m, .est = est,
			     .held = !strcmp(csv_get(r, k->split), "held"),
			     .rel = (est - m) / m};
	/*
	 * A row its own settings cannot produce is excluded from the
	 * medians (docs/accuracy.md "Rows excluded"), listed with why:
	 * a peak below the model states those settings must hold (the
	 * weights, gradients and optimizer states, before any activation:
	 * a paged optimizer spilled to the host, or a mislabelled row), or
	 * a speed above the datasheet peak (FLOPs a token x tokens/s over
	 * the GPUs' dense peak at the row's precision).
	 */
	{
		double states = e.mem.weights + e.mem.gradients + e.mem.optimizer + e.mem.adapters +
				e.mem.quant_consts;
		if ((!strcmp(metric, "peak_allocated") || !strcmp(metric, "peak_reserved") ||
		     !strcmp(metric, "nvidia_smi")) &&
		    w.task != TASK_INFER && m < states)
			o->why = "below its own model states";
		else if (!strcmp(cat, "train_speed") && e.peak_flops > 0 &&
			 m * e.flops_per_unit /
			 (e.work_is_samples && strcmp(csv_get(r, k->unit), "img/s") ? (double)w.seq : 1) > e.peak_flops)
			o->why = "above the datasheet peak";
	}
	/* by hand: the row's own source contradicts its stated settings; the
	 * column holds the evidence (a sentence, not a word) */
	if (*csv_get(r, k->excl)) {
		if (strlen(csv_get(r, k->excl)) < 80)
			fail_msg("%s: excluded gives no evidence (%s)", id, csv_get(r, k->excl));
		if (o->why)
			fail_msg("%s: excluded by hand and by rule (%s): keep one", id, o->why);
		o->why = "its source contradicts its stated settings";
		o->hand = csv_get(r, k->excl);
	}
}

static void test_published_evidence(void **s)
{
	static struct group groups[MAXGROUPS];
	static struct result res[MAXROWS];
	size_t ngroups = 0;
	char err[512];
	size_t len = 0, nrows = 0, ncat_seen = 0, nhand = 0, nmiss = 0;
	char miss[4 * NCAT][96];
	char *buf;
	struct csv c;
	struct cols cl;
	double errs[NCAT][MAXROWS];
	size_t nerr[NCAT] = {0}, nexcl[NCAT] = {0}, nunder[NCAT] = {0}, nheld[NCAT] = {0};
	double held[NCAT][MAXROWS];
	/* issue 12's targets hold on the rows they were set on (split empty);
	 * issue 30's are judged on the held-out half of the newer sources */
	static double old[NCAT][MAXROWS], out[NCAT][MAXROWS], pool[2][MAXROWS];
	size_t nold[NCAT] = {0}, nunder_old[NCAT] = {0}, nout[NCAT] = {0}, nunder_out[NCAT] = {0};
	size_t npool[2] = {0}, nunder_pool = 0;
	double worst_out[NCAT] = {0};

	(void)s;
	buf = tu_read("tests/data/evidence.csv", &len);
	assert_non_null(buf);
	if (csv_parse(buf, len, &c, err, sizeof(err)))
		fail_msg("tests/data/evidence.csv: %s", err);
	cl.id = csv_col(&c, "id");
	cl.cat = csv_col(&c, "category");
	cl.fw = csv_col(&c, "framework");
	cl.gc = csv_col(&c, "grad_checkpointing");
	cl.extra = csv_col(&c, "extra");
	cl.metric = csv_col(&c, "metric");
	cl.meas = csv_col(&c, "measured");
	cl.unit = csv_col(&c, "unit");
	cl.src = csv_col(&c, "source");
	cl.fit = csv_col(&c, "fit");
	cl.run = csv_col(&c, "run");
	cl.excl = csv_col(&c, "excluded");
	cl.split = csv_col(&c, "split");
	assert_true(cl.split >= 0);
	assert_true(cl.fit >= 0 && cl.run >= 0 && cl.excl >= 0);
	assert_true(cl.id >= 0 && cl.cat >= 0 && cl.fw >= 0 && cl.gc >= 0 && cl.extra >= 0 && cl.metric >= 0 &&
		    cl.meas >= 0 && cl.unit >= 0 && cl.src >= 0 && csv_col(&c, "notes") >= 0);
	for (size_t f = 0; f < ARRAY_SIZE(fieldcols); f++) {
		cl.field[f] = csv_col(&c, fieldcols[f].col);
		if (cl.field[f] < 0)
			fail_msg("tests/data/evidence.csv: no column %s", fieldcols[f].col);
	}
	assert_true(c.nrows <= MAXROWS);
	for (size_t i = 0; i < c.nrows; i++)
		evaluate(&c, &c.rows[i], &cl, i, &res[i]);
	/*
	 * Rows of one published measurement share a `run` (a table row that
	 * gives a peak and a speed): when the speed is above the datasheet
	 * peak under the stated settings, those settings are not the ones that
	 * ran, so the run's memory rows are excluded too.
	 */
	for (size_t i = 0; i < c.nrows; i++) {
		size_t n_in_run = 0;

		if (!*res[i].run)
			continue;
		for (size_t j = 0; j < c.nrows; j++)
			if (!strcmp(res[j].run, res[i].run)) {
				n_in_run++;
				if (!res[i].why && res[j].why && !strcmp(res[j].why, "above the datasheet peak"))
					res[i].why = "its run's speed is above the datasheet peak (not the stated settings)";
			}
		if (n_in_run < 2)
			fail_msg("%s: run %s names no other row", res[i].id, res[i].run);
	}

	printf("%-10s %-13s %-18s %-16s %12s %12s %8s\n", "row", "category", "framework", "metric",
	       "measured", "estimate", "error");
	for (size_t i = 0; i < c.nrows; i++) {
		const struct result *o = &res[i];
		size_t ci = (size_t)o->ci;

		nrows++;
		if (o->why) {
			nexcl[ci]++;
			printf("%-10s %-13s excluded: %s (%s %.4g, estimate %.4g, %+.1f%%)\n", o->id, o->cat, o->why,
			       o->metric, o->m, o->est, 100 * o->rel);
			if (o->hand) {
				nhand++;
				printf("%-10s %-13s   evidence: %s\n", "", "", o->hand);
			}
			continue;
		}
		errs[ci][nerr[ci]++] = o->rel;
		group_add(groups, &ngroups, o->id, ci, o->rel);
		if (!o->fit)
			held[ci][nheld[ci]++] = fabs(o->rel);
		else
			assert_true(o->speed || !o->held);   /* a memory constant is fitted only to split "fit" rows */
		if (o->rel < -0.15)
			nunder[ci]++;
		if (!*csv_get(&c.rows[i], cl.split)) {
			old[ci][nold[ci]++] = fabs(o->rel);
			nunder_old[ci] += o->rel < -0.15;
		} else if (o->held) {
			out[ci][nout[ci]++] = fabs(o->rel);
			nunder_out[ci] += o->rel < -0.15;
			if (fabs(o->rel) > fabs(worst_out[ci]))
				worst_out[ci] = o->rel;
			pool[o->speed][npool[o->speed]++] = fabs(o->rel);
			nunder_pool += !o->speed && o->rel < -0.15;
		}
		if (o->speed)
			printf("%-10s %-13s %-18.18s %-16s %12.1f %12.1f %+7.1f%%\n", o->id, o->cat, o->fw,
			       o->metric, o->m, o->est, 100 * o->rel);
		else
			printf("%-10s %-13s %-18.18s %-16s %10.2fGi %10.2fGi %+7.1f%%\n", o->id, o->cat, o->fw,
			       o->metric, o->m / 1073741824.0, o->est / 1073741824.0, 100 * o->rel);
		assert_true(nerr[ci] < MAXROWS);
	}

	printf("%-13s %5s %14s %14s %9s %9s %16s %s\n", "category", "rows", "median |error|", "worst error",
	       "below-15%", "excluded", "not fitted: rows median",
	       "| held out (issue 30): rows median worst below-15%");
	for (size_t ci = 0; ci < NCAT; ci++) {
		double a[MAXROWS], worst = 0, median;
		size_t n = nerr[ci];

		if (!n) {
			printf("%-13s %5d %14s %14s\n", categories[ci], 0, "-", "-");
			continue;
		}
		ncat_seen++;
		for (size_t k = 0; k < n; k++) {
			a[k] = fabs(errs[ci][k]);
			if (a[k] > fabs(worst))
				worst = errs[ci][k];
		}
		median = median_of(a, n);
		{
			size_t h = nheld[ci];
			double hm = h ? median_of(held[ci], h) : 0;

			size_t no = nout[ci];
			double om = no ? median_of(out[ci], no) : 0;

			printf("%-13s %5zu %13.1f%% %+13.1f%% %9zu %9zu %10zu %5.1f%% | %4zu %5.1f%% %+7.1f%% %4zu\n",
			       categories[ci], n, 100 * median, 100 * worst, nunder[ci], nexcl[ci], h, 100 * hm, no,
			       100 * om, 100 * worst_out[ci], nunder_out[ci]);
			/* issue 12's set alone (the rows with no split) */
			if (nold[ci])
				median = median_of(old[ci], nold[ci]);
			n = nold[ci];
			nunder[ci] = nunder_old[ci];
			/* issue 30's acceptance, reported, not asserted (docs/accuracy.md
			 * "Not-fitted rows" says where it stands) */
			if (no && om > (is_speed_cat(categories[ci]) ? 0.15 : 0.10))
				printf("NOT MET (issue 30) %s: held-out median |error| %.1f%% is above %d%%\n",
				       categories[ci], 100 * om, is_speed_cat(categories[ci]) ? 15 : 10);
			if (nunder_out[ci] && !is_speed_cat(categories[ci]))
				printf("NOT MET (issue 30) %s: %zu held-out rows below -15%%\n", categories[ci],
				       nunder_out[ci]);
			/*
			 * Issue 12's acceptance: memory medians <= 10% where a
			 * category has three rows, no memory underestimate below
			 * -15%; speed medians <= 15%, over all rows and over the
			 * rows no constant was fitted to. Reported after the
			 * tables, so that a miss keeps its diagnostics.
			 */
			if (!is_speed_cat(categories[ci]) && n >= 3 && median > 0.10)
				snprintf(miss[nmiss++], sizeof(miss[0]), "%s: median |error| %.1f%% is above 10%%",
					 categories[ci], 100 * median);
			if (!is_speed_cat(categories[ci]) && nunder[ci])
				snprintf(miss[nmiss++], sizeof(miss[0]), "%s: %zu rows underestimated below -15%%",
					 categories[ci], nunder[ci]);
			if (is_speed_cat(categories[ci]) && median > 0.15)
				snprintf(miss[nmiss++], sizeof(miss[0]), "%s: median |error| %.1f%% is above 15%%",
					 categories[ci], 100 * median);
			if (is_speed_cat(categories[ci]) && h && hm > 0.15)
				snprintf(miss[nmiss++], sizeof(miss[0]),
					 "%s: median |error| %.1f%% over the rows nothing was fitted to is above 15%%",
					 categories[ci], 100 * hm);
		}
	}
	printf("held out (issue 30), pooled: memory %zu rows median %.1f%% (%zu below -15%%), "
	       "speed %zu rows median %.1f%%\n", npool[0], npool[0] ? 100 * median_of(pool[0], npool[0]) : 0,
	       nunder_pool, npool[1], npool[1] ? 100 * median_of(pool[1], npool[1]) : 0);
	/* by source: where the misses are */
	printf("%-13s %-14s %5s %14s %14s\n", "category", "source", "rows", "median |error|", "worst error");
	for (size_t ci = 0; ci < NCAT; ci++)
		for (size_t i = 0; i < ngroups; i++) {
			struct group *g = &groups[i];
			double a[MAXROWS], worst = 0;
			if (g->ci != ci)
				continue;
			for (size_t k = 0; k < g->n; k++) {
				a[k] = fabs(g->err[k]);
				if (a[k] > fabs(worst))
					worst = g->err[k];
			}
			printf("%-13s %-14s %5zu %13.1f%% %+13.1f%%\n", categories[ci], g->name, g->n,
			       100 * median_of(a, g->n), 100 * worst);
		}
	/* the brief: 20+ rows across at least five categories; rows left out
	 * by hand stay few, each with its evidence (docs/accuracy.md) */
	assert_true(nrows >= 20);
	if (nhand > 2)
		fail_msg("%zu rows excluded by hand; at most 2", nhand);
	for (size_t i = 0; i < nmiss; i++)
		printf("MISSED %s\n", miss[i]);
	fflush(stdout);
	if (nmiss)
		fail_msg("%zu of issue 12's targets missed (the MISSED lines)", nmiss);
	assert_true(ncat_seen >= 5);
	csv_free(&c);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_published_evidence),
	};
	return cmocka_run_group_tests_name("evidence", tests, tu_setup, tu_teardown);
}
