/*
 * tee.c - the guard's output (guard_int.h): CMD's lines, with timestamps,
 * to the terminal and the log; the guard's own messages; the status line.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guard/guard_int.h"
#include "base/msg.h"

void tee_write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}
void tee_status_clear(struct guard *g)
{
	if (g->status_shown) {
		tee_write_all(2, "\r\033[K", 4);
		g->status_shown = false;
	}
}
/* "2026-11-29T16:31:04.123Z" for the log, "16:31:04" for the terminal. */
static void stamps(char *log, size_t ln, char *term, size_t tn)
{
	struct timespec ts;
	struct tm utc, loc;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &utc);
	localtime_r(&ts.tv_sec, &loc);
	snprintf(log, ln, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900, utc.tm_mon + 1,
		 utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, (int)(ts.tv_nsec / 1000000) % 1000);
	snprintf(term, tn, "%02d:%02d:%02d", loc.tm_hour, loc.tm_min, loc.tm_sec);
}
static void log_write(struct guard *g, const char *p, size_t n)
{
	ssize_t w;

	if (g->log_fd < 0 || g->log_failed)
		return;
	do
		w = write(g->log_fd, p, n);
	while (w < 0 && errno == EINTR);
	if (w < 0 || (size_t)w != n) {
		g->log_failed = true;
		tee_status_clear(g);
		msg_warn(_("%s: cannot write the log (%s); going on without it"),
			 g->log_path, w < 0 ? strerror(errno) : "short write");
	}
}
/* A message of the guard's own: stderr and the log. */
void tee_say(struct guard *g, const char *fmt, ...)
{
	char msg[1200], line[1400], ls[64], ts[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tee_status_clear(g);
	msg_note("%s", msg);
	stamps(ls, sizeof(ls), ts, sizeof(ts));
	n = snprintf(line, sizeof(line), "%s gpurent | %s\n", ls, msg);
	log_write(g, line, n > 0 && (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}
void tee_say_cb(void *ctx, const char *line)
{
	tee_say(ctx, "%s", line);
}
/* gpurent probe (guard_opts.on_line): the pending line, NUL-terminated. */
static void line_hook(struct guard *g, const struct stream *s)
{
	char line[STREAM_LINE + 1];

	memcpy(line, s->line, s->len);
	line[s->len] = '\0';
	g->o->on_line(g->o->hook_ctx, line, mono());
}
/* Emit the pending line of s to the terminal and the log. */
static void stream_emit(struct guard *g, struct stream *s)
{
	char ls[64], ts[64], head[160];
	int hn;

	stamps(ls, sizeof(ls), ts, sizeof(ts));
	tee_status_clear(g);
	hn = snprintf(head, sizeof(head), "%s ", ts);
	tee_write_all(s->term_fd, head, (size_t)hn);
	tee_write_all(s->term_fd, s->line, s->len);
	tee_write_all(s->term_fd, "\n", 1);
	hn = snprintf(head, sizeof(head), "%s %s | ", ls, s->tag);
	if (g->log_fd >= 0 && !g->log_failed) {
		char buf[STREAM_LINE + 80];
		memcpy(buf, head, (size_t)hn);
		memcpy(buf + hn, s->line, s->len);
		buf[(size_t)hn + s->len] = '\n';
		log_write(g, buf, (size_t)hn + s->len + 1);
	}
	if (g->o->on_line)
		line_hook(g, s);
	s->len = 0;
}
static void stream_feed(struct guard *g, struct stream *s, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char ch = p[i];
		if (s->cr) {
			s->cr = false;
			if (ch != '\n') {
				s->len = 0;   /* a progress bar redrew the line: keep the last state */
				s->bar = true;
			}
		}
		if (ch == '\n') {
			stream_emit(g, s);
			s->bar = false;
		} else if (ch == '\r') {
			s->cr = true;
			if (g->o->on_line && s->len)   /* a bar's state (tqdm) is a line to the probe */
				line_hook(g, s);
		} else {
			if (s->len == STREAM_LINE)
				stream_emit(g, s);
			s->line[s->len++] = ch;
		}
	}
	/* tqdm writes "\r" and then the bar, whole, in one write: the probe
	 * gets the bar now rather than at the next redraw (a default tqdm
	 * bar ends with ']'; it comes again at the redraw, as a repeat) */
	if (g->o->on_line && s->bar && !s->cr && s->len && s->line[s->len - 1] == ']')
		line_hook(g, s);
}
/* Read what is there; returns true when something came. Closes at EOF. */
bool tee_stream_read(struct guard *g, struct stream *s)
{
	char buf[4096];
	bool got = false;

	while (s->fd >= 0) {
		ssize_t r = read(s->fd, buf, sizeof(buf));
		if (r > 0) {
			stream_feed(g, s, buf, (size_t)r);
			got = true;
			if ((size_t)r < sizeof(buf))
				break;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			break;
		if (s->len)
			stream_emit(g, s);
		close(s->fd);
		s->fd = -1;
	}
	return got;
}
static void fmt_clock(double s, char *buf, size_t n)
{
	long t = (long)s;

	snprintf(buf, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
}
GPURENT_HOT void tee_status_draw(struct guard *g, double now, const char *state)
{
	char line[256], el[32], cost[48] = "", use[64] = "";
	double elapsed = now - g->t0;

	if (!g->tty)
		return;
	fmt_clock(elapsed, el, sizeof(el));
	if (g->o->lim.price_per_hour > 0)
		snprintf(cost, sizeof(cost), " | %.2f %s", guard_cost(&g->o->lim, elapsed), g->o->currency);
	if (g->gpu_mode && g->util_gpu >= 0)
		snprintf(use, sizeof(use), " | GPU %d%% %.1f/%.1f GB", g->util_gpu, g->mem_used / 1e9,
			 g->mem_total / 1e9);
	else if (g->cpu_pct >= 0 && !g->gpu_mode && g->o->lim.idle_s > 0)
		snprintf(use, sizeof(use), " | CPU %.0f%%", g->cpu_pct);
	snprintf(line, sizeof(line), "\r\033[Kgpurent %s%s%s | %s", el, cost, use, state);
	tee_write_all(2, line, strlen(line));
	g->status_shown = true;
}
static int mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(buf))
		return errno = ENAMETOOLONG, -1;
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(buf, 0777) < 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	if (mkdir(buf, 0777) < 0 && errno != EEXIST)
		return -1;
	return 0;
}
int tee_open_log(struct guard *g)
{
	struct tm tm;
	time_t t = time(NULL);
	char cwd[PATH_MAX / 2];
	const char *dir_prefix = "";

	localtime_r(&t, &tm);
	if (mkdir_p(g->o->log_dir) < 0) {
		snprintf(g->problems, sizeof(g->problems), "no log: --log-dir %.200s: %s", g->o->log_dir,
			 strerror(errno));
		return -1;
	}
	if (g->o->log_dir[0] != '/' && getcwd(cwd, sizeof(cwd)))
		dir_prefix = cwd;
	snprintf(g->log_path, sizeof(g->log_path), "%s%s%s/run-%04d%02d%02d-%02d%02d%02d-%ld.log",
		 dir_prefix, dir_prefix[0] ? "/" : "", g->o->log_dir, tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
		 tm.tm_sec, (long)getpid());
	g->log_fd = open(g->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (g->log_fd < 0) {
		snprintf(g->problems, sizeof(g->problems), "no log: %.300s: %s", g->log_path, strerror(errno));
		return -1;
	}
	return 0;
}
