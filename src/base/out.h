/*
 * out.h - writing values that come from input (catalog fields, ledger
 * fields, file names) where a human or a parser reads them: escaped for a
 * terminal, quoted for CSV. One rule for every command, so that no catalog
 * or dataset can clear or retitle the user's terminal.
 */
#ifndef GPURENT_OUT_H
#define GPURENT_OUT_H

#include <stddef.h>
#include <stdio.h>

/*
 * The length (2..4) of the well-formed UTF-8 sequence at s[0..n) when s[0]
 * starts one (no overlongs, surrogates or values past U+10FFFF), else 0.
 * s is borrowed.
 */
size_t out_utf8_len(const unsigned char *s, size_t n);

/*
 * Write s[0..n) to f for a terminal: C0 controls, DEL, the C1 controls
 * (U+0080..U+009F) and bytes that are not valid UTF-8 become "\xNN" (one
 * per byte), newline, tab and CR become "\n", "\t", "\r"; everything else,
 * valid UTF-8 included, is written as is. s is borrowed.
 */
void out_write_safe(FILE *f, const char *s, size_t n);

/* out_write_safe() of the NUL-terminated s (NULL writes nothing). */
void out_puts_safe(FILE *f, const char *s);

/*
 * The same escaping into buf (size bufn > 0, always NUL-terminated; cut
 * before an escape or character that does not fit). Returns buf, which the
 * caller owns; s[0..n) is borrowed. For printf("%-14s", ...) columns.
 */
const char *out_safe(const char *s, size_t n, char *buf, size_t bufn);

/*
 * Write s[0..n) as one CSV field (RFC 4180): in double quotes, with
 * quotes doubled, when it holds a comma, a quote, CR or LF; else as is.
 */
void out_csv_field(FILE *f, const char *s, size_t n);

/*
 * The columns a terminal gives s (UTF-8): East Asian wide characters (CJK,
 * Hangul, full-width forms) take two, other characters one; bytes that are
 * not UTF-8 one each. s is borrowed.
 */
size_t out_width(const char *s);

/*
 * A table heading of n cells (translated words: their widths in columns,
 * not bytes): cell i padded to |width[i]| columns, on the left when
 * width[i] < 0, on the right when > 0, as it is when 0; one space between
 * cells, a newline at the end. Cells are borrowed.
 */
void out_heading(FILE *f, const int *width, const char *const *cell, size_t n);

/* Unix seconds t as ISO 8601 UTC ("2024-03-05T14:00:00Z") in buf; "" when t
 * is not finite or out of range. Returns buf. */
char *out_utc(double t, char *buf, size_t n);

#endif
