/*
 * progress.h - the one progress line of long work (manifest, verify,
 * bench, bill import, plan over large catalogs): "LABEL: DONE / TOTAL,
 * N / M UNITS, RATE/s, T left" on stderr, redrawn every 200 ms by a thread
 * of its own once the work has taken a second, and only where a person
 * reads it: stderr a terminal (TERM set and not "dumb"), never in a pipe,
 * a log or --json. --progress forces it, --quiet turns it off
 * (progress_set_mode(), process-wide). Workers count with progress_add()
 * from any thread.
 */
#ifndef GPURENT_OS_PROGRESS_H
#define GPURENT_OS_PROGRESS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

enum progress_mode { PROGRESS_AUTO, PROGRESS_ALWAYS, PROGRESS_NEVER };

/* The mode of every later progress_begin() (default PROGRESS_AUTO). */
void progress_set_mode(enum progress_mode m);
enum progress_mode progress_get_mode(void);

struct progress {
	const char *label;        /* "manifest"; borrowed */
	const char *units;        /* what is counted: "files", "rows"; borrowed */
	uint64_t total_bytes;     /* 0: unknown */
	uint64_t total_units;     /* 0: unknown */
	_Atomic uint64_t bytes, done;
	/* private */
	atomic_bool stop;
	bool shown, running;
	double start, after;     /* after: seconds before the first draw (1; GPURENT_PROGRESS_AFTER) */
	pthread_t tid;
	pthread_mutex_t lock;
	pthread_cond_t wake;
};

/* Would progress_begin() draw here (the mode, stderr a terminal)? For work
 * that a total costs something to find (a walk of catalog folders). */
bool progress_wanted(void);

/*
 * Start the line for p (label, units and totals set, counters 0). Returns
 * true when it draws (call progress_end()), false when this is no place
 * for it; progress_end() is harmless either way.
 */
bool progress_begin(struct progress *p);

/* Count units and bytes done (any thread). */
static inline void progress_add(struct progress *p, uint64_t units, uint64_t bytes)
{
	if (units)
		atomic_fetch_add_explicit(&p->done, units, memory_order_relaxed);
	if (bytes)
		atomic_fetch_add_explicit(&p->bytes, bytes, memory_order_relaxed);
}

/* Stop the thread; the last line is drawn once more and ended with a
 * newline when it was shown at all. */
void progress_end(struct progress *p);

#endif
