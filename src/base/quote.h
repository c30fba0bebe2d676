/*
 * quote.h - copy text from user input into an error message safely: raw
 * control bytes become \xNN (a message can never carry an escape sequence
 * to a terminal) and long values are shortened with "…".
 */
#ifndef GPURENT_QUOTE_H
#define GPURENT_QUOTE_H

#include <stddef.h>
#include <stdint.h>

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

/*
 * The code point of the well-formed UTF-8 sequence at s[0..n) (n >= 1) in
 * *cp (when cp is not NULL) and its length (1..4), or 0 when s[0] starts
 * none: a stray byte, an overlong form, a surrogate, past U+10FFFF. The
 * one UTF-8 reader behind out_utf8_len() and the YAML emitter.
 */
size_t quote_utf8_at(const unsigned char *s, size_t n, uint32_t *cp);

#endif
