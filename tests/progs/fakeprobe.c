/*
 * fakeprobe.c - a fake training job for `gpurent probe` (tests/cli/probe.sh):
 * prints STEPS step lines in one logger's format at STEP_MS a step and
 * tells the fake NVML (tests/fake/fake_nvml.c, procs=FILE) how much GPU
 * memory it holds.
 *
 *   fakeprobe FORMAT STEPS STEP_MS MEM_MB [--warmup-ms MS] [--leak-mb-per-step X]
 *             [--busy-cpu] [--procs-file FILE]
 *
 * FORMAT: hf (the Trainer's dict lines), tqdm (a bar redrawn with '\r' on
 * stderr), torchtune, litgpt, llmc, deepspeed, step (docs/probe.md has a
 * line of each). Step k ends at start + warm-up + k x STEP_MS (absolute
 * deadlines: a late wake-up does not push the later steps back, so the
 * median step time stays STEP_MS on a loaded machine; one late step is
 * followed by a short one). --warmup-ms: the first step takes MS instead.
 * --leak-mb-per-step: the memory grows by X MiB after each step.
 * --busy-cpu: the steps spin the CPU instead of sleeping, and three
 * more processes (DataLoader workers) spin beside it until the job ends (a
 * data-starved job: its loaders busy, the GPU, scripted low in the fake
 * NVML, waiting). Four spinners, so that the job still gets most of a core
 * on a machine that other builds keep busy.
 * --procs-file: "PID BYTES" rewritten (a new file renamed over the old)
 * before the first step and after each. MEM_MB and X are MiB.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/types.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Until monotonic time t: sleeping, or spinning with busy. */
static void wait_until(double t, int busy)
{
	volatile unsigned long x = 0;

	for (double n = now_s(); n < t; n = now_s()) {
		if (busy) {
			for (int i = 0; i < 100000; i++)
				x += (unsigned long)i;
			continue;
		}
		{
			double d = t - n;
			struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
			nanosleep(&ts, NULL);
		}
	}
}

static void write_procs(const char *path, double mib)
{
	char tmp[4096];
	FILE *f;

	if (!path)
		return;
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
	if (!(f = fopen(tmp, "w")))
		return;
	fprintf(f, "%ld %.0f\n", (long)getpid(), mib * 1048576.0);
	if (fclose(f) == 0)
		rename(tmp, path);
}

static int usage(void)
{
	fprintf(stderr, "usage: fakeprobe FORMAT STEPS STEP_MS MEM_MB [--warmup-ms MS] "
		"[--leak-mb-per-step X] [--busy-cpu] [--procs-file FILE]\n");
	return 2;
}

static void step_line(const char *fmt, long k, long steps, double step_ms, double elapsed)
{
	double loss = 2.5 - 1.0 * (double)k / (double)steps;

	if (!strcmp(fmt, "hf")) {
		printf("{'loss': %.4f, 'grad_norm': 0.8731, 'learning_rate': 2e-05, 'epoch': %.2f}\n", loss,
		       (double)k / (double)steps);
	} else if (!strcmp(fmt, "tqdm")) {
		double rate = 1000.0 / step_ms, left = (double)(steps - k) * step_ms / 1000;
		long pct = k * 100 / steps;
		fprintf(stderr, "\r%3ld%%|%-10.*s| %ld/%ld [%02ld:%02ld<%02ld:%02ld, %5.2fit/s]", pct,
			(int)(pct / 10), "##########", k, steps, (long)elapsed / 60, (long)elapsed % 60,
			(long)left / 60, (long)left % 60, rate);
		if (k == steps)
			fputc('\n', stderr);
		fflush(stderr);
	} else if (!strcmp(fmt, "torchtune")) {
		printf("1|%ld|Loss: %.4f\n", k, loss);
	} else if (!strcmp(fmt, "litgpt")) {
		printf("iter %ld step %ld: loss %.4f, iter time: %.2fms\n", k, k, loss, step_ms);
	} else if (!strcmp(fmt, "llmc")) {
		printf("step %4ld/%ld | loss %.6f (+0.00z)| norm 1.0123 (+0.00z)| lr 6.00e-04 | %.2f ms | "
		       "41.5%% bf16 MFU | 123456 tok/s\n", k, steps, loss, step_ms);
	} else if (!strcmp(fmt, "deepspeed")) {
		printf("[2026-12-01 12:00:00,000] [INFO] [logging.py:96:log_dist] [Rank 0] step=%ld, skipped=0, "
		       "lr=[0.0001], mom=[(0.9, 0.999)]\n", k);
	} else {
		printf("step %ld loss %.4f\n", k, loss);
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const char *fmt, *procs = NULL;
	static const char *const fmts[] = {"hf", "tqdm", "torchtune", "litgpt", "llmc", "deepspeed", "step"};
	long steps;
	double step_ms, mem, warm_ms = -1, leak = 0, t;
	int busy = 0, known = 0;

	if (argc < 5)
		return usage();
	fmt = argv[1];
	steps = atol(argv[2]);
	step_ms = atof(argv[3]);
	mem = atof(argv[4]);
	for (int i = 5; i < argc; i++) {
		if (!strcmp(argv[i], "--busy-cpu"))
			busy = 1;
		else if (i + 1 < argc && !strcmp(argv[i], "--warmup-ms"))
			warm_ms = atof(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "--leak-mb-per-step"))
			leak = atof(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "--procs-file"))
			procs = argv[++i];
		else
			return usage();
	}
	for (size_t i = 0; i < sizeof(fmts) / sizeof(*fmts); i++)
		known |= !strcmp(fmt, fmts[i]);
	if (!known || steps < 1 || !(step_ms > 0) || mem < 0)
		return usage();
	for (int k = 0; busy && k < 3; k++) {
		pid_t parent = getpid();
		if (fork() == 0) {
			while (getppid() == parent)
				wait_until(now_s() + 0.05, 1);
			_exit(0);
		}
	}
	printf("loading the model (%.0f MiB) ...\n", mem);
	fflush(stdout);
	write_procs(procs, mem);
	t = now_s();
	{
		double t0 = t, next = t + (warm_ms >= 0 ? warm_ms : step_ms) / 1000;
		for (long k = 1; k <= steps; k++) {
			wait_until(next, busy);
			step_line(fmt, k, steps, k == 1 && warm_ms >= 0 ? warm_ms : step_ms, now_s() - t0);
			write_procs(procs, mem + leak * (double)k);
			next += step_ms / 1000;
		}
	}
	printf("training done\n");
	return 0;
}
