/*
 * sys.c - usable CPUs and memory (sys.h): affinity, cgroup v2 and v1
 * quotas and limits, /proc/meminfo.
 */
#define _GNU_SOURCE   /* sched_getaffinity, CPU_COUNT */
#include "os/sys.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *sys_cgroup_root(void)
{
	const char *r = getenv("GPURENT_CGROUP_ROOT");

	return r && *r ? r : "/sys/fs/cgroup";
}

/* First line of root/name into buf, without its newline; -1 if unreadable. */
static int read_line(const char *root, const char *name, char *buf, size_t n)
{
	char path[4096];
	FILE *fp;
	int rc = -1;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", root, name) >= sizeof(path))
		return -1;
	if (!(fp = fopen(path, "re")))
		return -1;
	if (fgets(buf, (int)n, fp)) {
		buf[strcspn(buf, "\n")] = '\0';
		rc = 0;
	}
	fclose(fp);
	return rc;
}

/* A positive finite number of line, else 0 ("max", -1, junk). */
static double positive(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	return end != s && isfinite(v) && v > 0 ? v : 0;
}

/* ceil(quota / period), or -1 when either is not a positive number. */
static long quota_cpus(double quota, double period)
{
	double n;

	if (!(quota > 0) || !(period > 0))
		return -1;
	n = ceil(quota / period);
	return n > 1e6 ? 1000000 : n < 1 ? 1 : (long)n;
}

long sys_cgroup_cpus(const char *root)
{
	char line[128], q[32];
	double period;
	long v2 = -1, v1 = -1;

	/* cgroup v2: "QUOTA PERIOD", QUOTA "max" for none */
	if (!read_line(root, "cpu.max", line, sizeof(line)) &&
	    sscanf(line, "%31s %lf", q, &period) == 2)
		v2 = quota_cpus(positive(q), period);
	/* cgroup v1: cfs_quota_us is -1 for none */
	if (!read_line(root, "cpu/cpu.cfs_quota_us", line, sizeof(line))) {
		double quota = positive(line);
		if (!read_line(root, "cpu/cpu.cfs_period_us", line, sizeof(line)))
			v1 = quota_cpus(quota, positive(line));
	}
	if (v2 > 0 && v1 > 0)
		return v2 < v1 ? v2 : v1;
	return v2 > 0 ? v2 : v1;
}

uint64_t sys_cgroup_memory(const char *root)
{
	char line[64];
	double v;

	if (!read_line(root, "memory.max", line, sizeof(line))) {
		v = positive(line);   /* "max" is none */
		return v > 0 && v < 1.8e19 ? (uint64_t)v : 0;
	}
	if (!read_line(root, "memory/memory.limit_in_bytes", line, sizeof(line))) {
		v = positive(line);
		return v > 0 && v < 1e18 ? (uint64_t)v : 0;   /* "unlimited" is a huge number */
	}
	return 0;
}

uint64_t sys_cgroup_memory_used(const char *root)
{
	char line[64];

	if (!read_line(root, "memory.current", line, sizeof(line)) ||
	    !read_line(root, "memory/memory.usage_in_bytes", line, sizeof(line)))
		return (uint64_t)strtoull(line, NULL, 10);
	return 0;
}

int sys_usable_cpus(void)
{
	cpu_set_t set;
	long n = sysconf(_SC_NPROCESSORS_ONLN), quota;

	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0)
		n = CPU_COUNT(&set);
	if ((quota = sys_cgroup_cpus(sys_cgroup_root())) > 0 && quota < n)
		n = quota;
	return n < 1 ? 1 : n > 1000000 ? 1000000 : (int)n;
}

void sys_memory(struct sys_memory *m)
{
	const char *root = sys_cgroup_root();
	char line[256];
	uint64_t limit;
	FILE *fp;

	memset(m, 0, sizeof(*m));
	if ((fp = fopen("/proc/meminfo", "re"))) {
		while (fgets(line, sizeof(line), fp)) {
			unsigned long long kb;
			if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
				m->host = (uint64_t)kb * 1024;
			else if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
				m->avail = (uint64_t)kb * 1024;
		}
		fclose(fp);
	}
	m->total = m->host;
	if ((limit = sys_cgroup_memory(root)) && (!m->host || limit < m->host)) {
		uint64_t used = sys_cgroup_memory_used(root), left = limit > used ? limit - used : 0;
		m->total = limit;
		m->limited = true;
		if (!m->avail || m->avail > left)
			m->avail = left;
	}
}

uint64_t sys_usable_memory(void)
{
	struct sys_memory m;

	sys_memory(&m);
	return m.total;
}

long sys_self_path(char *buf, size_t n)
{
	ssize_t got = n ? readlink("/proc/self/exe", buf, n - 1) : -1;

	if (got < 0 || (size_t)got >= n - 1) {
		if (got >= 0)
			errno = ENAMETOOLONG;
		if (n)
			buf[0] = '\0';
		return -1;
	}
	buf[got] = '\0';
	return (long)got;
}
