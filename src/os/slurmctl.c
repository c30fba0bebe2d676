/*
 * slurmctl.c - Slurm's client commands as children (slurmctl.h). The
 * fields read are those of `scontrol -o show partition|job` in Slurm 22.05
 * (scontrol(1): MaxTime, TimeLimit, RunTime, SubmitTime, StartTime,
 * Restarts); docs/slurm.md "What the guard asks Slurm".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/task/slurm.h"
#include "base/util.h"
#include "os/child.h"
#include "os/slurmctl.h"
#include "base/i18n.h"

extern char **environ;

int slurmctl_run(const char *const *argv, char *out, size_t n, char *err, size_t errlen)
{
	struct child_opts o = {.argv = argv, .envp = environ, .in_fd = -1, .capture = true, .err_null = true};
	struct child c;
	double until;
	size_t got = 0;
	int eno = 0, st = 0;

	out[0] = '\0';
	if (child_spawn(&o, &c, &eno, err, errlen))
		return -1;
	until = util_now_mono() + SLURMCTL_TIMEOUT_S;
	for (;;) {
		struct pollfd p = {c.out_fd, POLLIN, 0};
		double left = until - util_now_mono();
		ssize_t r;
		char sink[512];
		if (left <= 0) {
			kill(-c.pid, SIGKILL);
			close(c.out_fd);
			child_wait(c.pid, &st, 0);
			snprintf(err, errlen, _("%s did not answer within %.0f s"), argv[0], SLURMCTL_TIMEOUT_S);
			return -1;
		}
		if (poll(&p, 1, (int)(left * 1000) + 1) < 0 && errno != EINTR)
			break;
		if (!p.revents)
			continue;
		if (got + 1 < n)
			r = read(c.out_fd, out + got, n - 1 - got);
		else
			r = read(c.out_fd, sink, sizeof(sink));
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0)
			break;
		if (got + 1 < n)
			got += (size_t)r;
	}
	out[got] = '\0';
	close(c.out_fd);
	child_wait(c.pid, &st, 0);
	kill(-c.pid, SIGKILL);   /* whatever it left in its group */
	return child_exit_code(st);
}

int slurmctl_field(const char *text, const char *key, char *buf, size_t n)
{
	size_t kl = strlen(key);

	for (const char *p = text; (p = strstr(p, key)); p += kl) {
		if ((p == text || p[-1] == ' ' || p[-1] == '\n' || p[-1] == '\t') && p[kl] == '=') {
			const char *v = p + kl + 1;
			size_t len = strcspn(v, " \t\n");
			if (len >= n)
				len = n - 1;
			memcpy(buf, v, len);
			buf[len] = '\0';
			return 0;
		}
	}
	return -1;
}

double slurmctl_partition_limit(const char *partition, char *name, size_t n)
{
	const char *argv[] = {"scontrol", "-o", "show", "partition", partition, NULL};
	char out[16384], err[256], v[64];
	const char *line = out;
	double s;

	if (slurmctl_run(argv, out, sizeof(out), err, sizeof(err)) != 0)
		return 0;
	if (!partition) {
		/* the default partition: the line with Default=YES */
		line = NULL;
		for (char *p = out; p && *p; ) {
			char *nl = strchr(p, '\n');
			if (nl)
				*nl = '\0';
			if (strstr(p, " Default=YES"))
				line = p;
			p = nl ? nl + 1 : NULL;
			if (line)
				break;
		}
		if (!line)
			return 0;
	}
	if (name && !slurmctl_field(line, "PartitionName", v, sizeof(v)))
		snprintf(name, n, "%s", v);
	if (slurmctl_field(line, "MaxTime", v, sizeof(v)) || slurm_parse_time(v, &s))
		return 0;
	return s;
}

/* scontrol's local date-time YYYY-MM-DDTHH:MM:SS as seconds on one clock (differences only). */
static double stamp(const char *v)
{
	struct tm tm = {0};
	char *end = strptime(v, "%Y-%m-%dT%H:%M:%S", &tm);

	if (!end || *end)
		return -1;
	tm.tm_isdst = -1;
	return (double)mktime(&tm);
}

int slurmctl_job(const char *id, struct slurmctl_job *j, char *err, size_t errlen)
{
	const char *argv[] = {"scontrol", "-o", "show", "job", id, NULL};
	char out[16384], v[64];
	double limit = -1, run = -1, sub, start;
	int rc;

	j->time_left_s = j->queue_wait_s = j->time_limit_s = -1;
	j->restarts = -1;
	if ((rc = slurmctl_run(argv, out, sizeof(out), err, errlen)) != 0) {
		if (rc > 0)
			snprintf(err, errlen, _("scontrol show job %s failed with status %d"), id, rc);
		return -1;
	}
	if (!slurmctl_field(out, "TimeLimit", v, sizeof(v)) && !slurm_parse_time(v, &limit))
		j->time_limit_s = limit;
	/* slurm_parse_time() reads a zero time as "no limit" (-1): a RunTime of
	 * 00:00:00 (an attempt in its first second) is none of that, it is 0 */
	if (!slurmctl_field(out, "RunTime", v, sizeof(v)) && !slurm_parse_time(v, &run) && limit > 0) {
		if (run < 0)
			run = 0;
		j->time_left_s = limit - run;
	}
	if (!slurmctl_field(out, "SubmitTime", v, sizeof(v)) && (sub = stamp(v)) >= 0 &&
	    !slurmctl_field(out, "StartTime", v, sizeof(v)) && (start = stamp(v)) >= 0 && start >= sub)
		j->queue_wait_s = start - sub;
	if (!slurmctl_field(out, "Restarts", v, sizeof(v)))
		j->restarts = strtol(v, NULL, 10);
	return 0;
}
