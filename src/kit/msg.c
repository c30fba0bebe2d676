/*
 * msg.c - the message layer (msg.h): one prefix, escaped control bytes,
 * the text domain bound once.
 */
#include "base/msg.h"
#include "base/out.h"
#include "base/i18n.h"
#include "os/sys.h"

#include <limits.h>   /* defines __GLIBC__ on glibc */
#if defined(__GLIBC__) || defined(GPURENT_NLS)
#include <libintl.h>
#endif

#include <errno.h>
#include <stdarg.h>
#include <locale.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef GPURENT_LOCALEDIR
#define GPURENT_LOCALEDIR "/usr/local/share/locale"
#endif

static const char *msg_command;

static const char *msg_ntr(const char *s, const char *p, unsigned long n);

void msg_init(void)
{
	const char *dir = getenv("GPURENT_LOCALEDIR");
	char here[PATH_MAX + 8];

	setlocale(LC_MESSAGES, "");
	/* a program run from its build folder (build/gpurent) reads the
	 * catalogs built beside it (build/locale), not an older install's */
	if (!(dir && *dir) && sys_self_path(here, PATH_MAX) > 0 && strrchr(here, '/')) {
		struct stat st;

		strcpy(strrchr(here, '/') + 1, "locale");
		if (!stat(here, &st) && S_ISDIR(st.st_mode))
			dir = here;
	}
#if defined(__GLIBC__) || defined(GPURENT_NLS)
	bindtextdomain("gpurent", dir && *dir ? dir : GPURENT_LOCALEDIR);
	bind_textdomain_codeset("gpurent", "UTF-8");
	/* strerror() and friends: LC_CTYPE stays "C", so without this glibc
	 * turns its own translated messages into "?????" */
	bind_textdomain_codeset("libc", "UTF-8");
	textdomain("gpurent");
	core_tr = msg_tr;   /* every _() from here on, the core's too */
	core_ntr = msg_ntr;
#else
	(void)dir;
#endif
}

void msg_untranslated(void)
{
#if defined(__GLIBC__) || defined(GPURENT_NLS)
	textdomain("gpurent-untranslated");   /* a domain with no catalog */
#endif
	setlocale(LC_MESSAGES, "C");   /* strerror() and the C library's own words too */
	core_tr = core_tr_identity;   /* the core's messages stay English too */
	core_ntr = core_ntr_identity;
}

const char *msg_tr(const char *s)
{
#if defined(__GLIBC__) || defined(GPURENT_NLS)
	return s && *s ? gettext(s) : s;   /* gettext("") is the catalog's header */
#else
	return s;
#endif
}

/* core_ntr's value after msg_init(): ngettext. */
static const char *msg_ntr(const char *s, const char *p, unsigned long n)
{
#if defined(__GLIBC__) || defined(GPURENT_NLS)
	return ngettext(s, p, n);
#else
	return n == 1 ? s : p;
#endif
}

void msg_set_cmd(const char *cmd)
{
	msg_command = cmd;
}

char *msg_escape(const char *s, char *buf, size_t n)
{
	if (n)
		out_safe(s, strlen(s), buf, n);   /* the one escaping rule (out.h) */
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
