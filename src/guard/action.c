/*
 * run_action.c - the stop actions of `gpurent run` (run_action.h): a shell
 * command in its own process group, and an HTTP POST through libcurl,
 * which is loaded (src/os/dl.c) only when a POST is due (like NVML: a table
 * of function pointers) so that the guard stays small and the binary runs
 * on boxes without libcurl.
 */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guard/action.h"

#include "os/http.h"
#include "base/i18n.h"
#include "base/util.h"
#include "os/child.h"

extern char **environ;

static void say_f(action_say_fn *say, void *ctx, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say_f(action_say_fn *say, void *ctx, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (say)
		say(ctx, line);
}

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

char *action_url_redacted(const char *url, char *buf, size_t n)
{
	return http_url_shown(url, buf, n);
}

/* ---- the shell command ---- */

/* Append "NAME=value" to env (a prepared array with room). */
static void env_put(char **env, size_t *n, char *storage, size_t cap, size_t *used,
		    const char *name, const char *value)
{
	int w = snprintf(storage + *used, cap - *used, "%s=%s", name, value);

	if (w < 0 || (size_t)w >= cap - *used)
		return;
	env[(*n)++] = storage + *used;
	*used += (size_t)w + 1;
}

static int fire_shell(const struct action_cfg *a, const struct action_event *ev,
		      action_say_fn *say, void *ctx, char *err, size_t errlen)
{
	const char *argv[] = {"/bin/sh", "-c", a->shell, NULL};
	size_t nenv = 0, used = 0, count = 0;
	char **env, storage[2048], num[64];
	struct child_opts o = {0};
	struct child c;
	double t0;
	int eno, st = 0, rc = -1;
	pid_t r = 0;

	for (char **e = environ; *e; e++)
		count++;
	if (!(env = calloc(count + 8, sizeof(*env)))) {
		snprintf(err, errlen, "stop command: out of memory");
		return -1;
	}
	for (char **e = environ; *e; e++)
		if (strncmp(*e, "GPURENT_STOP_", 13) && strncmp(*e, "GPURENT_EXIT_STATUS=", 20))
			env[nenv++] = *e;
	env_put(env, &nenv, storage, sizeof(storage), &used, "GPURENT_STOP_REASON", ev->reason);
	snprintf(num, sizeof(num), "%d", ev->exit_status);
	env_put(env, &nenv, storage, sizeof(storage), &used, "GPURENT_EXIT_STATUS", num);
	snprintf(num, sizeof(num), "%.3f", ev->elapsed_s);
	env_put(env, &nenv, storage, sizeof(storage), &used, "GPURENT_STOP_ELAPSED", num);
	if (ev->cost >= 0) {
		snprintf(num, sizeof(num), "%.4f", ev->cost);
		env_put(env, &nenv, storage, sizeof(storage), &used, "GPURENT_STOP_COST", num);
	}
	if (ev->log_path)
		env_put(env, &nenv, storage, sizeof(storage), &used, "GPURENT_STOP_LOG", ev->log_path);
	env[nenv] = NULL;

	o.argv = argv;
	o.envp = env;
	o.in_fd = -1;
	if (child_spawn(&o, &c, &eno, err, errlen))
		goto out_free_env;
	t0 = util_now_mono();
	for (;;) {
		double el;
		r = child_wait(c.pid, &st, WNOHANG);
		if (r != 0)
			break;
		el = util_now_mono() - t0;
		if (a->timeout_s > 0 && el > a->timeout_s) {
			kill(-c.pid, SIGKILL);
			child_wait(c.pid, &st, 0);
			snprintf(err, errlen, "stop command did not finish within %g s: killed", a->timeout_s);
			goto out_free_env;
		}
		sleep_s(0.005);
	}
	kill(-c.pid, SIGKILL);   /* whatever it left behind in its group */
	if (r < 0) {
		snprintf(err, errlen, "stop command: waitpid: %s", strerror(errno));
	} else if (child_exit_code(st) != 0) {
		snprintf(err, errlen, "stop command failed with status %d: %s", child_exit_code(st), a->shell);
	} else {
		say_f(say, ctx, _("stop command done: %s"), a->shell);
		rc = 0;
	}
out_free_env:
	free(env);
	return rc;
}

/* ---- HTTP through libcurl, loaded on demand ---- */

/* libcurl through src/os/http.c; NULL with err when it is not installed. */
static const struct http_curl *curl_load(char *err, size_t errlen)
{
	const struct http_curl *f = http_curl(err, errlen);

	if (!f && strstr(err, "not installed"))
		snprintf(err, errlen, "libcurl is not installed (libcurl.so.4): cannot send the stop request "
			 "(apt-get install libcurl4)");
	return f;
}

static size_t discard(char *p, size_t size, size_t n, void *ctx)
{
	(void)p;
	(void)ctx;
	return size * n;
}

/* JSON string body content: escape quotes, backslashes and controls. */
static void json_escape(char *out, size_t n, const char *s)
{
	size_t k = 0;

	for (; s && *s && k + 7 < n; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			k += (size_t)snprintf(out + k, n - k, "\\%c", ch);
		else if (ch < 0x20)
			k += (size_t)snprintf(out + k, n - k, "\\u%04x", ch);
		else
			out[k++] = (char)ch;
	}
	out[k] = '\0';
}

static int fire_http(const struct action_cfg *a, const struct action_event *ev,
		     action_say_fn *say, void *ctx, char *err, size_t errlen)
{
	const struct http_curl *f;
	char body[1024], host[256], log[512], cost[32], shown[512], cerr[CURL_ERROR_SIZE];
	char *auth = NULL;
	struct curl_slist *hdr = NULL;
	int attempts = 1 + (a->retries > 0 ? a->retries : 0), rc = -1;
	double delay = 1;
	CURL *h;

	action_url_redacted(a->url, shown, sizeof(shown));
	if (!(f = curl_load(err, errlen)))
		return -1;
	json_escape(host, sizeof(host), ev->host);
	json_escape(log, sizeof(log), ev->log_path);
	if (ev->cost >= 0)
		snprintf(cost, sizeof(cost), "%.4f", ev->cost);
	else
		snprintf(cost, sizeof(cost), "null");
	snprintf(body, sizeof(body),
		 "{\"source\":\"gpurent\",\"event\":\"stop\",\"reason\":\"%s\",\"exit_status\":%d,"
		 "\"elapsed_seconds\":%.3f,\"cost\":%s,\"currency\":\"%s\",\"host\":\"%s\",\"log\":\"%s\"}",
		 ev->reason, ev->exit_status, ev->elapsed_s, cost, ev->currency ? ev->currency : "", host, log);
	if (!(h = f->easy_init())) {
		snprintf(err, errlen, "POST %s: libcurl could not start a request", shown);
		return -1;
	}
	hdr = f->slist_append(NULL, "Content-Type: application/json");
	if (a->token) {
		size_t n = strlen(a->token) + 32;
		if (!(auth = malloc(n)))
			goto out_cleanup;
		snprintf(auth, n, "Authorization: Bearer %s", a->token);
		hdr = f->slist_append(hdr, auth);
	}
	f->easy_setopt(h, CURLOPT_URL, a->url);
	f->easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	f->easy_setopt(h, CURLOPT_POST, 1L);
	f->easy_setopt(h, CURLOPT_POSTFIELDS, body);
	f->easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
	f->easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
	f->easy_setopt(h, CURLOPT_USERAGENT, "gpurent-guard");
	f->easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
	f->easy_setopt(h, CURLOPT_ERRORBUFFER, cerr);
	f->easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
	f->easy_setopt(h, CURLOPT_TIMEOUT_MS, http_ms(a->timeout_s));
	f->easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, http_ms(a->timeout_s));
	for (int k = 1; k <= attempts; k++) {
		CURLcode cr;
		long code = 0;
		char why[CURL_ERROR_SIZE + 64];

		cerr[0] = '\0';
		cr = f->easy_perform(h);
		if (cr == CURLE_OK) {
			f->easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
			if (code >= 200 && code < 300) {
				say_f(say, ctx, _("stop request delivered: POST %s: HTTP %ld (attempt %d of %d)"),
				      shown, code, k, attempts);
				rc = 0;
				break;
			}
			snprintf(why, sizeof(why), "HTTP %ld", code);
		} else {
			snprintf(why, sizeof(why), "%s", cerr[0] ? cerr : f->easy_strerror(cr));
		}
		/* a client error other than 408/429 will not change on retry */
		if (cr == CURLE_OK && code >= 400 && code < 500 && code != 408 && code != 429) {
			snprintf(err, errlen, "stop request failed: POST %s: %s (not retried)", shown, why);
			break;
		}
		if (k == attempts) {
			snprintf(err, errlen, "stop request failed after %d attempt%s: POST %s: %s",
				 attempts, attempts > 1 ? "s" : "", shown, why);
			break;
		}
		say_f(say, ctx, _("POST %s: attempt %d of %d failed: %s; retrying in %.0f s"),
		      shown, k, attempts, why, delay);
		sleep_s(delay);
		delay = delay < 8 ? delay * 2 : 8;
	}
out_cleanup:
	f->easy_cleanup(h);
	f->slist_free_all(hdr);
	if (auth) {
		explicit_bzero(auth, strlen(auth));
		free(auth);
	}
	if (rc && !err[0])
		snprintf(err, errlen, "POST %s: out of memory", shown);
	return rc;
}

int action_fire(const struct action_cfg *a, const struct action_event *ev,
		action_say_fn *say, void *ctx, char *err, size_t errlen)
{
	char e1[1200] = "", e2[1200] = "", shown[512];
	int rc = 0;

	err[0] = '\0';
	if (a->dry_run) {
		if (a->shell)
			say_f(say, ctx, _("dry run: the stop action would run: %s"), a->shell);
		if (a->url)
			say_f(say, ctx, _("dry run: the stop action would POST to %s%s%s"),
			      action_url_redacted(a->url, shown, sizeof(shown)),
			      a->token ? _(" with the bearer token from ") : "", a->token ? a->token_from : "");
		if (!a->shell && !a->url)
			say_f(say, ctx, _("dry run: no stop action is configured"));
		return 0;
	}
	if (a->shell && fire_shell(a, ev, say, ctx, e1, sizeof(e1)))
		rc = -1;
	if (a->url && fire_http(a, ev, say, ctx, e2, sizeof(e2)))
		rc = -1;
	snprintf(err, errlen, "%.500s%s%.500s", e1, e1[0] && e2[0] ? "; " : "", e2);
	return rc;
}

/* A token must be one line of printable characters (it goes into a header). */
static int token_check(const char *t, const char *from, char *err, size_t errlen)
{
	if (!*t) {
		snprintf(err, errlen, "%s: the token is empty", from);
		return -1;
	}
	for (const char *p = t; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			snprintf(err, errlen, "%s: the token holds a control character or a line break", from);
			return -1;
		}
	return 0;
}

int action_token_from_env(const char *var, char **token, char *err, size_t errlen)
{
	char *v = getenv(var), from[160];

	*token = NULL;
	snprintf(from, sizeof(from), "--token-env %s", var);
	if (!v || !*v) {
		snprintf(err, errlen, "%s: the variable is not set or empty", from);
		return -1;
	}
	if (token_check(v, from, err, errlen))
		return -1;
	if (!(*token = strdup(v))) {
		snprintf(err, errlen, "%s: out of memory", from);
		return -1;
	}
	/* the original string stays in /proc/PID/environ: blank it there too */
	memset(v, '*', strlen(v));
	unsetenv(var);
	return 0;
}

/* What st is, for "expected a regular file, got a FIFO". */
static const char *file_kind(mode_t m)
{
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

int action_read_private_file(const char *opt, const char *path, char *buf, size_t n,
			     char *err, size_t errlen)
{
	struct stat st;
	size_t got = 0;
	char *s, *e;
	int fd, rc = -1;

	/* O_NONBLOCK: a FIFO (or a device) must not block the open; it is refused below */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "%s %s: %s", opt, path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		snprintf(err, errlen, "%s %s: %s", opt, path, strerror(errno));
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s %s: expected a regular file, got %s", opt, path, file_kind(st.st_mode));
		goto out_close;
	}
	if (st.st_mode & 077) {
		snprintf(err, errlen, "%s %s: group or others may read or write it (mode %04o); "
			 "run: chmod 600 %s", opt, path, (unsigned)(st.st_mode & 07777), path);
		goto out_close;
	}
	while (got < n - 1) {
		ssize_t r = read(fd, buf + got, n - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, errlen, "%s %s: %s", opt, path, strerror(errno));
			explicit_bzero(buf, got);
			goto out_close;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	buf[got] = '\0';
	for (s = buf; *s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'; s++)
		;
	e = s + strcspn(s, "\r\n");
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	*e = '\0';
	memmove(buf, s, (size_t)(e - s) + 1);
	rc = 0;
out_close:
	close(fd);
	return rc;
}

int action_token_from_file(const char *path, char **token, char *err, size_t errlen)
{
	char buf[4097];

	*token = NULL;
	if (action_read_private_file("--token-file", path, buf, sizeof(buf), err, errlen))
		return -1;
	if (!token_check(buf, path, err, errlen) && !(*token = strdup(buf)))
		snprintf(err, errlen, "--token-file %s: out of memory", path);
	explicit_bzero(buf, sizeof(buf));
	return *token ? 0 : -1;
}

/* Is it an http:// or https:// URL? */
static bool url_scheme_ok(const char *u)
{
	return !strncmp(u, "http://", 7) || !strncmp(u, "https://", 8);
}

/*
 * Overwrite, in the process's own argv memory, the argument that value
 * points into with shown (truncated to fit, the rest zeroed): that memory
 * is what ps and /proc/PID/cmdline read, for this process and for every
 * fork of it.
 */
static void argv_scrub(int argc, char **argv, const char *value, const char *shown)
{
	uintptr_t v = (uintptr_t)value;

	for (int i = 1; i < argc; i++) {
		uintptr_t a = (uintptr_t)argv[i];
		size_t len = strlen(argv[i]), n, k;

		if (v < a || v > a + len)
			continue;
		n = strlen(argv[i] + (v - a));
		k = strlen(shown) < n ? strlen(shown) : n;
		memmove(argv[i] + (v - a), shown, k);
		memset(argv[i] + (v - a) + k, 0, n - k);
		return;
	}
}

int action_url_load(struct action_cfg *a, const char *file, int argc, char **argv, char **owned,
		    char *err, size_t errlen)
{
	char buf[4097], shown[512], *env = getenv(ACTION_URL_ENV);
	const char *from = NULL;

	*owned = NULL;
	buf[0] = '\0';
	if (a->url && file) {
		snprintf(err, errlen, "--stop-url and --stop-url-file: give one");
		return -1;
	}
	if (a->url) {
		if (strlen(a->url) >= sizeof(buf)) {
			snprintf(err, errlen, "--stop-url: longer than %zu bytes", sizeof(buf) - 1);
			return -1;
		}
		snprintf(buf, sizeof(buf), "%s", a->url);
		argv_scrub(argc, argv, a->url, action_url_redacted(buf, shown, sizeof(shown)));
		from = "--stop-url";
	} else if (file) {
		if (action_read_private_file("--stop-url-file", file, buf, sizeof(buf), err, errlen))
			return -1;
		from = "--stop-url-file";
	} else if (env && *env) {
		snprintf(buf, sizeof(buf), "%s", env);
		from = ACTION_URL_ENV;
	}
	if (env) {
		/* never passed on: blanked in /proc/PID/environ, gone from children's environment */
		memset(env, '*', strlen(env));
		unsetenv(ACTION_URL_ENV);
	}
	if (!from)
		return 0;
	if (!buf[0] || !url_scheme_ok(buf) || strpbrk(buf, " \t\r\n")) {
		snprintf(err, errlen, "%s: expected an http:// or https:// URL", from);
		goto out_zero;
	}
	if (!(*owned = strdup(buf))) {
		snprintf(err, errlen, "%s: out of memory", from);
		goto out_zero;
	}
	a->url = *owned;
	explicit_bzero(buf, sizeof(buf));
	return 0;
out_zero:
	explicit_bzero(buf, sizeof(buf));
	return -1;
}

void action_token_free(char *token)
{
	if (!token)
		return;
	explicit_bzero(token, strlen(token));
	free(token);
}
