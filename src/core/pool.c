/*
 * pool.c - the ordered thread pool (pool.h). In-flight jobs live in a ring
 * of window slots indexed by sequence number: submit fills the slot at
 * next_submit, workers claim slots at next_take, and pool_next waits for
 * the slot at next_out to be marked done. A poison pill is a slot with no
 * job; a worker that takes one exits.
 */
#include "pool.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct slot {
	void *job;                  /* NULL: poison pill */
	bool done;
};

struct worker_arg {
	struct pool *p;
	void *state;
};

struct pool {
	pthread_mutex_t lock;
	pthread_cond_t work;        /* a slot is ready to be taken */
	pthread_cond_t done;        /* the slot at next_out finished */
	pthread_cond_t space;       /* a slot was freed by pool_next */
	struct slot *ring;
	unsigned window;
	unsigned long next_submit, next_take, next_out;
	unsigned long pills;        /* poison pills queued, not yet taken */
	pool_work_fn fn;
	pthread_t *threads;
	struct worker_arg *args;
	unsigned nthreads;          /* threads started */
};

static void *worker_main(void *arg)
{
	struct worker_arg *wa = arg;
	struct pool *p = wa->p;

	for (;;) {
		unsigned long seq;
		void *job;

		pthread_mutex_lock(&p->lock);
		while (p->next_take == p->next_submit && !p->pills)
			pthread_cond_wait(&p->work, &p->lock);
		if (p->next_take == p->next_submit) {
			/* Jobs first, then the pill: every submitted job still runs. */
			p->pills--;
			pthread_mutex_unlock(&p->lock);
			return NULL;
		}
		seq = p->next_take++;
		job = p->ring[seq % p->window].job;
		pthread_mutex_unlock(&p->lock);

		p->fn(wa->state, job);

		pthread_mutex_lock(&p->lock);
		p->ring[seq % p->window].done = true;
		if (seq == p->next_out)
			pthread_cond_signal(&p->done);
		pthread_mutex_unlock(&p->lock);
	}
}

struct pool *pool_new(unsigned nthreads, unsigned window, pool_work_fn fn,
		      void **workers, char *err, size_t errlen)
{
	struct pool *p;

	if (nthreads < 1 || nthreads > 256 || window < 1) {
		snprintf(err, errlen, "pool: expected 1 to 256 threads and a window of at least 1");
		return NULL;
	}
	if (!(p = calloc(1, sizeof(*p))))
		goto out_oom;
	p->ring = calloc(window, sizeof(*p->ring));
	p->threads = calloc(nthreads, sizeof(*p->threads));
	p->args = calloc(nthreads, sizeof(*p->args));
	if (!p->ring || !p->threads || !p->args)
		goto out_free_arrays;
	p->window = window;
	p->fn = fn;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->work, NULL);
	pthread_cond_init(&p->done, NULL);
	pthread_cond_init(&p->space, NULL);
	for (unsigned i = 0; i < nthreads; i++) {
		p->args[i].p = p;
		p->args[i].state = workers ? workers[i] : NULL;
		if (pthread_create(&p->threads[i], NULL, worker_main, &p->args[i])) {
			snprintf(err, errlen, "pool: cannot start thread %u of %u", i + 1, nthreads);
			pool_free(p);
			return NULL;
		}
		p->nthreads++;
	}
	return p;
out_free_arrays:
	free(p->ring);
	free(p->threads);
	free(p->args);
	free(p);
out_oom:
	snprintf(err, errlen, "pool: out of memory");
	return NULL;
}

unsigned long pool_submit(struct pool *p, void *job)
{
	unsigned long seq;

	pthread_mutex_lock(&p->lock);
	while (p->next_submit - p->next_out >= p->window)
		pthread_cond_wait(&p->space, &p->lock);
	seq = p->next_submit++;
	p->ring[seq % p->window].job = job;
	p->ring[seq % p->window].done = false;
	pthread_cond_signal(&p->work);
	pthread_mutex_unlock(&p->lock);
	return seq;
}

void *pool_next(struct pool *p, unsigned long *seq)
{
	struct slot *s;
	void *job = NULL;

	pthread_mutex_lock(&p->lock);
	if (p->next_out == p->next_submit)
		goto out_unlock;
	s = &p->ring[p->next_out % p->window];
	while (!s->done)
		pthread_cond_wait(&p->done, &p->lock);
	job = s->job;
	if (seq)
		*seq = p->next_out;
	p->next_out++;
	pthread_cond_signal(&p->space);
out_unlock:
	pthread_mutex_unlock(&p->lock);
	return job;
}

unsigned long pool_in_flight(struct pool *p)
{
	unsigned long n;

	pthread_mutex_lock(&p->lock);
	n = p->next_submit - p->next_out;
	pthread_mutex_unlock(&p->lock);
	return n;
}

void pool_free(struct pool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->pills += p->nthreads;
	pthread_cond_broadcast(&p->work);
	pthread_mutex_unlock(&p->lock);
	for (unsigned i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	pthread_cond_destroy(&p->space);
	pthread_cond_destroy(&p->done);
	pthread_cond_destroy(&p->work);
	pthread_mutex_destroy(&p->lock);
	free(p->ring);
	free(p->threads);
	free(p->args);
	free(p);
}
