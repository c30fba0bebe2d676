/*
 * b3sum.c - BLAKE3 of files through the b3sum program (b3sum.h).
 */
#include "os/b3sum.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/files/hashing.h"
#include "os/child.h"
#include "base/i18n.h"

extern char **environ;

/* ---- BLAKE3 through the b3sum program ---- */

#define B3_BATCH 256      /* names per b3sum run */
#define B3_HEX 64

/*
 * Run PROG --no-names -- paths[0..n) with stdin and stderr on /dev/null;
 * its stdout into *out (malloc'd, the caller frees it). Returns its exit
 * status, or -1 with a sentence in err when it could not be started.
 */
static int b3_run(const char *prog, const char *const *paths, size_t n, char **out,
		  size_t *outlen, char *err, size_t errlen)
{
	const char **argv = malloc((n + 4) * sizeof(*argv));
	struct child_opts co = {0};
	struct child c;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int status = 0, eno = 0, rc = -1;

	*out = NULL;
	*outlen = 0;
	if (!argv) {
		snprintf(err, errlen, _("out of memory"));
		return -1;
	}
	argv[0] = prog;
	argv[1] = "--no-names";
	argv[2] = "--";
	memcpy(argv + 3, paths, n * sizeof(*argv));
	argv[n + 3] = NULL;
	co.argv = argv;
	co.envp = environ;
	co.in_fd = -1;
	co.capture = true;
	co.err_null = true;
	if (child_spawn(&co, &c, &eno, err, errlen)) {
		if (eno == ENOENT)
			snprintf(err, errlen, _("BLAKE3 (a b3sum file) needs the b3sum program "
				 "(Debian package b3sum), which is not installed"));
		else if (eno)
			snprintf(err, errlen, "%s: %s", prog, strerror(eno));
		goto out_argv;
	}
	for (;;) {
		struct pollfd p = {.fd = c.out_fd, .events = POLLIN};
		ssize_t got;

		if (len + 4096 > cap) {
			size_t ncap = cap ? cap * 2 : 8192;
			char *nb = realloc(buf, ncap);
			if (!nb) {
				kill(-c.pid, SIGKILL);
				child_wait(c.pid, &status, 0);
				snprintf(err, errlen, _("out of memory"));
				goto out_close;
			}
			buf = nb;
			cap = ncap;
		}
		got = read(c.out_fd, buf + len, cap - len);
		if (got < 0 && errno == EAGAIN) {
			if (poll(&p, 1, -1) < 0 && errno != EINTR)
				break;
			continue;
		}
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		len += (size_t)got;
	}
	child_wait(c.pid, &status, 0);
	rc = child_exit_code(status);
	*out = buf;
	*outlen = len;
	buf = NULL;
out_close:
	close(c.out_fd);
	free(buf);
out_argv:
	free(argv);
	return rc;
}

/* n lines of 64 hex digits each into out; -1 when the text is anything else. */
static int b3_parse(const char *s, size_t len, size_t n, unsigned char *out)
{
	if (len != n * (B3_HEX + 1))
		return -1;
	for (size_t i = 0; i < n; i++) {
		const char *l = s + i * (B3_HEX + 1);
		if (l[B3_HEX] != '\n' || hash_from_hex(l, 32, out + 32 * i))
			return -1;
	}
	return 0;
}

int b3sum_files(const char *const *paths, size_t n, unsigned char *out, bool *ok,
		       char *err, size_t errlen)
{
	const char *prog = getenv("GPURENT_B3SUM");

	if (!prog || !*prog)
		prog = "b3sum";
	for (size_t i = 0; i < n; i++)
		ok[i] = false;
	for (size_t at = 0; at < n;) {
		size_t k = n - at < B3_BATCH ? n - at : B3_BATCH;
		char *text;
		size_t tlen;
		int r = b3_run(prog, paths + at, k, &text, &tlen, err, errlen);

		if (r < 0)
			return -1;
		if (r == 0) {
			int bad = b3_parse(text, tlen, k, out + 32 * at);
			free(text);
			if (bad) {
				snprintf(err, errlen, _("%s: expected one line of 64 hex digits per file "
					 "(b3sum --no-names)"), prog);
				return -1;
			}
			for (size_t i = 0; i < k; i++)
				ok[at + i] = true;
		} else {
			free(text);
			/* One file failed: which, b3sum only says on stderr. Redo them one by one. */
			for (size_t i = 0; i < k && k > 1; i++) {
				r = b3_run(prog, paths + at + i, 1, &text, &tlen, err, errlen);
				if (r < 0)
					return -1;
				ok[at + i] = r == 0 && !b3_parse(text, tlen, 1, out + 32 * (at + i));
				free(text);
			}
		}
		at += k;
	}
	return 0;
}
