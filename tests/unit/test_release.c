/*
 * test_release.c - the plan of gpurent release (src/core/box/release.c):
 * --keep, duplicates, category order, the actions that release or only
 * stop, what a stop keeps billing; and the ledger's releases table
 * (src/store/ledger_release.c) (issue 16).
 */
#define LEDGERTEST_DIR "/tmp/gpurent-release-XXXXXX"
#include "testutil.h"
#include "ledgertest.h"
#include "core/box/release.h"

static void test_kept(void **state)
{
	const char *keep[] = {"/home/u/keep", "/data/"};

	(void)state;
	assert_true(release_kept("/home/u/keep", keep, 2));
	assert_true(release_kept("/home/u/keep/a/b", keep, 2));
	assert_false(release_kept("/home/u/keeper", keep, 2));
	assert_true(release_kept("/data/x", keep, 2));
	assert_false(release_kept("/home/u/.netrc", keep, 2));
	assert_false(release_kept("/x", NULL, 0));
	keep[0] = "/";
	assert_true(release_kept("/anything", keep, 1));
}

static void test_plan(void **state)
{
	struct rel_plan p = {0};
	const char *keep[] = {"/h/.ssh/id_keep"};
	char longp[600];

	(void)state;
	assert_int_equal(release_plan_add(&p, REL_HISTORY, "/h/.bash_history", keep, 1), 1);
	assert_int_equal(release_plan_add(&p, REL_PATH, "/w/scratch", keep, 1), 1);
	assert_int_equal(release_plan_add(&p, REL_CREDENTIAL, "/h/.netrc", keep, 1), 1);
	assert_int_equal(release_plan_add(&p, REL_CREDENTIAL, "/h/.ssh/id_keep", keep, 1), 0);
	assert_int_equal(release_plan_add(&p, REL_PATH, "/h/.netrc", keep, 1), 0);   /* already there */
	assert_int_equal(release_plan_add(&p, REL_LEFTOVER, "/tmp/big", keep, 1), 1);
	assert_int_equal(release_plan_add(&p, REL_CREDENTIAL, "/h/.aws/credentials", keep, 1), 1);
	memset(longp, 'a', sizeof(longp) - 1);
	longp[0] = '/';
	longp[sizeof(longp) - 1] = '\0';
	assert_int_equal(release_plan_add(&p, REL_PATH, longp, keep, 1), -1);
	release_plan_sort(&p);
	assert_int_equal(p.n, 5);
	assert_string_equal(p.v[0].path, "/h/.netrc");
	assert_string_equal(p.v[1].path, "/h/.aws/credentials");
	assert_int_equal(p.v[2].cat, REL_LEFTOVER);
	assert_int_equal(p.v[3].cat, REL_PATH);
	assert_int_equal(p.v[4].cat, REL_HISTORY);
	assert_string_equal(release_cat_name(REL_HISTORY), "history");
	release_plan_free(&p);
	assert_int_equal(p.n, 0);
}

/* release_action() of name in a slot of its own (a few at a time), or NULL */
static const struct rel_action *act(const char *name)
{
	static struct rel_action slot[4];
	static size_t next;
	struct rel_action *a = &slot[next++ % 4];

	return release_action(name, a) ? a : NULL;
}

static void test_actions(void **state)
{
	const struct rel_action *a;
	struct billing_profile runpod = {.storage_gb_month = 0.10, .storage_bills_stopped = true},
			       aws = {.storage_gb_month = 0.08, .storage_bills_stopped = true,
				      .stopped_per_hour = 0.005},
			       free_stop = {.storage_gb_month = 0.10, .storage_bills_stopped = false};

	(void)state;
	assert_non_null(a = act("runpod"));
	assert_int_equal(a->effect, REL_STOPS);
	assert_string_equal(a->better, "runpod-release");
	assert_int_equal(act("runpod-release")->effect, REL_RELEASES);
	assert_int_equal(act("vastai-release")->effect, REL_RELEASES);
	assert_int_equal(act("gcp-release")->effect, REL_RELEASES);
	assert_int_equal(act("slurm")->effect, REL_ENDS_JOB);   /* scancel releases nothing */
	assert_int_equal(act("autodl")->effect, REL_STOPS);
	assert_null(act("nosuch"));
	/* 24 x stopped_per_hour + GB x storage_gb_month / 30 */
	assert_float_equal(release_stopped_per_day(&runpod, 60), 0.2, 1e-12);
	assert_float_equal(release_stopped_per_day(&aws, 100), 0.12 + 100 * 0.08 / 30, 1e-12);
	assert_float_equal(release_stopped_per_day(&free_stop, 100), 0, 0);
	assert_non_null(release_histories[0]);
}

static void test_ledger(void **state)
{
	struct ledger *l = open_ok();
	struct ledger_release r = {.at = 1.7e9, .host = "box", .verify = "ok", .credentials = 3,
				   .leftovers = 1, .paths = 2, .histories = 1, .bytes = 1234,
				   .action = "runpod-release", .effect = "release", .status = "done",
				   .answer = "exit status 0"};
	char err[256];
	int64_t id = 0;
	sqlite3 *db;
	sqlite3_stmt *st;

	(void)state;
	assert_int_equal(ledger_release_add(l, &r, &id, err, sizeof(err)), 0);
	assert_true(id == 1);
	r.credentials = -1;
	assert_int_equal(ledger_release_add(l, &r, NULL, err, sizeof(err)), LEDGER_INVALID);
	r.credentials = 0;
	r.host = NULL;
	assert_int_equal(ledger_release_add(l, &r, NULL, err, sizeof(err)), LEDGER_INVALID);
	ledger_close(l);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT credentials, leftovers, paths, histories, bytes, action, "
					    "action_status, (SELECT count(*) FROM releases) FROM releases",
					    -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 3);
	assert_int_equal(sqlite3_column_int(st, 1), 1);
	assert_int_equal(sqlite3_column_int(st, 2), 2);
	assert_int_equal(sqlite3_column_int(st, 3), 1);
	assert_float_equal(sqlite3_column_double(st, 4), 1234, 0);
	assert_string_equal((const char *)sqlite3_column_text(st, 5), "runpod-release");
	assert_string_equal((const char *)sqlite3_column_text(st, 6), "done");
	assert_int_equal(sqlite3_column_int(st, 7), 1);
	sqlite3_finalize(st);
	sqlite3_close(db);
	sql("DELETE FROM releases WHERE id = 999");   /* the schema took plain SQL too */
}

/* issue 26: where release runs decides what it may delete */
static void test_scope(void **state)
{
	struct rel_host h = {.action = act("runpod-release")};

	(void)state;
	assert_int_equal(release_scope(&h), REL_SCOPE_WIPE);
	h.home_fstype = "nfs4";
	assert_int_equal(release_scope(&h), REL_SCOPE_NETWORK_HOME);
	h.slurm_job = "42";
	assert_int_equal(release_scope(&h), REL_SCOPE_SLURM_JOB);
	h.wipe = true;
	assert_int_equal(release_scope(&h), REL_SCOPE_WIPE);
	h = (struct rel_host){.action = act("slurm")};
	assert_int_equal(release_scope(&h), REL_SCOPE_STOP_ONLY);
	h.action = act("runpod");
	assert_int_equal(release_scope(&h), REL_SCOPE_STOP_ONLY);
	h.action = NULL;
	assert_int_equal(release_scope(&h), REL_SCOPE_NO_RELEASE);
	h.command = true;
	assert_int_equal(release_scope(&h), REL_SCOPE_WIPE);
	assert_true(release_network_fs("nfs"));
	assert_true(release_network_fs("lustre"));
	assert_true(release_network_fs("gpfs"));
	assert_true(release_network_fs("beegfs"));
	assert_true(release_network_fs("fuse.sshfs"));
	assert_false(release_network_fs("ext4"));
	assert_false(release_network_fs("tmpfs"));
	assert_false(release_network_fs("overlay"));
	assert_false(release_network_fs(NULL));
	assert_true(release_within("/a/b", "/a"));
	assert_true(release_within("/a", "/a"));
	assert_false(release_within("/ab", "/a"));
	assert_true(release_within("/x", "/"));
}

static void test_mounts(void **state)
{
	static const char info[] =
		"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
		"40 22 0:50 / /home rw,relatime shared:20 master:3 - nfs4 fs01:/export/home rw,vers=4.2\n"
		"41 22 0:51 / /scratch\\040space rw - lustre 10.0.0.1@o2ib:/scratch rw\n"
		"garbage\n";
	static const char mounts[] = "/dev/sda1 / ext4 rw 0 0\nsrv:/h /home/u beegfs rw 0 0\n";
	char mnt[64], type[16], src[64];
	bool mp = true;

	(void)state;
	assert_int_equal(release_mount_of(info, strlen(info), "/home/u", mnt, sizeof(mnt), type, sizeof(type),
					  src, sizeof(src), &mp), 1);
	assert_string_equal(mnt, "/home");
	assert_string_equal(type, "nfs4");
	assert_string_equal(src, "fs01:/export/home");
	assert_false(mp);
	assert_int_equal(release_mount_of(info, strlen(info), "/scratch space", mnt, sizeof(mnt), type,
					  sizeof(type), src, sizeof(src), &mp), 1);
	assert_string_equal(type, "lustre");
	assert_true(mp);
	assert_int_equal(release_mount_of(info, strlen(info), "/homeless", mnt, sizeof(mnt), type,
					  sizeof(type), src, sizeof(src), &mp), 1);
	assert_string_equal(type, "ext4");
	assert_int_equal(release_mount_of(mounts, strlen(mounts), "/home/u/.netrc", mnt, sizeof(mnt), type,
					  sizeof(type), src, sizeof(src), NULL), 1);
	assert_string_equal(type, "beegfs");
	assert_int_equal(release_mount_of("", 0, "/x", mnt, sizeof(mnt), type, sizeof(type), src, sizeof(src),
					  NULL), 0);
}

static void test_leftovers(void **state)
{
	static const char good[] = "# c\npreset,keeps,remove,source\naws-release,ips,aws ec2 release-address,https://x\n";
	static const char stop[] = "preset,keeps,remove,source\nrunpod,v,r,s\n";
	static const char empty[] = "preset,keeps,remove,source\naws-release,,r,s\n";
	struct rel_leftovers l;
	char err[256];

	(void)state;
	assert_int_equal(release_leftovers_load(good, strlen(good), "f.csv", &l, err, sizeof(err)), 0);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0].remove, "aws ec2 release-address");
	release_leftovers_free(&l);
	assert_int_equal(release_leftovers_load(stop, strlen(stop), "f.csv", &l, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "f.csv:2: preset: expected a preset that releases"));
	assert_int_equal(release_leftovers_load(empty, strlen(empty), "f.csv", &l, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "f.csv:2: keeps: expected a value"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kept),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_actions),
		cmocka_unit_test(test_scope),
		cmocka_unit_test(test_mounts),
		cmocka_unit_test(test_leftovers),
		cmocka_unit_test_setup_teardown(test_ledger, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
