/*
 * progress.c - the progress line (progress.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "os/progress.h"
#include "base/i18n.h"   /* the words of the line: stderr, a terminal only */
#include "core/text/units.h"
#include "base/util.h"

static _Atomic int mode = PROGRESS_AUTO;

void progress_set_mode(enum progress_mode m)
{
	atomic_store(&mode, (int)m);
}

enum progress_mode progress_get_mode(void)
{
	return (enum progress_mode)atomic_load(&mode);
}

static double since(double t0)
{
	return util_now_mono() - t0;
}

/* "8 s", "3 min", "1.5 h" for the time left. */
static void fmt_left(double s, char *out, size_t n)
{
	if (s < 90)
		snprintf(out, n, "%.0f s", s);
	else if (s < 5400)
		snprintf(out, n, "%.0f min", s / 60);
	else
		snprintf(out, n, "%.1f h", s / 3600);
}

static void draw(struct progress *p, bool last)
{
	char done[32], all[32], rate[32], left[32] = "";
	double t = since(p->start);
	uint64_t b = atomic_load(&p->bytes), u = atomic_load(&p->done);
	double frac = p->total_bytes ? (double)b / (double)p->total_bytes :
		      p->total_units ? (double)u / (double)p->total_units : 0;

	units_fmt_bytes((double)b, done, sizeof(done));
	units_fmt_bytes((double)p->total_bytes, all, sizeof(all));
	units_fmt_bytes(t > 0 ? (double)b / t : 0, rate, sizeof(rate));
	if (!last && frac > 0.001 && frac < 1 && t > 0)
		fmt_left(t * (1 - frac) / frac, left, sizeof(left));
	fputc('\r', stderr);
	if (p->total_bytes)
		fprintf(stderr, "%s: %s / %s, ", p->label, done, all);
	else if (b)
		fprintf(stderr, "%s: %s, ", p->label, done);
	else
		fprintf(stderr, "%s: ", p->label);
	if (p->total_units)
		fprintf(stderr, "%llu / %llu %s", (unsigned long long)u, (unsigned long long)p->total_units,
			p->units ? _(p->units) : "");
	else
		fprintf(stderr, "%llu %s", (unsigned long long)u, p->units ? _(p->units) : "");
	if (b)
		fprintf(stderr, ", %s/s", rate);
	if (left[0])
		fprintf(stderr, _(", %s left"), left);
	fputs("   ", stderr);   /* over the tail of a longer line before */
	if (last)
		fputc('\n', stderr);
	fflush(stderr);
	p->shown = true;
}

static void *run(void *arg)
{
	struct progress *p = arg;
	struct timespec until;

	pthread_mutex_lock(&p->lock);
	while (!atomic_load(&p->stop)) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 200 * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&p->wake, &p->lock, &until);
		if (!atomic_load(&p->stop) && since(p->start) >= p->after)
			draw(p, false);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

bool progress_wanted(void)
{
	const char *term = getenv("TERM");
	enum progress_mode m = progress_get_mode();

	if (m == PROGRESS_NEVER)
		return false;
	return m == PROGRESS_ALWAYS || (isatty(STDERR_FILENO) && term && strcmp(term, "dumb"));
}

bool progress_begin(struct progress *p)
{
	const char *after = getenv("GPURENT_PROGRESS_AFTER");
	char *end;

	p->start = util_now_mono();
	p->running = p->shown = false;
	/* the tests' knob: draw from the first tick, not after a second */
	p->after = 1.0;
	if (after && *after) {
		double a = strtod(after, &end);
		if (!*end && a >= 0 && a <= 60)
			p->after = a;
	}
	atomic_store(&p->stop, false);
	if (!progress_wanted())
		return false;
	if (p->after == 0)
		draw(p, false);   /* before the thread: one writer at a time */
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	if (pthread_create(&p->tid, NULL, run, p)) {
		pthread_cond_destroy(&p->wake);
		pthread_mutex_destroy(&p->lock);
		return false;
	}
	p->running = true;
	return true;
}

void progress_end(struct progress *p)
{
	if (!p->running)
		return;
	pthread_mutex_lock(&p->lock);
	atomic_store(&p->stop, true);
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->tid, NULL);
	if (p->shown)
		draw(p, true);
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	p->running = false;
}
