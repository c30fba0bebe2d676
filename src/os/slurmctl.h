/*
 * slurmctl.h - the door to Slurm's client commands (scontrol), run as
 * child processes (child.h) with a time limit: a partition's time limit,
 * a job's remaining time and queue wait, a job's requeue. Nothing here
 * links Slurm; where scontrol is missing or the controller does not answer,
 * the functions say so and the caller goes on without.
 */
#ifndef GPURENT_OS_SLURMCTL_H
#define GPURENT_OS_SLURMCTL_H

#include <stddef.h>

/* How long one scontrol call may take before it is killed (seconds). */
#define SLURMCTL_TIMEOUT_S 20.0

/*
 * Run argv (argv[0] looked up in PATH) with stdin /dev/null and stderr
 * discarded, its stdout (up to n - 1 bytes, NUL-terminated) into out.
 * Returns its exit status (0: it worked), or -1 with a sentence in err
 * when it could not start or ran past SLURMCTL_TIMEOUT_S (killed).
 */
int slurmctl_run(const char *const *argv, char *out, size_t n, char *err, size_t errlen);

/*
 * The value of KEY=VALUE in scontrol's one-line output (`scontrol -o show
 * ...`), into buf; 0, or -1 when absent.
 */
int slurmctl_field(const char *text, const char *key, char *buf, size_t n);

/*
 * The time limit of partition (NULL: the default partition), seconds: 0
 * when Slurm is not reachable or has none to say, -1 UNLIMITED, else > 0.
 * *name gets the partition's name (n bytes) when one was found.
 */
double slurmctl_partition_limit(const char *partition, char *name, size_t n);

/* What `scontrol show job ID` says of a running job. */
struct slurmctl_job {
	double time_left_s;    /* TimeLimit - RunTime; < 0 unknown */
	double queue_wait_s;   /* StartTime - SubmitTime; < 0 unknown */
	double time_limit_s;   /* < 0 unknown */
	long restarts;         /* Restarts=; -1 unknown */
};

/* Fill *j for job id; 0, or -1 with a sentence in err. */
int slurmctl_job(const char *id, struct slurmctl_job *j, char *err, size_t errlen);

#endif
