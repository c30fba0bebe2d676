/*
 * pool.c - the ordered thread pool (pool.h). In-flight jobs live in a ring
 * of window slots indexed by sequence number: submit fills the slot at
 * next_submit, workers claim slots at next_take, and pool_next waits for
 * the slot at next_out to be marked done. A poison pill is a slot with no
 * job; a worker that takes one exits.
 */
#include "base/pool.h"
#include "base/i18n.h"

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
		snprintf(err, errlen, _("pool: expected 1 to 256 threads and a window of at least 1"));
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
			snprintf(err, errlen, _("pool: cannot start thread %u of %u"), i + 1, nthreads);
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
	snprintf(err, errlen, _("pool: out of memory"));
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

/* ---- the work queue (pool.h): a stack of intrusive items under one lock ---- */

struct workq_arg {
	struct workq *q;
	void *state;
};

struct workq {
	pthread_mutex_t lock;
	pthread_cond_t work;        /* a job was pushed, or quit */
	pthread_cond_t idle;        /* nothing queued and nothing running */
	struct workq_item *top;
	unsigned long queued, running;
	bool quit;
	workq_fn fn;
	pthread_t *threads;
	struct workq_arg *args;
	unsigned nthreads;
};

static void *workq_main(void *arg)
{
	struct workq_arg *wa = arg;
	struct workq *q = wa->q;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		struct workq_item *it;

		while (!q->top && !q->quit)
			pthread_cond_wait(&q->work, &q->lock);
		if (q->quit)
			break;
		it = q->top;
		q->top = it->next;
		q->queued--;
		q->running++;
		pthread_mutex_unlock(&q->lock);

		q->fn(q, wa->state, it);

		pthread_mutex_lock(&q->lock);
		if (!--q->running && !q->top)
			pthread_cond_broadcast(&q->idle);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

struct workq *workq_new(unsigned nthreads, workq_fn fn, void **workers, char *err, size_t errlen)
{
	struct workq *q;
	struct workq_arg *args;

	if (nthreads < 1 || nthreads > 256) {
		snprintf(err, errlen, _("workq: expected 1 to 256 threads"));
		return NULL;
	}
	q = calloc(1, sizeof(*q));
	args = calloc(nthreads, sizeof(*args));
	if (q)
		q->threads = calloc(nthreads, sizeof(*q->threads));
	if (!q || !args || !q->threads) {
		if (q)
			free(q->threads);
		free(q);
		free(args);
		snprintf(err, errlen, _("workq: out of memory"));
		return NULL;
	}
	q->args = args;
	q->fn = fn;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->work, NULL);
	pthread_cond_init(&q->idle, NULL);
	for (unsigned i = 0; i < nthreads; i++) {
		args[i].q = q;
		args[i].state = workers ? workers[i] : NULL;
		if (pthread_create(&q->threads[i], NULL, workq_main, &args[i])) {
			snprintf(err, errlen, _("workq: cannot start thread %u of %u"), i + 1, nthreads);
			workq_free(q);
			return NULL;
		}
		q->nthreads++;
	}
	return q;
}

void workq_push(struct workq *q, struct workq_item *item)
{
	pthread_mutex_lock(&q->lock);
	item->next = q->top;
	q->top = item;
	q->queued++;
	pthread_cond_signal(&q->work);
	pthread_mutex_unlock(&q->lock);
}

unsigned long workq_queued(struct workq *q)
{
	unsigned long n;

	pthread_mutex_lock(&q->lock);
	n = q->queued;
	pthread_mutex_unlock(&q->lock);
	return n;
}

void workq_wait(struct workq *q)
{
	pthread_mutex_lock(&q->lock);
	while (q->top || q->running)
		pthread_cond_wait(&q->idle, &q->lock);
	pthread_mutex_unlock(&q->lock);
}

void workq_free(struct workq *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	q->quit = true;
	pthread_cond_broadcast(&q->work);
	pthread_mutex_unlock(&q->lock);
	for (unsigned i = 0; i < q->nthreads; i++)
		pthread_join(q->threads[i], NULL);
	pthread_cond_destroy(&q->idle);
	pthread_cond_destroy(&q->work);
	pthread_mutex_destroy(&q->lock);
	free(q->threads);
	free(q->args);
	free(q);
}
