/*
 * slurmjob.c - the job of tests/cli/slurm.sh: does TOTAL work units of
 * UNIT_MS each, checkpoints every EVERY units with include/gpurent_ckpt.h
 * (step_N in $GPURENT_CKPT_DIR, the file holding N), resumes from
 * $GPURENT_RESUME, and on SIGUSR1 or SIGTERM (the time limit near)
 * checkpoints at the end of the current unit and exits 0.
 *
 *   slurmjob TOTAL EVERY UNIT_MS LOG
 *
 * LOG gets a line per unit done, "unit N attempt A", and "start A FROM",
 * "checkpoint N", "signal N", "done N": the test checks that no unit was
 * lost and none done twice beyond one checkpoint interval.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpurent_ckpt.h"

static volatile sig_atomic_t stop;

static void on_sig(int sig)
{
	(void)sig;
	stop = 1;
}

static void say(const char *log, const char *fmt, unsigned long long a, unsigned long long b)
{
	FILE *f = fopen(log, "a");

	if (!f)
		return;
	fprintf(f, fmt, a, b);
	fputc('\n', f);
	fclose(f);
}

static int checkpoint(const char *dir, unsigned long long n)
{
	char name[64], buf[32];
	int len = snprintf(buf, sizeof(buf), "%llu\n", n);

	snprintf(name, sizeof(name), "step_%llu", n);
	return gpurent_ckpt_write(dir, name, buf, (size_t)len);
}

int main(int argc, char **argv)
{
	const char *dir = getenv("GPURENT_CKPT_DIR"), *resume = getenv("GPURENT_RESUME");
	const char *att = getenv("GPURENT_ATTEMPT"), *rc = getenv("SLURM_RESTART_COUNT");
	unsigned long long total, every, unit_ms, done = 0;
	struct sigaction sa = {0};
	const char *log;

	if (argc != 5 || !dir) {
		fprintf(stderr, "usage: slurmjob TOTAL EVERY UNIT_MS LOG (under gpurent run --ckpt-dir)\n");
		return 2;
	}
	total = strtoull(argv[1], NULL, 10);
	every = strtoull(argv[2], NULL, 10);
	unit_ms = strtoull(argv[3], NULL, 10);
	log = argv[4];
	sa.sa_handler = on_sig;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (resume && *resume) {
		FILE *f = fopen(resume, "r");
		if (!f || fscanf(f, "%llu", &done) != 1) {
			fprintf(stderr, "slurmjob: cannot read %s\n", resume);
			return 3;
		}
		fclose(f);
	}
	say(log, "start %llu %llu", rc ? strtoull(rc, NULL, 10) : 0, done);
	(void)att;
	while (done < total) {
		struct timespec ts = {(time_t)(unit_ms / 1000), (long)(unit_ms % 1000) * 1000000L};
		while (nanosleep(&ts, &ts) < 0 && !stop)
			;
		done++;
		say(log, "unit %llu attempt %llu", done, rc ? strtoull(rc, NULL, 10) : 0);
		if (done % every == 0 || done == total || stop) {
			if (checkpoint(dir, done)) {
				perror("slurmjob: checkpoint");
				return 4;
			}
			say(log, "checkpoint %llu%.0llu", done, 0);
		}
		if (stop && done < total) {
			say(log, "signal %llu%.0llu", done, 0);
			printf("slurmjob: time limit near: checkpointed at unit %llu of %llu\n", done, total);
			return 0;
		}
	}
	say(log, "done %llu%.0llu", done, 0);
	printf("slurmjob: all %llu units done\n", total);
	return 0;
}
