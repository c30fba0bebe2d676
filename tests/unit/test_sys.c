/*
 * test_sys.c - usable CPUs and memory (src/os/sys.c) against fake cgroup
 * trees: v2 cpu.max, v1 cfs quota/period, both, none; memory limits.
 */
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "os/sys.h"

static char root[256];

static int make_root(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/gpurent-sys-XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int remove_root(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

/* Write text to root/name (making root/cpu and root/memory as needed). */
static void put(const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cpu", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/memory", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s", root, name);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

static void drop(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, name);
	unlink(path);
}

static void test_cgroup_v2_cpu_max(void **state)
{
	(void)state;
	put("cpu.max", "200000 100000\n");
	assert_int_equal(sys_cgroup_cpus(root), 2);
	put("cpu.max", "150000 100000\n");   /* 1.5 CPUs: 2 threads */
	assert_int_equal(sys_cgroup_cpus(root), 2);
	put("cpu.max", "50000 100000\n");
	assert_int_equal(sys_cgroup_cpus(root), 1);
	put("cpu.max", "max 100000\n");
	assert_int_equal(sys_cgroup_cpus(root), -1);
	put("cpu.max", "junk\n");
	assert_int_equal(sys_cgroup_cpus(root), -1);
	drop("cpu.max");
	assert_int_equal(sys_cgroup_cpus(root), -1);
}

static void test_cgroup_v1_and_both(void **state)
{
	(void)state;
	put("cpu/cpu.cfs_quota_us", "400000\n");
	put("cpu/cpu.cfs_period_us", "100000\n");
	assert_int_equal(sys_cgroup_cpus(root), 4);
	put("cpu/cpu.cfs_quota_us", "-1\n");
	assert_int_equal(sys_cgroup_cpus(root), -1);
	put("cpu/cpu.cfs_quota_us", "300000\n");
	put("cpu.max", "200000 100000\n");   /* both: the smaller */
	assert_int_equal(sys_cgroup_cpus(root), 2);
	put("cpu.max", "800000 100000\n");
	assert_int_equal(sys_cgroup_cpus(root), 3);
	drop("cpu.max");
	drop("cpu/cpu.cfs_quota_us");
	drop("cpu/cpu.cfs_period_us");
}

static void test_usable_cpus_honours_the_quota(void **state)
{
	(void)state;
	setenv("GPURENT_CGROUP_ROOT", root, 1);
	put("cpu.max", "100000 100000\n");
	assert_int_equal(sys_usable_cpus(), 1);
	put("cpu.max", "max 100000\n");
	assert_true(sys_usable_cpus() >= 1);
	drop("cpu.max");
	unsetenv("GPURENT_CGROUP_ROOT");
	assert_true(sys_usable_cpus() >= 1);
}

static void test_memory_limits(void **state)
{
	struct sys_memory m;

	(void)state;
	assert_int_equal(sys_cgroup_memory(root), 0);
	put("memory.max", "max\n");
	assert_int_equal(sys_cgroup_memory(root), 0);
	put("memory.max", "1073741824\n");
	put("memory.current", "268435456\n");
	assert_int_equal(sys_cgroup_memory(root), 1073741824);
	assert_int_equal(sys_cgroup_memory_used(root), 268435456);
	setenv("GPURENT_CGROUP_ROOT", root, 1);
	sys_memory(&m);
	if (m.host > 1073741824) {   /* a host with more than 1 GiB: the limit wins */
		assert_true(m.limited);
		assert_int_equal(m.total, 1073741824);
		assert_int_equal(sys_usable_memory(), 1073741824);
		assert_true(m.avail <= 1073741824 - 268435456);
	}
	unsetenv("GPURENT_CGROUP_ROOT");
	drop("memory.max");
	drop("memory.current");
	put("memory/memory.limit_in_bytes", "9223372036854771712\n");   /* v1 "unlimited" */
	assert_int_equal(sys_cgroup_memory(root), 0);
	put("memory/memory.limit_in_bytes", "2147483648\n");
	assert_int_equal(sys_cgroup_memory(root), 2147483648u);
	drop("memory/memory.limit_in_bytes");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cgroup_v2_cpu_max),
		cmocka_unit_test(test_cgroup_v1_and_both),
		cmocka_unit_test(test_usable_cpus_honours_the_quota),
		cmocka_unit_test(test_memory_limits),
	};
	return cmocka_run_group_tests(tests, make_root, remove_root);
}
