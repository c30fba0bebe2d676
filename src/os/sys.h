/*
 * sys.h - how much of the machine this process may use: the CPUs
 * (affinity and cgroup CPU quotas) and the memory (MemTotal and cgroup
 * memory limits). One answer for every command that sizes a thread pool
 * or a buffer, so that a 4-vCPU container on a 192-core host runs 4
 * threads, not 64.
 */
#ifndef GPURENT_SYS_H
#define GPURENT_SYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The cgroup filesystem's root: $GPURENT_CGROUP_ROOT when set and not
 * empty (tests point it at a fake tree), else "/sys/fs/cgroup". Borrowed
 * (the environment's or static storage).
 */
const char *sys_cgroup_root(void);

/*
 * The CPUs the cgroup quotas under root allow: ceil(quota / period) of
 * cgroup v2 cpu.max and of v1 cpu/cpu.cfs_quota_us and cfs_period_us, the
 * smaller when both are there. -1 when neither sets a quota ("max", -1, or
 * no such files). root is borrowed.
 */
long sys_cgroup_cpus(const char *root);

/*
 * The memory limit in bytes of the cgroup under root (v2 memory.max, else
 * v1 memory/memory.limit_in_bytes); 0 when there is none. root is borrowed.
 */
uint64_t sys_cgroup_memory(const char *root);

/* The memory in use in the cgroup under root (v2 memory.current, else v1
 * memory/memory.usage_in_bytes); 0 when unknown. root is borrowed. */
uint64_t sys_cgroup_memory_used(const char *root);

/*
 * The CPUs this process may use: the smallest of its affinity mask's count
 * (else the online CPUs) and the cgroup quotas under sys_cgroup_root();
 * at least 1.
 */
int sys_usable_cpus(void);

struct sys_memory {
	uint64_t host;    /* MemTotal of /proc/meminfo; 0 unknown */
	uint64_t total;   /* what this process may use: min(host, cgroup limit) */
	uint64_t avail;   /* MemAvailable, at most the cgroup's limit - usage */
	bool limited;     /* total is the cgroup's limit */
};

/* Fill m from /proc/meminfo and the cgroup under sys_cgroup_root(). */
void sys_memory(struct sys_memory *m);

/* sys_memory()'s total: the bytes of memory this process may use; 0 unknown. */
uint64_t sys_usable_memory(void);

/*
 * The path of this program (/proc/self/exe) into buf (n bytes). Returns its
 * length, or -1 with errno set (buf is then "").
 */
long sys_self_path(char *buf, size_t n);

#endif
