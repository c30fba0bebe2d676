/*
 * pool.h - a small pthread thread pool in the spirit of pigz's yarn.h:
 * the caller submits jobs, each tagged with a sequence number, workers run
 * them in any order, and the caller takes the finished jobs back in
 * submission order. A poison pill per worker stops the pool. Below it, an
 * unordered work queue whose jobs may queue more jobs (workq_*).
 */
#ifndef GPURENT_POOL_H
#define GPURENT_POOL_H

#include <stddef.h>

struct pool;

/*
 * Runs one job on a worker thread. worker is that thread's own state (the
 * workers[i] given to pool_new, e.g. a hash context and a read buffer);
 * job is what pool_submit() was given.
 */
typedef void (*pool_work_fn)(void *worker, void *job);

/*
 * Start nthreads workers (1..256). At most window jobs (>= 1) are in flight
 * (submitted and not yet taken back), which bounds memory and lets the
 * caller keep one slot per job. workers[i] is passed to fn on thread i;
 * the array and what it points to are borrowed until pool_free(). Returns
 * the pool, or NULL with a message in err; the caller frees it with
 * pool_free().
 */
struct pool *pool_new(unsigned nthreads, unsigned window, pool_work_fn fn,
		      void **workers, char *err, size_t errlen);

/*
 * Queue job (not NULL; borrowed until pool_next() returns it); blocks
 * while window jobs are in flight. Returns the job's sequence number
 * (0, 1, 2, ...). Call from one thread only, the one that calls
 * pool_next().
 */
unsigned long pool_submit(struct pool *p, void *job);

/*
 * The next finished job in submission order, waiting for it if needed;
 * NULL when nothing is in flight. *seq (if not NULL) gets its number.
 */
void *pool_next(struct pool *p, unsigned long *seq);

/* Number of jobs submitted and not yet taken back. */
unsigned long pool_in_flight(struct pool *p);

/*
 * Stop the workers (one poison pill each, queued after every job already
 * submitted, so those still run), join them and free the pool. Jobs still
 * in flight are not returned. NULL is ignored.
 */
void pool_free(struct pool *p);

/*
 * A work queue for jobs that make more jobs (a directory walk: listing a
 * directory queues its subdirectories and batches of its files). Unordered:
 * the newest job runs first (depth first, so few directories are open at
 * once). A job is any struct that begins with a struct workq_item; the
 * queue links it through that item and never allocates, so pushing cannot
 * fail.
 */
struct workq;
struct workq_item {
	struct workq_item *next;   /* the queue's; the owner never touches it */
};

/*
 * Runs one job on a worker thread: worker is that thread's own state
 * (workers[i] given to workq_new), item the job pushed (its owner again:
 * fn frees or reuses it). fn may call workq_push().
 */
typedef void (*workq_fn)(struct workq *q, void *worker, struct workq_item *item);

/*
 * Start nthreads workers (1..256) that wait for jobs. workers (may be NULL)
 * and what it points to are borrowed until workq_free(). Returns the
 * queue, or NULL with a message in err; free it with workq_free().
 */
struct workq *workq_new(unsigned nthreads, workq_fn fn, void **workers, char *err, size_t errlen);

/* Queue item (borrowed until fn is given it), from any thread; never blocks. */
void workq_push(struct workq *q, struct workq_item *item);

/* Jobs queued and not yet taken by a worker (a hint: it changes at once). */
unsigned long workq_queued(struct workq *q);

/* Wait until every job pushed, and every job those pushed, has run. */
void workq_wait(struct workq *q);

/*
 * Stop and join the workers and free the queue. Call after workq_wait():
 * jobs still queued are not run (nor freed). NULL is ignored.
 */
void workq_free(struct workq *q);

#endif
