/*
 * strbuf.h - the one string builder (header-only, so src/core can use it
 * without I/O): text appended piece by piece, either into a buffer that
 * grows on the heap or into the caller's fixed array, where appends are
 * cut at the end (git's strbuf, with a fixed mode for the message words).
 */
#ifndef GPURENT_STRBUF_H
#define GPURENT_STRBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct strbuf {
	char *p;        /* the text, terminated once anything was added; growing: owned */
	size_t len;     /* bytes of text */
	size_t cap;     /* bytes of p */
	bool fixed;     /* p is the caller's array: appends are cut where it is full */
	bool oom;       /* a growing buffer could not grow: appends do nothing more */
};

/* A growing buffer: struct strbuf b = STRBUF_INIT; ...; free with strbuf_release(). */
#define STRBUF_INIT {NULL, 0, 0, false, false}

/* Write into arr (n bytes, n > 0), starting empty; nothing to release. */
static inline void strbuf_fixed(struct strbuf *b, char *arr, size_t n)
{
	b->p = arr;
	b->len = 0;
	b->cap = n;
	b->fixed = true;
	b->oom = false;
	if (n)
		arr[0] = '\0';
}

/* Room for n more bytes and the terminator; false when there is none. */
static inline bool strbuf_room(struct strbuf *b, size_t n)
{
	size_t ncap;
	char *np;

	if (b->oom)
		return false;
	if (b->cap - b->len >= n + 1)
		return true;
	if (b->fixed)
		return false;
	ncap = b->cap ? b->cap : 256;
	while (ncap - b->len < n + 1) {
		if (ncap > (size_t)-1 / 2) {
			b->oom = true;
			return false;
		}
		ncap *= 2;
	}
	if (!(np = realloc(b->p, ncap))) {
		b->oom = true;
		return false;
	}
	b->p = np;
	b->cap = ncap;
	return true;
}

/* Append n bytes of s (in fixed mode, as many as fit). */
static inline void strbuf_add(struct strbuf *b, const char *s, size_t n)
{
	if (!strbuf_room(b, n)) {
		if (!b->fixed || b->cap <= b->len + 1)
			return;
		n = b->cap - b->len - 1;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static inline void strbuf_addstr(struct strbuf *b, const char *s)
{
	strbuf_add(b, s, strlen(s));
}

static inline void strbuf_vaddf(struct strbuf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
static inline void strbuf_vaddf(struct strbuf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	int k;

	va_copy(ap2, ap);
	k = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (k <= 0)
		return;
	if (!strbuf_room(b, (size_t)k) && (!b->fixed || b->cap <= b->len + 1))
		return;
	vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	b->len += (size_t)k < b->cap - b->len ? (size_t)k : b->cap - b->len - 1;
}

static inline void strbuf_addf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void strbuf_addf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(b, fmt, ap);
	va_end(ap);
}

/* Free a growing buffer and make it empty again; a fixed one is only emptied. */
static inline void strbuf_release(struct strbuf *b)
{
	if (b->fixed) {
		strbuf_fixed(b, b->p, b->cap);
		return;
	}
	free(b->p);
	*b = (struct strbuf)STRBUF_INIT;
}

#endif
