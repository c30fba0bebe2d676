/*
 * out.c - terminal-safe and CSV-quoted output of values that come from
 * input (out.h).
 */
#include "base/out.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "base/quote.h"

size_t out_utf8_len(const unsigned char *s, size_t n)
{
	return s[0] < 0x80 ? 0 : quote_utf8_at(s, n, NULL);
}

/*
 * The escape for the byte or character at s[0..n): fills esc (at least 9
 * bytes) and returns the number of input bytes it stands for; *esc_len is
 * 0 when the bytes are written as they are.
 */
static size_t escape_at(const unsigned char *s, size_t n, char *esc, size_t *esc_len)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char c = s[0];
	size_t k;

	*esc_len = 0;
	if (c == '\n' || c == '\t' || c == '\r') {
		esc[0] = '\\';
		esc[1] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
		*esc_len = 2;
		return 1;
	}
	if (c >= 0x20 && c < 0x7f)
		return 1;
	if (c >= 0x80 && (k = out_utf8_len(s, n))) {
		if (!(c == 0xc2 && s[1] <= 0x9f))
			return k;
		/* a C1 control, U+0080..U+009F: both bytes escaped */
		memcpy(esc, "\\xc2\\x", 6);
		esc[6] = hex[s[1] >> 4];
		esc[7] = hex[s[1] & 15];
		*esc_len = 8;
		return 2;
	}
	esc[0] = '\\';
	esc[1] = 'x';
	esc[2] = hex[c >> 4];
	esc[3] = hex[c & 15];
	*esc_len = 4;
	return 1;
}

void out_write_safe(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;

	while (i < n) {
		char esc[9];
		size_t el, k = escape_at(p + i, n - i, esc, &el);
		if (!el) {
			i += k;
			continue;
		}
		fwrite(p + run, 1, i - run, f);
		fwrite(esc, 1, el, f);
		i += k;
		run = i;
	}
	fwrite(p + run, 1, n - run, f);
}

void out_puts_safe(FILE *f, const char *s)
{
	if (s)
		out_write_safe(f, s, strlen(s));
}

const char *out_safe(const char *s, size_t n, char *buf, size_t bufn)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, o = 0;

	while (i < n) {
		char esc[9];
		size_t el, k = escape_at(p + i, n - i, esc, &el);
		const char *src = el ? esc : s + i;
		size_t len = el ? el : k;
		if (o + len + 1 > bufn)
			break;
		memcpy(buf + o, src, len);
		o += len;
		i += k;
	}
	buf[o] = '\0';
	return buf;
}

void out_csv_field(FILE *f, const char *s, size_t n)
{
	bool quote = false;

	for (size_t i = 0; i < n && !quote; i++)
		quote = s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n';
	if (!quote) {
		fwrite(s, 1, n, f);
		return;
	}
	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			fputc('"', f);
		fputc(s[i], f);
	}
	fputc('"', f);
}

/* U+1100..U+115F, U+2E80..U+A4CF (not U+303F), U+AC00..U+D7A3, U+F900..U+FAFF,
 * U+FE30..U+FE4F, U+FF00..U+FF60, U+FFE0..U+FFE6, U+20000..U+3FFFD: wide
 * (Unicode's East Asian Width W and F, the ranges wcwidth() gives 2). */
static int wide(unsigned long u)
{
	return (u >= 0x1100 && u <= 0x115f) || (u >= 0x2e80 && u <= 0xa4cf && u != 0x303f) ||
	       (u >= 0xac00 && u <= 0xd7a3) || (u >= 0xf900 && u <= 0xfaff) ||
	       (u >= 0xfe30 && u <= 0xfe4f) || (u >= 0xff00 && u <= 0xff60) ||
	       (u >= 0xffe0 && u <= 0xffe6) || (u >= 0x20000 && u <= 0x3fffd);
}

size_t out_width(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), w = 0;

	for (size_t i = 0; i < n;) {
		size_t k = p[i] >= 0x80 ? out_utf8_len(p + i, n - i) : 0;
		unsigned long u;

		if (!k) {
			w++, i++;
			continue;
		}
		u = p[i] & (0xff >> (k + 1));
		for (size_t j = 1; j < k; j++)
			u = u << 6 | (p[i + j] & 0x3f);
		w += wide(u) ? 2 : 1;
		i += k;
	}
	return w;
}

void out_heading(FILE *f, const int *width, const char *const *cell, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t w = out_width(cell[i]), want = (size_t)(width[i] < 0 ? -width[i] : width[i]);
		int pad = w < want ? (int)(want - w) : 0;

		if (i)
			putc(' ', f);
		if (width[i] > 0)
			fprintf(f, "%*s", pad, "");
		fputs(cell[i], f);
		if (width[i] < 0 && i + 1 < n)
			fprintf(f, "%*s", pad, "");
	}
	putc('\n', f);
}

char *out_utc(double t, char *buf, size_t n)
{
	time_t tt;
	struct tm tm;

	buf[0] = '\0';
	if (!isfinite(t) || fabs(t) > 1e15)   /* the cast below would be undefined */
		return buf;
	tt = (time_t)floor(t);
	if (gmtime_r(&tt, &tm))
		strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return buf;
}
