/*
 * counter.c - the preemption drill's job: counts to a target, checkpoints
 * every N steps with include/gpurent_ckpt.h, resumes from $GPURENT_RESUME
 * and refuses (exit 99, "TORN" in the events file) a checkpoint that is
 * not whole. The checkpoint write is slow on purpose (32 chunks with a
 * pause between them) so that a kill can land in the middle of it.
 *
 *   counter TARGET EVERY STEP_US CKPT_DIR STATE
 *
 * STATE holds "STEP PHASE" (C computing, W writing a checkpoint), rewritten
 * in place at every step; STATE.events gets "start ATTEMPT RESUME_STEP",
 * "done STEP" or "TORN PATH"; STATE.pid the pid.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpurent_ckpt.h"

#define CHUNKS 32
#define CHUNK 2048

static uint64_t fnv(const unsigned char *p, size_t n, uint64_t h)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

static void fill(unsigned char *buf, uint64_t step)
{
	for (size_t i = 0; i < (size_t)CHUNKS * CHUNK; i++)
		buf[i] = (unsigned char)((step * 31 + i * 7) >> 3);
}

static void event(const char *state, const char *fmt, unsigned long long a, unsigned long long b)
{
	char path[4096], line[256];
	int fd, n;

	snprintf(path, sizeof(path), "%s.events", state);
	n = snprintf(line, sizeof(line), fmt, a, b);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644)) >= 0) {
		if (write(fd, line, (size_t)n) < 0)
			perror("events");
		fsync(fd);
		close(fd);
	}
}

/* Returns the step of a whole checkpoint, or exits 99 for a torn one. */
static uint64_t resume(const char *path, const char *state)
{
	static unsigned char buf[CHUNKS * CHUNK], want[CHUNKS * CHUNK];
	uint64_t step, sum;
	FILE *f = fopen(path, "rb");

	if (!f || fread(&step, sizeof(step), 1, f) != 1 || fread(buf, 1, sizeof(buf), f) != sizeof(buf) ||
	    fread(&sum, sizeof(sum), 1, f) != 1 || fgetc(f) != EOF ||
	    sum != fnv(buf, sizeof(buf), fnv((unsigned char *)&step, sizeof(step), 14695981039346656037ull))) {
		char p[4200];
		snprintf(p, sizeof(p), "TORN %s\n", path);
		event(state, p, 0, 0);
		fprintf(stderr, "counter: %s is torn\n", path);
		exit(99);
	}
	fclose(f);
	fill(want, step);
	if (memcmp(want, buf, sizeof(buf))) {
		event(state, "TORN content\n", 0, 0);
		exit(99);
	}
	return step;
}

static void progress(int fd, uint64_t step, char phase)
{
	char line[32];
	int n = snprintf(line, sizeof(line), "%020" PRIu64 " %c\n", step, phase);

	if (pwrite(fd, line, (size_t)n, 0) != n)
		perror("progress");
}

static int checkpoint(const char *dir, uint64_t step)
{
	static unsigned char buf[CHUNKS * CHUNK];
	struct gpurent_ckpt_file f;
	char name[64];
	uint64_t sum;

	fill(buf, step);
	sum = fnv(buf, sizeof(buf), fnv((unsigned char *)&step, sizeof(step), 14695981039346656037ull));
	snprintf(name, sizeof(name), "step_%" PRIu64 ".ckpt", step);
	if (gpurent_ckpt_begin(&f, dir, name) < 0)
		return -1;
	if (gpurent_ckpt_write_all(f.fd, &step, sizeof(step)) < 0)
		goto out_abort;
	for (int c = 0; c < CHUNKS; c++) {
		if (gpurent_ckpt_write_all(f.fd, buf + c * CHUNK, CHUNK) < 0)
			goto out_abort;
		usleep(1000);   /* a slow disk: room for a kill mid-write */
	}
	if (gpurent_ckpt_write_all(f.fd, &sum, sizeof(sum)) < 0)
		goto out_abort;
	return gpurent_ckpt_commit(&f);
out_abort:
	gpurent_ckpt_abort(&f);
	return -1;
}

int main(int argc, char **argv)
{
	uint64_t target, every, step = 0;
	const char *r = getenv("GPURENT_RESUME"), *a = getenv("GPURENT_ATTEMPT");
	char path[4096];
	long us;
	int fd;

	if (argc != 6) {
		fprintf(stderr, "usage: counter TARGET EVERY STEP_US CKPT_DIR STATE\n");
		return 2;
	}
	target = strtoull(argv[1], NULL, 10);
	every = strtoull(argv[2], NULL, 10);
	us = atol(argv[3]);
	snprintf(path, sizeof(path), "%s.pid", argv[5]);
	{
		FILE *pf = fopen(path, "w");
		if (pf) {
			fprintf(pf, "%ld\n", (long)getpid());
			fclose(pf);
		}
	}
	if (r && *r)
		step = resume(r, argv[5]);
	event(argv[5], "start %llu %llu\n", a ? strtoull(a, NULL, 10) : 0, (unsigned long long)step);
	printf("attempt %s resumes at step %" PRIu64 "\n", a ? a : "?", step);
	if ((fd = open(argv[5], O_WRONLY | O_CREAT, 0644)) < 0) {
		perror(argv[5]);
		return 1;
	}
	while (step < target) {
		step++;
		if (us > 0)
			usleep((useconds_t)us);
		progress(fd, step, 'C');
		if (step % every == 0) {
			progress(fd, step, 'W');
			if (checkpoint(argv[4], step) < 0) {
				perror("checkpoint");
				return 1;
			}
			progress(fd, step, 'C');
			printf("checkpoint %" PRIu64 "\n", step);
			fflush(stdout);
		}
	}
	close(fd);
	event(argv[5], "done %llu\n", (unsigned long long)step, 0);
	return 0;
}
