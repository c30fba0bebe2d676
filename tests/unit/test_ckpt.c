/*
 * test_ckpt.c - choosing the checkpoint to resume from (src/core/box/ckpt.c):
 * numeric step order, temp files, torn files, markers, prune; and the
 * public header include/gpurent_ckpt.h agreeing with the core on the same
 * names and on a real directory.
 */
#include "testutil.h"

#include <sys/stat.h>
#include <unistd.h>

#include "../../include/gpurent_ckpt.h"
#include "core/box/ckpt.h"

#define E(name) {name, false, false, false, 0}

static void test_step_numbers(void **s)
{
	static const struct {
		const char *name;
		bool has;
		uint64_t step;
	} cases[] = {
		{"step_1000.pt", true, 1000},
		{"step_999.pt", true, 999},
		{"epoch=3-step=1000.ckpt", true, 1000},
		{"checkpoint-500", true, 500},
		{"model_v2.h5", true, 2},
		{"ckpt_000120.pt", true, 120},
		{"step_7.tar.gz", true, 7},
		{"step_0", true, 0},
		{"global_step42.safetensors", true, 42},
		{"latest", false, 0},
		{"last.ckpt", false, 0},
		{"step_123456789012345678901.pt", false, 0},   /* 21 digits */
	};
	(void)s;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t step = 12345;
		unsigned long long hs = 12345;
		bool has = ckpt_name_step(cases[i].name, &step);
		assert_int_equal(has, cases[i].has);
		if (has)
			assert_int_equal(step, cases[i].step);
		/* the public header says the same */
		assert_int_equal(gpurent_ckpt_step(cases[i].name, &hs), has);
		if (has)
			assert_int_equal(hs, cases[i].step);
	}
}

static void test_temp_names(void **s)
{
	static const struct {
		const char *name;
		bool temp;
	} cases[] = {
		{".step_10.pt.tmp.Ab3xYz", true},     /* the header's own protocol */
		{"step_10.pt.tmp", true},
		{"step_10.tmp.pt", true},
		{"step_10.pt~", true},
		{"step_10.pt.part", true},
		{"step_10.pt.partial", true},
		{"step_10.incomplete", true},
		{"tmpk2j3h4", true},                  /* Python's tempfile */
		{"step_10.pt.Xy12Z9", true},          /* mkstemp's suffix */
		{"step_10.pt", false},
		{"step_10.ckpt", false},
		{"step_10.safetensors", false},
		{"step_10.pickle", false},            /* six lower-case letters: an extension */
		{"checkpoint-500", false},
	};
	(void)s;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(ckpt_name_is_temp(cases[i].name), cases[i].temp);
		assert_int_equal(gpurent_ckpt_is_temp(cases[i].name), cases[i].temp);
	}
}

/* step_1000 comes after step_999, though "step_999" > "step_1000" as text. */
static void test_numeric_not_lexical(void **s)
{
	struct ckpt_entry e[] = {E("step_999.pt"), E("step_1000.pt"), E("step_99.pt"), E("README")};
	(void)s;
	assert_int_equal(ckpt_latest(e, 4), 1);
}

static void test_temp_and_torn_ignored(void **s)
{
	struct ckpt_entry e[] = {
		E("step_100.pt"), E(".step_300.pt.tmp.AbC123"), E("step_200.pt"), E("step_400.pt.partial"),
		{"step_250.pt", false, true, false, 0},   /* empty: a torn write */
	};
	struct ckpt_class c[5];
	(void)s;
	assert_false(ckpt_classify(e, 5, c));
	assert_int_equal(c[1].kind, CKPT_TEMP);
	assert_int_equal(c[1].code, CKPT_WHY_TEMP);
	assert_int_equal(c[3].kind, CKPT_TEMP);
	assert_int_equal(c[4].kind, CKPT_TORN);
	assert_int_equal(c[4].code, CKPT_WHY_EMPTY_FILE);
	assert_int_equal(c[2].kind, CKPT_COMPLETE);
	assert_int_equal(c[2].code, CKPT_WHY_NONE);
	for (int i = 0; i < 5; i++)
		assert_null(c[i].why);   /* the words are the command layer's */
	assert_int_equal(ckpt_latest(e, 5), 2);
	assert_int_equal(ckpt_latest(e, 0), -1);
	assert_int_equal(ckpt_latest(e + 1, 1), -1);
}

/* Where the writer uses markers, an entry without one is torn. */
static void test_markers(void **s)
{
	struct ckpt_entry files[] = {
		E("step_1000.pt"), E("step_1000.pt.complete"), E("step_1100.pt"), E("step_900.pt"),
		E("step_900.pt.DONE"), E("step_1200.pt.done"),   /* an orphan marker: nothing to mark */
	};
	struct ckpt_entry dirs[] = {
		{"checkpoint-500", true, false, true, 0},
		{"checkpoint-600", true, false, false, 0},   /* still being written */
		{"checkpoint-400", true, false, true, 0},
	};
	struct ckpt_entry plain_dirs[] = {
		{"checkpoint-500", true, false, false, 0},
		{"checkpoint-600", true, true, false, 0},    /* empty directory */
	};
	struct ckpt_class c[6];
	(void)s;
	assert_true(ckpt_classify(files, 6, c));
	assert_int_equal(c[1].kind, CKPT_MARKER);
	assert_int_equal(c[1].code, CKPT_WHY_NONE);
	assert_int_equal(c[2].kind, CKPT_TORN);
	assert_int_equal(c[2].code, CKPT_WHY_NO_MARKER);
	assert_int_equal(c[5].kind, CKPT_MARKER);
	assert_true(ckpt_classify(dirs, 3, c));
	assert_int_equal(c[1].code, CKPT_WHY_NO_MARKER);
	assert_false(ckpt_classify(plain_dirs, 2, c));
	assert_int_equal(c[1].kind, CKPT_TORN);
	assert_int_equal(c[1].code, CKPT_WHY_EMPTY_DIR);
	{
		struct ckpt_entry other = E("README.md");
		ckpt_classify(&other, 1, c);
		assert_int_equal(c[0].kind, CKPT_OTHER);
		assert_int_equal(c[0].code, CKPT_WHY_NO_STEP);
	}
	for (int i = 0; i < CKPT_WHY_COUNT; i++)
		assert_string_not_equal(ckpt_why_name(i), "?");
	assert_string_equal(ckpt_why_name(CKPT_WHY_COUNT), "?");
	assert_int_equal(ckpt_latest(files, 6), 0);
	assert_int_equal(ckpt_latest(dirs, 3), 0);
	assert_int_equal(ckpt_latest(plain_dirs, 2), 0);
	assert_true(ckpt_is_dir_marker("COMPLETE"));
	assert_true(ckpt_is_dir_marker(".metadata"));
	assert_false(ckpt_is_dir_marker("model.safetensors"));
	assert_int_equal(ckpt_name_marker_base("a.pt.complete"), 4);
	assert_int_equal(ckpt_name_marker_base("a.pt.DONE"), 4);
	assert_int_equal(ckpt_name_marker_base(".complete"), 0);
}

static void test_equal_steps(void **s)
{
	struct ckpt_entry e[] = {
		{"run1_step_50.pt", false, false, false, 200},
		{"run2_step_50.pt", false, false, false, 100},
	};
	(void)s;
	assert_int_equal(ckpt_latest(e, 2), 0);   /* the later write wins */
	e[1].mtime_ns = 200;
	assert_int_equal(ckpt_latest(e, 2), 1);   /* then the name */
}

static bool chosen(const size_t *v, size_t n, size_t idx)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == idx)
			return true;
	return false;
}

static void test_prune(void **s)
{
	struct ckpt_entry e[] = {
		{"step_100.pt", false, false, false, 1},            /* 0 complete */
		{"step_200.pt", false, false, false, 2},            /* 1 complete */
		{"step_300.pt", false, false, false, 3},            /* 2 complete */
		{"step_1000.pt", false, false, false, 10},          /* 3 complete, newest */
		{"step_400.pt", false, false, false, 4},            /* 4 complete */
		{"step_250.pt", false, true, false, 5},             /* 5 torn, older than newest */
		{"step_2000.pt", false, true, false, 20},           /* 6 torn, newer: a write in progress */
		{".step_150.pt.tmp.Ab12Cd", false, false, false, 5}, /* 7 stale protocol temp */
		{".step_1100.pt.tmp.Ab12Cd", false, false, false, 11}, /* 8 temp being written */
		{"notes.txt~", false, false, false, 1},             /* 9 someone else's temp */
		{"README", false, false, false, 1},                 /* 10 */
	};
	size_t v[11], n;
	(void)s;
	n = ckpt_prune(e, 11, 2, v);
	assert_int_equal(n, 5);
	assert_true(chosen(v, n, 0) && chosen(v, n, 1) && chosen(v, n, 2));
	assert_false(chosen(v, n, 3) || chosen(v, n, 4));   /* the two newest: 1000, 400 */
	assert_true(chosen(v, n, 5));
	assert_false(chosen(v, n, 6));
	assert_true(chosen(v, n, 7));
	assert_false(chosen(v, n, 8) || chosen(v, n, 9) || chosen(v, n, 10));
	assert_int_equal(ckpt_prune(e, 11, 0, v), 0);      /* keep >= 1 */
	assert_int_equal(ckpt_prune(e, 11, 100, v), 2);    /* only torn and stale temp */
}

static void test_prune_takes_markers(void **s)
{
	struct ckpt_entry e[] = {
		E("step_1.pt"), E("step_1.pt.complete"), E("step_2.pt"), E("step_2.pt.complete"),
	};
	size_t v[4], n;
	(void)s;
	n = ckpt_prune(e, 4, 1, v);
	assert_int_equal(n, 2);
	assert_true(chosen(v, n, 0) && chosen(v, n, 1));
}

/* The header on a real directory: atomic writes, latest, agreement with the core. */
static void test_header_on_disk(void **s)
{
	char dir[] = "/tmp/gpurent-ckpt-XXXXXX", path[GPURENT_CKPT_PATH_MAX], p[600];
	unsigned long long step = 0;
	struct gpurent_ckpt_file f;
	struct stat st;
	FILE *fp;
	(void)s;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(gpurent_ckpt_latest(dir, path, sizeof(path), &step), 0);
	assert_int_equal(gpurent_ckpt_write(dir, "step_999.bin", "abc", 3), 0);
	assert_int_equal(gpurent_ckpt_write(dir, "step_1000.bin", "defg", 4), 0);
	/* a write left half done: a temp file and an empty final name */
	assert_int_equal(gpurent_ckpt_begin(&f, dir, "step_2000.bin"), 0);
	assert_int_equal(gpurent_ckpt_write_all(f.fd, "xx", 2), 0);
	snprintf(p, sizeof(p), "%s/step_1500.bin", dir);
	fp = fopen(p, "w");
	assert_non_null(fp);
	fclose(fp);
	assert_int_equal(gpurent_ckpt_latest(dir, path, sizeof(path), &step), 1);
	assert_int_equal(step, 1000);
	snprintf(p, sizeof(p), "%s/step_1000.bin", dir);
	assert_string_equal(path, p);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_size, 4);
	gpurent_ckpt_abort(&f);
	assert_int_equal(stat(f.tmp, &st), -1);
	/* markers: once one exists, only marked checkpoints count */
	snprintf(p, sizeof(p), "%s/step_999.bin.complete", dir);
	fp = fopen(p, "w");
	assert_non_null(fp);
	fclose(fp);
	assert_int_equal(gpurent_ckpt_latest(dir, path, sizeof(path), &step), 1);
	assert_int_equal(step, 999);
	assert_int_equal(gpurent_ckpt_latest("/nonexistent/dir", path, sizeof(path), &step), 0);
	/* errors */
	assert_int_equal(gpurent_ckpt_write(dir, "a/b", "x", 1), -1);
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	assert_int_equal(system(p), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_step_numbers),
		cmocka_unit_test(test_temp_names),
		cmocka_unit_test(test_numeric_not_lexical),
		cmocka_unit_test(test_temp_and_torn_ignored),
		cmocka_unit_test(test_markers),
		cmocka_unit_test(test_equal_steps),
		cmocka_unit_test(test_prune),
		cmocka_unit_test(test_prune_takes_markers),
		cmocka_unit_test(test_header_on_disk),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
