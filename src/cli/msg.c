/*
 * msg.c - the message layer (msg.h): one prefix, escaped control bytes,
 * the text domain bound once.
 */
#include "msg.h"

#include <limits.h>

#include <errno.h>
#include <locale.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef GPURENT_LOCALEDIR
#define GPURENT_LOCALEDIR "/usr/local/share/locale"
#endif

static const char *msg_command;

void msg_init(void)
{
	const char *dir = getenv("GPURENT_LOCALEDIR");

	setlocale(LC_MESSAGES, "");
#if defined(__GLIBC__) || defined(GPURENT_NLS)
	bindtextdomain("gpurent", dir && *dir ? dir : GPURENT_LOCALEDIR);
	bind_textdomain_codeset("gpurent", "UTF-8");
	textdomain("gpurent");
#else
	(void)dir;
#endif
}

void msg_set_cmd(const char *cmd)
{
	msg_command = cmd;
}

const char *msg_cmd(void)
{
	return msg_command;
}

/* Length of the UTF-8 sequence at s (1..4), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	if (cp >= 0x80 && cp <= 0x9f)   /* C1 controls: a terminal acts on them */
		return 0;
	return n;
}

char *msg_escape(const char *s, char *buf, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t k = 0;

	if (!n)
		return buf;
	while (*p) {
		size_t len = utf8_len(p);
		bool raw = len > 1 || (len == 1 && ((*p >= 0x20 && *p != 0x7f) || *p == '\t'));
		if (raw) {
			if (k + len >= n)
				break;
			memcpy(buf + k, p, len);
			k += len;
			p += len;
		} else {
			if (k + 4 >= n)
				break;
			snprintf(buf + k, n - k, "\\x%02x", *p);
			k += 4;
			p++;
		}
	}
	buf[k] = '\0';
	return buf;
}

static void vsay(const char *kind, const char *fmt, va_list ap)
{
	char line[4096], safe[4 * sizeof(line)];
	size_t n;

	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	if (n && line[n - 1] == '\n')
		line[n - 1] = '\0';
	msg_escape(line, safe, sizeof(safe));   /* one line: a newline of the input is \x0a */
	fflush(stdout);
	if (msg_command)
		fprintf(stderr, "gpurent %s: %s%s\n", msg_command, kind, safe);
	else
		fprintf(stderr, "gpurent: %s%s\n", kind, safe);
}

void msg_verror(const char *fmt, va_list ap)
{
	vsay("", fmt, ap);
}

void msg_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
}

void msg_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(_("warning: "), fmt, ap);
	va_end(ap);
}

void msg_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
}

int msg_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
	return EXIT_USAGE;
}

int msg_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("", fmt, ap);
	va_end(ap);
	return EXIT_RUNTIME;
}

int msg_finish(int rc)
{
	if (fflush(stdout) || ferror(stdout)) {
		if (errno == EPIPE)
			return rc;
		msg_error(_("cannot write the output: %s"), strerror(errno));
		return EXIT_RUNTIME;
	}
	return rc;
}
