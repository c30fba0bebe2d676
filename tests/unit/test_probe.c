/*
 * test_probe.c - src/core/estimate/probe.c: each built-in step format on lines as
 * the projects print them (the formats cited in probe.c), ANSI codes and
 * '\r' refreshes, repeats and restarts, --step-regex and its errors, the
 * warm-up, each diagnosis firing and not firing, and the throughput, MFU
 * and full-run arithmetic worked by hand.
 */
#include "testutil.h"

#include "core/estimate/probe.h"

static struct probe P;

static int setup(void **s)
{
	char err[160];

	(void)s;
	return probe_init(&P, NULL, 0, err, sizeof(err));
}

static int teardown(void **s)
{
	(void)s;
	probe_free(&P);
	return 0;
}

/* A fresh probe of built-in patterns for each line: its step, logger and own time. */
static long one(const char *line, enum probe_logger *lg, double *rep)
{
	struct probe p;
	char err[160];
	long r;

	assert_int_equal(probe_init(&p, NULL, 0, err, sizeof(err)), 0);
	r = probe_line(&p, line, 1.0);
	*lg = p.logger;
	*rep = p.nsteps ? p.reported_s[p.nsteps - 1] : -1;
	probe_free(&p);
	return r;
}

static void expect(const char *line, long step, enum probe_logger lg, double rep)
{
	enum probe_logger got;
	double grep;
	long r = one(line, &got, &grep);

	if (r != step || (step >= 0 && (got != lg || fabs(grep - rep) > 1e-9)))
		fail_msg("%s: step %ld logger %s time %g, expected %ld %s %g", line, r,
			 probe_logger_name(got), grep, step, probe_logger_name(lg), rep);
}

static void test_names(void **s)
{
	(void)s;
	assert_string_equal(probe_logger_name(PROBE_LOG_HF), "hf");
	assert_string_equal(probe_logger_name(PROBE_LOG_TQDM), "tqdm");
	assert_string_equal(probe_logger_name(PROBE_LOG_PROGRESS), "progress");
	assert_string_equal(probe_logger_name((enum probe_logger)99), "?");
	assert_string_equal(probe_diag_name(PROBE_D_WARMUP), "warmup");
	assert_string_equal(probe_diag_name(PROBE_D_DATA_STARVED), "data_starved");
	assert_string_equal(probe_diag_name(PROBE_D_MEM_GROWING), "mem_growing");
	assert_string_equal(probe_diag_name(PROBE_D_NO_GPU_MEMORY), "no_gpu_memory");
	assert_string_equal(probe_diag_name(PROBE_CODE_COUNT), "?");
}

static void test_formats(void **s)
{
	(void)s;
	/* HF Trainer's ProgressCallback.on_log: str(logs) */
	expect("{'loss': 1.2345, 'grad_norm': 0.8123, 'learning_rate': 4.9e-05, 'epoch': 0.05}", 1,
	       PROBE_LOG_HF, 0);
	expect("{\"loss\": 1.2345, \"learning_rate\": 4.9e-05, \"epoch\": 0.05}", 1, PROBE_LOG_HF, 0);
	expect("{'eval_loss': 1.1, 'eval_runtime': 3.2, 'epoch': 0.1}", -1, PROBE_LOG_NONE, 0);
	expect("{'train_runtime': 12.3, 'train_loss': 1.2, 'epoch': 1.0}", -1, PROBE_LOG_NONE, 0);
	/* tqdm's default bar, it/s and s/it */
	expect("  5%|\xe2\x96\x8c         | 12/240 [00:05<01:40,  2.31it/s]", 12, PROBE_LOG_TQDM, 0);
	expect(" 13/240 [00:30<08:40,  1.52s/it, loss=1.23]", 13, PROBE_LOG_TQDM, 0);
	expect("  0%|          | 0/240 [00:00<?, ?it/s]", -1, PROBE_LOG_TQDM, 0);
	expect("see 12/240 [figure]", -1, PROBE_LOG_NONE, 0);
	/* torchtune's description in front of its bar: the global step wins */
	expect("1|12|Loss: 1.2345:   5%|\xe2\x96\x8c         | 12/240 [00:05<01:40,  2.31it/s]", 12,
	       PROBE_LOG_TORCHTUNE, 0);
	expect("2|250|Loss: 0.98", 250, PROBE_LOG_TORCHTUNE, 0);
	/* LitGPT now and lit-gpt before */
	expect("Epoch 1 | iter 12 step 3 | loss train: 1.234, val: n/a | iter time: 345.67 ms", 12,
	       PROBE_LOG_LIGHTNING, 0.34567);
	expect("Epoch 1 | iter 16 step 4 | loss train: 1.201, val: n/a | iter time: 340.00 ms (step) "
	       "remaining time: 0:10:00", 16, PROBE_LOG_LIGHTNING, 0.34);
	expect("iter 12 step 3: loss 1.2345, iter time: 345.67ms", 12, PROBE_LOG_LIGHTNING, 0.34567);
	expect("iter 12: loss 1.2345, iter time: 345.67ms", 12, PROBE_LOG_LIGHTNING, 0.34567);
	/* llm.c, the current and the older line */
	expect("step   12/100 | loss 3.456789 (+0.01z)| norm 1.2345 (+0.02z)| lr 6.00e-04 | 345.67 ms | "
	       "45.6% bf16 MFU | 123456 tok/s", 12, PROBE_LOG_LLMC, 0.34567);
	expect("step   12/100 | train loss 1.234 | norm 0.9 | lr 6.00e-04 | 345.67 ms | 45.6% bf16 MFU | "
	       "123456 tok/s", 12, PROBE_LOG_LLMC, 0.34567);
	expect("step 12/100: train loss 4.367 (345.670000 ms, 47000 tok/s)", 12, PROBE_LOG_LLMC, 0.34567);
	/* DeepSpeed's log_dist */
	expect("[2024-05-01 10:00:00,123] [INFO] [logging.py:96:log_dist] [Rank 0] step=12, skipped=0, "
	       "lr=[5e-05], mom=[(0.9, 0.999)]", 12, PROBE_LOG_DEEPSPEED, 0);
	expect("[Rank 0] step=20, skipped=1, lr=[4.9e-05], mom=[(0.9, 0.95)]", 20, PROBE_LOG_DEEPSPEED, 0);
	/* plain words */
	expect("step 12", 12, PROBE_LOG_STEP, 0);
	expect("Step 12/100, loss 1.2", 12, PROBE_LOG_STEP, 0);
	expect("STEP: 12", 12, PROBE_LOG_STEP, 0);
	expect("iteration 12 loss=1.2", 12, PROBE_LOG_STEP, 0);
	expect("iter 12: loss 1.2", 12, PROBE_LOG_STEP, 0);
	expect("global step=12", 12, PROBE_LOG_STEP, 0);
	expect("epoch 1 step 7 loss 1.2", 7, PROBE_LOG_STEP, 0);
	expect("steps 12", -1, PROBE_LOG_NONE, 0);
	expect("step 1.5", -1, PROBE_LOG_NONE, 0);
	expect("stepped 12", -1, PROBE_LOG_NONE, 0);
	expect("mystep 12", -1, PROBE_LOG_NONE, 0);
	expect("step 12abc", -1, PROBE_LOG_NONE, 0);
	expect("12 steps", -1, PROBE_LOG_NONE, 0);
	expect("iter time 12", -1, PROBE_LOG_NONE, 0);
	expect("step 99999999999999999999999", -1, PROBE_LOG_NONE, 0);
	expect("", -1, PROBE_LOG_NONE, 0);
	assert_int_equal(probe_line(&P, NULL, 1), -1);
}

static void test_ansi_and_refreshes(void **s)
{
	(void)s;
	expect("\x1b[32m  5%|\x1b[0m | 11/240 [00:04<01:41,  2.30it/s]\r  5%| | 12/240 [00:05<01:40,  2.31it/s]",
	       12, PROBE_LOG_TQDM, 0);
	expect("\r 11/240 [00:04<01:41,  2.30it/s]\r 12/240 [00:05<01:40,  2.31it/s]\r", 12, PROBE_LOG_TQDM, 0);
	expect("\r 11/240 [00:04<01:41,  2.30it/s]\r   ", 11, PROBE_LOG_TQDM, 0);
	expect("\x1b[1mstep\x1b[0m \x1b[33m12\x1b[0m", 12, PROBE_LOG_STEP, 0);
	expect("\x1b]0;title\astep 3", 3, PROBE_LOG_STEP, 0);
	expect("\x1b[2K\x1b[1A", -1, PROBE_LOG_NONE, 0);
}

static void test_repeat_restart_lock(void **s)
{
	(void)s;
	assert_int_equal(probe_line(&P, "step 5", 1), 5);
	assert_int_equal(probe_line(&P, "step 5 (again)", 2), -1);
	assert_int_equal(probe_line(&P, "step 6", 3), 6);
	/* a restart counts again from its step, the times kept */
	assert_int_equal(probe_line(&P, "step 1", 10), 1);
	assert_int_equal(probe_line(&P, "step 2", 11), 2);
	assert_int_equal(P.nsteps, 4);
	assert_true(P.t[2] == 10 && P.t[3] == 11);
	/* one logger: a tqdm bar after plain steps is ignored */
	assert_int_equal(probe_line(&P, " 12/240 [00:05<01:40,  2.31it/s]", 12), -1);
	/* arrival times never go back */
	assert_int_equal(probe_line(&P, "step 3", 5), 3);
	assert_true(P.t[4] == 11);
	assert_int_equal(probe_line(&P, "step 4", NAN), 4);
	assert_true(P.t[5] == 11);
}

static void test_regex(void **s)
{
	struct probe p;
	char err[200];

	(void)s;
	assert_int_equal(probe_init(&p, "^it ([0-9]+) done", 0, err, sizeof(err)), 0);
	assert_int_equal(probe_line(&p, "it 7 done", 1), 7);
	assert_int_equal(p.logger, PROBE_LOG_REGEX);
	assert_int_equal(probe_line(&p, "step 8", 2), -1);   /* the regex alone */
	assert_int_equal(probe_line(&p, "\x1b[1mit 8 done\x1b[0m", 3), 8);
	probe_free(&p);

	assert_int_equal(probe_init(&p, "name=([a-z]+)", 0, err, sizeof(err)), 0);
	assert_int_equal(probe_line(&p, "name=abc", 1), -1);   /* the group is no number */
	probe_free(&p);

	assert_int_equal(probe_init(&p, "step [0-9]+", 0, err, sizeof(err)), -1);
	assert_string_equal(err, "--step-regex: expected a pattern with one (group) for the step number");
	assert_null(p.regex);
	probe_free(&p);
	assert_int_equal(probe_init(&p, "step ([0-9]+", 0, err, sizeof(err)), -1);
	assert_true(!strncmp(err, "--step-regex: ", 14) && strlen(err) > 14);
	probe_free(&p);
	/* what would make glibc's regcomp or regexec explode (fuzz_probe's finds) */
	assert_int_equal(probe_init(&p, "St+++++++++++++++++++++++++++++++++++++++ep ([0-9]+)", 0, err, sizeof(err)), -1);
	assert_true(!strncmp(err, "--step-regex: ", 14));
	assert_int_equal(probe_init(&p, "((((a{99}){99}){99}){99}) ([0-9]+)", 0, err, sizeof(err)), -1);
	assert_string_equal(err, "--step-regex: the pattern repeats too much (nested + or {n})");
	/* "{,n}" is glibc's {0,n}: counted as one (fuzz_probe's out-of-memory input) */
	assert_int_equal(probe_init(&p, "\312{,30031}:([0-9]+)", 0, err, sizeof(err)), -1);
	assert_string_equal(err, "--step-regex: the pattern repeats too much (nested + or {n})");
	assert_int_equal(probe_init(&p, "step{,3} ([0-9]+)", 0, err, sizeof(err)), 0);
	probe_free(&p);
	/* optional copies in all, not one by one: closures grow with their square */
	assert_int_equal(probe_init(&p, "a{,1000}b{,1001} ([0-9]+)", 0, err, sizeof(err)), -1);
	assert_string_equal(err, "--step-regex: the pattern repeats too much (nested + or {n})");
	assert_int_equal(probe_init(&p, "a{1000,2999} ([0-9]+)", 0, err, sizeof(err)), 0);
	probe_free(&p);
	assert_int_equal(probe_init(&p, "(a)\\1 ([0-9]+)", 0, err, sizeof(err)), -1);
	assert_string_equal(err, "--step-regex: back-references (\\1) are not supported");
	/* an unmatched ')' and a '{' that opens no interval are literals to
	 * glibc, atoms the next '+' copies (fuzz_probe's out-of-memory input) */
	assert_int_equal(probe_init(&p, "ok) ([0-9]+)) ++++++++++++++++++++", 0, err, sizeof(err)), -1);
	assert_int_equal(probe_init(&p, "x{y ([0-9]+){z++++++++++++", 0, err, sizeof(err)), -1);
	{
		char longpat[400];

		memset(longpat, 'a', sizeof(longpat) - 10);
		strcpy(longpat + sizeof(longpat) - 10, "([0-9]+)");
		assert_int_equal(probe_init(&p, longpat, 0, err, sizeof(err)), -1);
		assert_string_equal(err, "--step-regex: expected at most 256 characters");
	}
	/* ordinary repetitions pass */
	assert_int_equal(probe_init(&p, "^\\[[a-z]+\\] +step[ :=]*([0-9]{1,9})(/[0-9]+)?", 0, err, sizeof(err)), 0);
	assert_int_equal(probe_line(&p, "[train]  step: 41/100", 1), 41);
	probe_free(&p);
}

static void test_progress(void **s)
{
	(void)s;
	assert_int_equal(probe_line(&P, "step 1", 1), 1);
	assert_int_equal(probe_progress(&P, "42\n", 2), 42);   /* replaces the lines' steps */
	assert_int_equal(P.nsteps, 1);
	assert_int_equal(P.logger, PROBE_LOG_PROGRESS);
	assert_int_equal(probe_progress(&P, "42\n", 3), -1);
	assert_int_equal(probe_progress(&P, "step: 43 of 100", 4), 43);
	assert_int_equal(probe_progress(&P, "", 5), -1);
	assert_int_equal(probe_progress(&P, NULL, 5), -1);
	assert_int_equal(probe_line(&P, "step 44", 6), -1);
}

/* n steps: the first after `first` seconds, then one each dt (plain lines). */
static void feed(struct probe *p, size_t n, double first, double dt)
{
	char line[32];
	double t = first;

	for (size_t i = 0; i < n; i++) {
		snprintf(line, sizeof(line), "step %zu", i + 1);
		assert_int_equal(probe_line(p, line, t), (long)(i + 1));
		t += dt;
	}
}

static const struct probe_diag *diag(const struct probe_result *r, enum probe_code c)
{
	for (int i = 0; i < r->ndiags; i++)
		if (r->diags[i].code == c)
			return &r->diags[i];
	return NULL;
}

static void test_warmup(void **s)
{
	struct probe_inputs in = {.warmup = -1};
	struct probe_result r;
	const struct probe_diag *d;

	(void)s;
	/* 12 steps: the first 3 s after the start, two slow (3 s, 2 s), then 0.5 s each */
	assert_int_equal(probe_line(&P, "step 1", 3.0), 1);
	assert_int_equal(probe_line(&P, "step 2", 5.0), 2);
	for (int i = 3; i <= 12; i++) {
		char line[32];

		snprintf(line, sizeof(line), "step %d", i);
		probe_line(&P, line, 5.0 + 0.5 * (i - 2));
	}
	probe_finish(&P, &in, &r);
	assert_int_equal(r.steps, 12);
	assert_int_equal(r.warmup, 2);
	assert_float_equal(r.first_step_s, 3.0, 1e-9);
	assert_float_equal(r.steady_step_s, 0.5, 1e-9);
	d = diag(&r, PROBE_D_WARMUP);
	assert_non_null(d);
	assert_float_equal(d->a, 3.0, 1e-9);
	assert_float_equal(d->b, 0.5, 1e-9);
	assert_int_equal(d->steps, 2);
	assert_null(diag(&r, PROBE_D_SLOWING));
	/* --warmup 0: all count, the median still 0.5 (10 of 12) */
	in.warmup = 0;
	probe_finish(&P, &in, &r);
	assert_int_equal(r.warmup, 0);
	assert_null(diag(&r, PROBE_D_WARMUP));
	/* --warmup 1 */
	in.warmup = 1;
	probe_finish(&P, &in, &r);
	assert_int_equal(r.warmup, 1);
	assert_non_null(diag(&r, PROBE_D_WARMUP));
	/* more than were seen: one step left */
	in.warmup = 100;
	probe_finish(&P, &in, &r);
	assert_int_equal(r.warmup, 11);
	assert_float_equal(r.steady_step_s, 0.5, 1e-9);
}

static void test_no_warmup_and_cap(void **s)
{
	struct probe_inputs in = {.warmup = -1};
	struct probe_result r;

	(void)s;
	feed(&P, 12, 0.5, 0.5);   /* even steps */
	probe_finish(&P, &in, &r);
	assert_int_equal(r.warmup, 0);
	assert_null(diag(&r, PROBE_D_WARMUP));
	probe_free(&P);
	/* every step slower than the one before: at most a third is warm-up */
	probe_init(&P, NULL, 0, NULL, 0);
	{
		double t = 0;
		char line[32];

		for (int i = 1; i <= 9; i++) {
			t += 10.0 / i;
			snprintf(line, sizeof(line), "step %d", i);
			probe_line(&P, line, t);
		}
	}
	probe_finish(&P, &in, &r);
	assert_true(r.warmup <= 3);
}

static void test_own_step_time_and_skips(void **s)
{
	struct probe_inputs in = {.warmup = 0};
	struct probe_result r;
	char line[160];

	(void)s;
	/* llm.c says 100 ms a step though its lines arrive a second apart */
	for (int i = 1; i <= 6; i++) {
		snprintf(line, sizeof(line), "step %4d/100 | loss 3.4 (+0.01z)| norm 1.2 (+0.02z)| lr 6.00e-04 | "
			 "100.00 ms | 40.0%% bf16 MFU | 1000 tok/s", i);
		assert_int_equal(probe_line(&P, line, (double)i), i);
	}
	probe_finish(&P, &in, &r);
	assert_int_equal(r.logger, PROBE_LOG_LLMC);
	assert_float_equal(r.steady_step_s, 0.1, 1e-9);
	probe_free(&P);
	/* a bar refreshed from 3 to 8 in 2.5 s: 0.5 s a step */
	probe_init(&P, NULL, 0, NULL, 0);
	probe_line(&P, " 1/100 [00:01<01:40,  1.0it/s]", 0.5);
	probe_line(&P, " 2/100 [00:01<01:40,  1.0it/s]", 1.0);
	probe_line(&P, " 3/100 [00:01<01:40,  1.0it/s]", 1.5);
	probe_line(&P, " 8/100 [00:04<01:40,  2.0it/s]", 4.0);
	probe_finish(&P, &in, &r);
	assert_int_equal(r.steps, 4);
	assert_float_equal(r.steady_step_s, 0.5, 1e-9);
}

static void test_slowing(void **s)
{
	struct probe_inputs in = {.warmup = 0};
	struct probe_result r;
	const struct probe_diag *d;
	double t = 0;
	char line[32];

	(void)s;
	/* 12 steps: 0.5 s for the first four, 0.55 s, then 0.6 s for the last four */
	for (int i = 1; i <= 12; i++) {
		t += i <= 4 ? 0.5 : i <= 8 ? 0.55 : 0.6;
		snprintf(line, sizeof(line), "step %d", i);
		probe_line(&P, line, t);
	}
	probe_finish(&P, &in, &r);
	assert_float_equal(r.first_third_s, 0.5, 1e-9);
	assert_float_equal(r.last_third_s, 0.6, 1e-9);
	d = diag(&r, PROBE_D_SLOWING);
	assert_non_null(d);   /* 0.6 / 0.5 = 1.2 > 1.10 */
	assert_float_equal(d->a, 0.5, 1e-9);
	assert_float_equal(d->b, 0.6, 1e-9);
	probe_free(&P);
	/* the same rise over 8 steps is too few to tell */
	probe_init(&P, NULL, 0, NULL, 0);
	t = 0;
	for (int i = 1; i <= 8; i++) {
		t += i <= 3 ? 0.5 : 0.6;
		snprintf(line, sizeof(line), "step %d", i);
		probe_line(&P, line, t);
	}
	probe_finish(&P, &in, &r);
	assert_null(diag(&r, PROBE_D_SLOWING));
	probe_free(&P);
	/* 5% slower is under the 10% threshold */
	probe_init(&P, NULL, 0, NULL, 0);
	t = 0;
	for (int i = 1; i <= 12; i++) {
		t += i <= 4 ? 0.5 : i <= 8 ? 0.51 : 0.525;
		snprintf(line, sizeof(line), "step %d", i);
		probe_line(&P, line, t);
	}
	probe_finish(&P, &in, &r);
	assert_null(diag(&r, PROBE_D_SLOWING));
}

static unsigned long long lcg = 12345;

static double noise(void)   /* in [-1, 1) */
{
	lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(lcg >> 11) / (double)(1ULL << 53) * 2 - 1;
}

static void test_memory(void **s)
{
	struct probe_inputs in = {.warmup = 0};
	struct probe_result r;
	const struct probe_diag *d;

	(void)s;
	/* 21 steps of 0.5 s from t=0.5 to 10.5; readings each 0.1 s. A leak of
	 * 10 MB/s: 5 MB a step, 100 MB over the 20 steps of the fit window,
	 * more than 5% of the ~1.1 GB peak. */
	feed(&P, 21, 0.5, 0.5);
	for (int i = 0; i <= 110; i++) {
		double t = i * 0.1;

		probe_sample(&P, t, 1e9 + 1e7 * t, 90, 50);
	}
	probe_finish(&P, &in, &r);
	assert_float_equal(r.peak_mem, 1e9 + 1e7 * 11.0, 1);
	assert_float_equal(r.mem_growth, 5e6, 1e3);
	d = diag(&r, PROBE_D_MEM_GROWING);
	assert_non_null(d);
	assert_float_equal(d->a, 5e6, 1e3);
	assert_float_equal(d->b, 5e6 * 21, 1e4);
	assert_null(diag(&r, PROBE_D_NO_GPU_MEMORY));
	assert_null(diag(&r, PROBE_D_DATA_STARVED));
	probe_free(&P);

	/* flat with +-20 MB of noise (2% of the peak): not growing */
	probe_init(&P, NULL, 0, NULL, 0);
	feed(&P, 21, 0.5, 0.5);
	for (int i = 0; i <= 110; i++)
		probe_sample(&P, i * 0.1, 1e9 + 2e7 * noise(), 90, 50);
	probe_finish(&P, &in, &r);
	assert_null(diag(&r, PROBE_D_MEM_GROWING));
	assert_true(fabs(r.mem_growth) < 1e6);
	probe_free(&P);

	/* a jump in the first third, flat afterwards (a cache that filled): not a leak */
	probe_init(&P, NULL, 0, NULL, 0);
	feed(&P, 21, 0.5, 0.5);
	for (int i = 0; i <= 110; i++) {
		double t = i * 0.1;

		probe_sample(&P, t, t < 2.0 ? 1e9 + 2e8 * t : 1.4e9, 90, 50);
	}
	probe_finish(&P, &in, &r);
	assert_true(r.mem_growth > 0);
	assert_null(diag(&r, PROBE_D_MEM_GROWING));
	probe_free(&P);

	/* no reading with a memory figure */
	probe_init(&P, NULL, 0, NULL, 0);
	feed(&P, 5, 0.5, 0.5);
	probe_sample(&P, 1, -1, 90, 50);
	probe_sample(&P, 2, NAN, 90, 50);
	probe_finish(&P, &in, &r);
	assert_non_null(diag(&r, PROBE_D_NO_GPU_MEMORY));
	assert_true(r.peak_mem == 0 && r.mem_growth == 0);
}

static void starved_case(double util, double cpu, bool expect_diag)
{
	struct probe_inputs in = {.warmup = 0};
	struct probe_result r;
	struct probe p;

	probe_init(&p, NULL, 0, NULL, 0);
	feed(&p, 10, 1, 1);
	/* the start-up (before the first step) is idle GPU and busy CPU: not counted */
	for (int i = 0; i < 10; i++)
		probe_sample(&p, 0.1 * i, 1e9, 0, 100);
	for (int i = 10; i <= 100; i++)
		probe_sample(&p, 0.1 * i, 1e9, util + (i % 3) - 1, cpu + (i % 5) - 2);
	probe_finish(&p, &in, &r);
	assert_float_equal(r.util_median, util, 1.01);
	assert_float_equal(r.cpu_median, cpu, 2.01);
	if (expect_diag) {
		const struct probe_diag *d = diag(&r, PROBE_D_DATA_STARVED);

		assert_non_null(d);
		assert_float_equal(d->a, r.util_median, 1e-9);
		assert_float_equal(d->b, r.cpu_median, 1e-9);
	} else {
		assert_null(diag(&r, PROBE_D_DATA_STARVED));
	}
	probe_free(&p);
}

static void test_starved(void **s)
{
	(void)s;
	starved_case(30, 95, true);    /* idle GPU, busy CPU: the loader */
	starved_case(30, 20, false);   /* idle GPU, idle CPU: something else */
	starved_case(95, 95, false);   /* busy GPU, busy CPU: not starved */
	starved_case(95, 10, false);
}

static void test_sliced(void **s)
{
	struct probe_inputs in = {.warmup = 0, .nominal_mem = 80e9};
	struct probe_result r;
	const struct probe_diag *d;

	(void)s;
	feed(&P, 4, 1, 1);
	P.mem_visible = 40e9;
	probe_finish(&P, &in, &r);
	d = diag(&r, PROBE_D_SLICED);
	assert_non_null(d);
	assert_float_equal(d->a, 40e9, 1);
	assert_float_equal(d->b, 80e9, 1);
	P.mem_visible = 79.2e9;   /* 99%: what the driver keeps */
	probe_finish(&P, &in, &r);
	assert_null(diag(&r, PROBE_D_SLICED));
	P.mem_visible = 0;        /* unknown */
	probe_finish(&P, &in, &r);
	assert_null(diag(&r, PROBE_D_SLICED));
	P.mem_visible = 40e9;
	in.nominal_mem = 0;       /* no datasheet figure */
	probe_finish(&P, &in, &r);
	assert_null(diag(&r, PROBE_D_SLICED));
}

static void check_finite(const struct probe_result *r)
{
	const double v[] = {
		r->first_step_s, r->steady_step_s, r->first_third_s, r->last_third_s, r->peak_mem,
		r->mem_growth, r->util_median, r->cpu_median, r->units_per_s, r->mfu, r->full_run_s,
		r->full_run_cost, r->mem_error, r->step_error,
	};

	for (size_t i = 0; i < ARRAY_SIZE(v); i++)
		assert_true(isfinite(v[i]));
	for (int i = 0; i < r->ndiags; i++)
		assert_true(isfinite(r->diags[i].a) && isfinite(r->diags[i].b));
}

static void test_empty(void **s)
{
	struct probe_inputs in = {.warmup = -1, .units_per_step = 1000, .flops_per_unit = 1e9,
				  .peak_flops = 1e15, .gpus = 1, .work = 1e9, .price_per_hour = 2,
				  .est_mem = 1e9, .est_step_s = 1, .nominal_mem = 80e9};
	struct probe_result r;

	(void)s;
	probe_finish(&P, &in, &r);
	check_finite(&r);
	assert_int_equal(r.steps, 0);
	assert_true(r.steady_step_s == 0 && r.units_per_s == 0 && r.mfu == 0 && r.full_run_s == 0);
	assert_true(r.util_median < 0 && r.cpu_median < 0);
	assert_non_null(diag(&r, PROBE_D_NO_STEPS));
	assert_non_null(diag(&r, PROBE_D_NO_GPU_MEMORY));
	probe_finish(&P, NULL, &r);
	check_finite(&r);
	/* one step is still too few */
	probe_line(&P, "step 1", 2);
	probe_sample(&P, 1, 1e9, NAN, INFINITY);
	probe_finish(&P, &in, &r);
	check_finite(&r);
	assert_float_equal(r.first_step_s, 2, 1e-9);
	assert_non_null(diag(&r, PROBE_D_NO_STEPS));
	assert_null(diag(&r, PROBE_D_NO_GPU_MEMORY));
	/* two steps at the same instant: a zero step time, no division by it */
	probe_line(&P, "step 2", 2);
	probe_finish(&P, &in, &r);
	check_finite(&r);
	assert_null(diag(&r, PROBE_D_NO_STEPS));
}

static void test_arithmetic(void **s)
{
	/* 8 GPUs, micro-batch 1 x 4096 tokens x accumulation 1 x 8 GPUs =
	 * 32768 tokens a step, a 7B model's 6 x 7e9 = 4.2e10 FLOPs a token,
	 * 989 TFLOPS dense BF16 per GPU, 1e9 tokens, $32 an hour. */
	struct probe_inputs in = {.warmup = 0, .units_per_step = 32768, .flops_per_unit = 4.2e10,
				  .peak_flops = 989e12, .gpus = 8, .work = 1e9, .price_per_hour = 32,
				  .est_mem = 40e9, .est_step_s = 0.4};
	struct probe_result r;

	(void)s;
	feed(&P, 10, 0.5, 0.5);   /* 0.5 s a step */
	probe_sample(&P, 1, 400e9, 95, 50);   /* 50 GB on each of 8 GPUs */
	probe_sample(&P, 2, 399e9, 95, 50);
	probe_finish(&P, &in, &r);
	check_finite(&r);
	assert_float_equal(r.steady_step_s, 0.5, 1e-9);
	/* 32768 / 0.5 = 65536 tokens/s */
	assert_float_equal(r.units_per_s, 65536, 1e-6);
	/* 65536 x 4.2e10 = 2.752512e15 FLOP/s over 8 x 989e12 = 7.912e15: 0.347891... */
	assert_float_equal(r.mfu, 2.752512e15 / 7.912e15, 1e-12);
	assert_float_equal(r.mfu, 0.3478908, 1e-6);
	/* 1e9 / 65536 = 15258.7890625 s; / 3600 x 32 = $135.6336805... */
	assert_float_equal(r.full_run_s, 15258.7890625, 1e-6);
	assert_float_equal(r.full_run_cost, 135.63368, 1e-4);
	/* estimate 40 GB per GPU against 400 GB / 8 = 50 GB: -20%; 0.4 s against 0.5 s: -20% */
	assert_float_equal(r.peak_mem, 400e9, 1);
	assert_float_equal(r.mem_error, -0.2, 1e-12);
	assert_float_equal(r.step_error, -0.2, 1e-12);
	/* unknown inputs leave their figures 0 */
	in.flops_per_unit = 0;
	in.work = 0;
	in.est_mem = 0;
	probe_finish(&P, &in, &r);
	assert_true(r.mfu == 0 && r.full_run_s == 0 && r.full_run_cost == 0 && r.mem_error == 0);
	assert_float_equal(r.units_per_s, 65536, 1e-6);
}

static void test_hf_counts_lines(void **s)
{
	struct probe_inputs in = {.warmup = 0};
	struct probe_result r;

	(void)s;
	for (int i = 1; i <= 4; i++)
		assert_int_equal(probe_line(&P, "{'loss': 1.2, 'grad_norm': 0.5, 'learning_rate': 1e-05, 'epoch': 0.1}",
					    2.0 * i), i);
	probe_finish(&P, &in, &r);
	assert_int_equal(r.logger, PROBE_LOG_HF);
	assert_float_equal(r.steady_step_s, 2.0, 1e-9);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_names),
		T(test_formats),
		T(test_ansi_and_refreshes),
		T(test_repeat_restart_lock),
		T(test_regex),
		T(test_progress),
		T(test_warmup),
		T(test_no_warmup_and_cap),
		T(test_own_step_time_and_skips),
		T(test_slowing),
		T(test_memory),
		T(test_starved),
		T(test_sliced),
		T(test_empty),
		T(test_arithmetic),
		T(test_hf_counts_lines),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
