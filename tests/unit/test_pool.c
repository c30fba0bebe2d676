/*
 * test_pool.c - the thread pools (src/base/pool.c): the ordered pool gives
 * jobs back in submission order with a bounded window; the work queue runs
 * jobs that queue more jobs, every one exactly once, and workq_wait()
 * returns only when the whole tree of jobs has run.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "testutil.h"
#include "base/pool.h"

struct ojob {
	unsigned long n;
	unsigned long out;
};

static void square(void *worker, void *job)
{
	struct ojob *j = job;

	(void)worker;
	/* uneven work, so that later jobs often finish first */
	for (volatile unsigned long i = 0; i < (j->n % 7) * 2000; i++)
		;
	j->out = j->n * j->n;
}

static void test_pool_keeps_submission_order(void **state)
{
	enum { N = 500 };
	static struct ojob jobs[N];
	char err[128];
	struct pool *p;
	unsigned long sub = 0, got = 0, seq;

	(void)state;
	assert_null(pool_new(0, 4, square, NULL, err, sizeof(err)));
	assert_non_null(p = pool_new(3, 8, square, NULL, err, sizeof(err)));
	while (got < N) {
		while (sub < N && sub - got < 8) {
			jobs[sub].n = sub;
			assert_int_equal(pool_submit(p, &jobs[sub]), sub);
			sub++;
		}
		assert_true(pool_in_flight(p) <= 8);
		struct ojob *j = pool_next(p, &seq);
		assert_non_null(j);
		assert_int_equal(seq, got);
		assert_ptr_equal(j, &jobs[got]);
		assert_int_equal(j->out, got * got);
		got++;
	}
	assert_null(pool_next(p, NULL));
	pool_free(p);
}

/* A job of the tree: a node of depth d queues `fan` children until depth 0. */
struct tjob {
	struct workq_item item;
	unsigned depth, fan;
	unsigned long id;
};

struct tstate {
	atomic_ulong ran;
	atomic_ulong sum;          /* sum of the ids, each counted once */
	atomic_ulong next_id;
	atomic_uint threads_seen;  /* bit per worker that ran anything */
};

static struct tstate ts;

static void tree_job(struct workq *q, void *worker, struct workq_item *item)
{
	struct tjob *j = (struct tjob *)item;
	unsigned bit = *(unsigned *)worker;

	atomic_fetch_or(&ts.threads_seen, 1u << bit);
	atomic_fetch_add(&ts.ran, 1);
	atomic_fetch_add(&ts.sum, j->id);
	for (unsigned i = 0; j->depth && i < j->fan; i++) {
		struct tjob *c = malloc(sizeof(*c));
		assert_non_null(c);
		c->depth = j->depth - 1;
		c->fan = j->fan;
		c->id = atomic_fetch_add(&ts.next_id, 1);
		workq_push(q, &c->item);
	}
	for (volatile int i = 0; i < 3000; i++)
		;
	free(j);
}

static void test_workq_runs_every_job_of_a_tree(void **state)
{
	unsigned ids[4] = {0, 1, 2, 3};
	void *workers[4] = {&ids[0], &ids[1], &ids[2], &ids[3]};
	char err[128];
	struct workq *q;
	unsigned long total = 0, want_sum;

	(void)state;
	assert_null(workq_new(0, tree_job, NULL, err, sizeof(err)));
	assert_non_null(strstr(err, "1 to 256"));
	assert_non_null(q = workq_new(4, tree_job, workers, err, sizeof(err)));
	/* depth 5, fan 4: 1 + 4 + 16 + 64 + 256 + 1024 jobs */
	for (unsigned long k = 1; k <= 1024; k *= 4)
		total += k;
	for (int round = 0; round < 3; round++) {
		struct tjob *root = malloc(sizeof(*root));
		assert_non_null(root);
		atomic_store(&ts.ran, 0);
		atomic_store(&ts.sum, 0);
		atomic_store(&ts.next_id, 1);
		root->depth = 5;
		root->fan = 4;
		root->id = 0;
		workq_push(q, &root->item);
		workq_wait(q);
		/* after the wait, nothing is left and every job ran once */
		assert_int_equal(workq_queued(q), 0);
		assert_int_equal(atomic_load(&ts.ran), total);
		want_sum = (total - 1) * total / 2;   /* ids 0 .. total-1 */
		assert_int_equal(atomic_load(&ts.sum), want_sum);
	}
	/* waiting with nothing queued returns at once */
	workq_wait(q);
	workq_free(q);
	workq_free(NULL);
	assert_int_not_equal(atomic_load(&ts.threads_seen), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pool_keeps_submission_order),
		cmocka_unit_test(test_workq_runs_every_job_of_a_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
