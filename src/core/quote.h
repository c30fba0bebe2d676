/*
 * quote.h - copy text from user input into an error message safely: raw
 * control bytes become \xNN (a message can never carry an escape sequence
 * to a terminal) and long values are shortened with "…".
 */
#ifndef GPURENT_QUOTE_H
#define GPURENT_QUOTE_H

#include <stddef.h>

/* At most this many bytes of the value are kept before the "…". */
#define QUOTE_KEEP 64

/*
 * Write s into out (n bytes, always terminated) with bytes below 0x20 and
 * 0x7f written as \xNN, cut after QUOTE_KEEP bytes (never inside a UTF-8
 * sequence) with "…" appended. Returns out; s is only read.
 */
char *quote_value(const char *s, char *out, size_t n);

/* The same for the first len bytes of s (which need not be terminated). */
char *quote_value_n(const char *s, size_t len, char *out, size_t n);

/* Does s[0..n) hold a control byte (below 0x20, or 0x7f)? The check behind
 * every "expected text without control characters". */
int quote_has_control(const char *s, size_t n);

/* Replace raw control bytes in a finished message with \xNN in place,
 * as far as msg's n bytes allow (the tail is cut, never left unescaped). */
void quote_message(char *msg, size_t n);

#endif
