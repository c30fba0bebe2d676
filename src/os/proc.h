/*
 * proc.h - the /proc readings the guard needs: the processes under a pid
 * (its descendants), and the CPU time of such a tree, read once per poll.
 * Linux; where /proc is absent they say so (0 processes, < 0 CPU).
 */
#ifndef GPURENT_OS_PROC_H
#define GPURENT_OS_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * The processes under root (its descendants, not root itself): writes up
 * to max pids into out and returns how many there are. Reads /proc (the
 * children files, else a scan, as below); 0 where /proc is absent.
 */
size_t proc_descendants(pid_t root, pid_t *out, size_t max);

/*
 * The CPU time of root's descendants, read once per poll. Finding them
 * is the costly part, so the tracker keeps /proc/PID/stat open for the
 * descendants it found and rereads only those (one pread each), looking
 * again 2 s after a reset (to catch the workers a launcher starts) and
 * then every `rescan_s` seconds. A look walks /proc/PID/task/TID/children
 * down from root (only the tree's own processes are read); where the
 * kernel lacks that file, or GPURENT_PROC_WALK=scan, it reads every
 * process's parent from a scan of /proc. One that
 * is gone is dropped: its CPU time is in its parent's cutime. A process
 * born between scans is counted from the next scan (or through its
 * parent's cutime once reaped). Initialise with {0}; reset (a new CMD)
 * with proc_tree_reset(); free with proc_tree_free().
 */
struct proc_tree {
	pid_t *pids;
	int *fds;                /* open /proc/PID/stat of each, -1 when it could not be opened */
	size_t n, cap;
	double next_scan;        /* monotonic seconds */
	double gap;              /* seconds to the next scan after this one */
};

/* Forget the processes: the next call scans /proc. */
void proc_tree_reset(struct proc_tree *t);

/*
 * CPU seconds used by root's descendants, living ones with the children
 * they have reaped (utime+stime+cutime+cstime), skipping pid `except` and
 * its descendants (-1: none), at monotonic time now. Returns < 0 where
 * /proc is absent.
 */
double proc_tree_cpu(struct proc_tree *t, pid_t root, pid_t except, double now, double rescan_s);

void proc_tree_free(struct proc_tree *t);

#endif
