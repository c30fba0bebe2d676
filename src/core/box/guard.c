/*
 * guard.c - the stop rules of `gpurent run` as arithmetic on readings
 * (guard.h). The command layer owns the clock, the processes and NVML.
 */
#include <math.h>

#include "core/box/guard.h"
#include "base/hot.h"
#include "base/util.h"

void guard_start(struct guard_state *s, double now)
{
	double idle_total = s->idle_total_s;

	*s = (struct guard_state){0};
	s->job_start = now;
	s->idle_since = -1;
	s->last_activity = now;
	s->last_poll = now;
	s->idle_total_s = idle_total >= 0 ? idle_total : 0;
	s->util = -1;
}

GPURENT_HOT void guard_activity(struct guard_state *s, double now)
{
	if (now > s->last_activity)
		s->last_activity = now;
}

GPURENT_HOT double guard_idle_for(const struct guard_state *s, double now)
{
	return s->idle_since >= 0 && now > s->idle_since ? now - s->idle_since : 0;
}

GPURENT_HOT enum guard_reason guard_poll(const struct guard_limits *l, struct guard_state *s,
			     double now, double elapsed, double util, bool running)
{
	double dt = now - s->last_poll;
	bool idle_now;

	s->last_poll = now;
	s->util = util;
	/* a reading below the threshold is idle; unknown readings never are */
	idle_now = running && util >= 0 && util < l->idle_util;
	if (idle_now) {
		if (s->idle_since < 0)
			s->idle_since = now;
		else if (dt > 0)
			s->idle_total_s += dt;
	} else {
		s->idle_since = -1;
	}
	if (l->deadline_s > 0 && elapsed >= l->deadline_s)
		return GUARD_DEADLINE;
	if (l->max_runtime_s > 0 && elapsed >= l->max_runtime_s)
		return GUARD_MAX_RUNTIME;
	if (l->budget > 0 && l->price_per_hour > 0 && guard_cost(l, elapsed) >= l->budget)
		return GUARD_BUDGET;
	if (!running)
		return GUARD_NONE;
	if (l->idle_s > 0 && guard_idle_for(s, now) >= l->idle_s)
		return GUARD_IDLE;
	if (l->stall_s > 0 && now - s->last_activity >= l->stall_s)
		return GUARD_STALL;
	return GUARD_NONE;
}

static void earlier(double *due, double t)
{
	if (t > 0 && (*due == 0 || t < *due))
		*due = t;
}

GPURENT_HOT double guard_next_due(const struct guard_limits *l, const struct guard_state *s, double t0, bool running)
{
	double due = 0;

	if (l->deadline_s > 0)
		earlier(&due, t0 + l->deadline_s);
	if (l->max_runtime_s > 0)
		earlier(&due, t0 + l->max_runtime_s);
	if (l->budget > 0 && l->price_per_hour > 0)
		earlier(&due, t0 + l->budget / l->price_per_hour * 3600);
	if (running && l->stall_s > 0)
		earlier(&due, s->last_activity + l->stall_s);
	if (running && l->idle_s > 0 && s->idle_since >= 0)
		earlier(&due, s->idle_since + l->idle_s);
	return due;
}

GPURENT_HOT double guard_cost(const struct guard_limits *l, double elapsed)
{
	return l->price_per_hour > 0 && elapsed > 0 ? l->price_per_hour * elapsed / 3600 : 0;
}

double guard_backoff(double base, int n)
{
	double d;

	if (!(base > 0) || n < 1)
		return 0;
	d = base * ldexp(1.0, n > 5 ? 4 : n - 1);
	return d > 16 * base ? 16 * base : d;
}

const char *guard_reason_name(enum guard_reason r)
{
	static const char *const names[] = {
		"", "exit", "idle", "stall", "max-runtime", "budget", "signal", "hard-deadline",
		"probe-done", "time-limit",
	};

	return (unsigned)r < ARRAY_SIZE(names) ? names[r] : "";
}
