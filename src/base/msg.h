/*
 * msg.h - the one message layer of the commands: every error, warning and
 * note a command writes to stderr goes through here, with one prefix
 * ("gpurent CMD: "), control bytes from the input escaped, and the
 * locale set for messages only (LC_MESSAGES; never LC_NUMERIC, so JSON and
 * CSV keep their decimal point). Bad input is one line
 * "gpurent CMD: FILE:LINE: FIELD: what was expected" and exit status 2.
 */
#ifndef GPURENT_MSG_H
#define GPURENT_MSG_H

#include <stddef.h>

#include "base/i18n.h"

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

/* Once, in main(): set LC_MESSAGES from the environment and bind the
 * "gpurent" text domain (LOCALEDIR, or GPURENT_LOCALEDIR when set). */
void msg_init(void);

/* The command the messages are about ("plan", "ledger add"); NULL for none.
 * The string is borrowed and must outlive the messages. */
void msg_set_cmd(const char *cmd);

/* "gpurent CMD: ..." to stderr, one line (a trailing newline is added). */
void msg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "gpurent CMD: warning: ..." */
void msg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "gpurent CMD: ..." for a note that is neither (progress, what was skipped). */
void msg_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* msg_error() and return EXIT_USAGE (2) / EXIT_RUNTIME (1). */
int msg_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int msg_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Copy s into buf (n bytes, always terminated) with every byte a terminal
 * could act on escaped by out.h's one rule (\n, \t, \r, else \xNN: C0
 * controls, DEL, the C1 controls U+0080..U+009F and bytes that are not
 * UTF-8). Valid UTF-8 (Chinese) stays as it is. Returns buf.
 */
char *msg_escape(const char *s, char *buf, size_t n);

/* From now on _() answers the English msgid: machine-readable output
 * (JSON) begins, and words it holds stay the same in every locale. */
void msg_untranslated(void);

/* The translation of a string held in a table the catalog may know (a help
 * line of src/core's tables); s itself when it is NULL, "" or untranslated.
 * Never for machine-readable output. Borrowed, static. */
const char *msg_tr(const char *s);

/* fflush(stdout) and report a write error (EPIPE is quiet); returns rc, or
 * 1 when the output could not be written. */
int msg_finish(int rc);

#endif
