/*
 * yaml.h - the one YAML reader over libyaml's event parser: a parser on a
 * buffer, the 1-based line of an event, the null words, a node skipped or
 * built into a small tree, each bounded by YT_MAX_DEPTH. Used by the task
 * (core/task/skytask*.c), the workload (core/task/workload_yaml.c) and the
 * defaults file (core/text/config.c). Pure: no I/O.
 */
#ifndef GPURENT_YAML_H
#define GPURENT_YAML_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

/* Nodes a reader skips or builds may nest this deep; deeper is refused, so
 * a file of 40,000 '[' ends at once (libyaml's scanner slows with every
 * open flow level). */
#define YT_MAX_DEPTH 64

/* A parser over buf[0..len), named fname in messages written to err. */
struct yt_rd {
	yaml_parser_t p;
	const char *fname;
	char *err;
	size_t errlen;
};

/* Start r on buf. Returns 0, or -1 with "FNAME: out of memory" in err. */
int yt_open(struct yt_rd *r, const char *buf, size_t len, const char *fname, char *err, size_t errlen);
void yt_close(struct yt_rd *r);

/* The 1-based line of a mark, of an event's start. */
size_t yt_line(const yaml_mark_t *m);
size_t yt_ev_line(const yaml_event_t *e);

/* Whether the scalar text s (NUL-ended, len bytes) is a null word: empty,
 * "~" or "null", and with any_case "Null" and "NULL" too. The caller asks
 * for a plain scalar (a quoted "null" is text). */
bool yt_null_word(const char *s, size_t len, bool any_case);

/* "FNAME:LINE: [WHERE: ]YAML syntax error: PROBLEM" in r->err; -1. */
int yt_syntax(struct yt_rd *r, const char *where);

/* "FNAME:LINE: WHERE: nesting deeper than YT_MAX_DEPTH levels" in err; -1. */
int yt_too_deep(char *err, size_t errlen, const char *fname, size_t line, const char *where);

/*
 * Consume the rest of a node whose first event (first, not deleted here)
 * was just read, at depth0 levels down. Returns 0; -1 on a YAML syntax
 * error (the parser's problem is set); -2 when it nests deeper than
 * YT_MAX_DEPTH (*line: where).
 */
int yt_skip(yaml_parser_t *p, const yaml_event_t *first, int depth0, size_t *line);

/* ---- a small tree of a node's values ---- */

enum yt_type { YT_SCALAR, YT_MAP, YT_SEQ, YT_ALIAS };

struct yt_node {
	enum yt_type type;
	size_t line;
	char *s;               /* scalar text, owned, NUL-terminated */
	size_t len;
	bool null;             /* a plain null, ~ or empty scalar (any case) */
	bool flow;             /* a mapping or list written in flow style ({...}, [...]) */
	size_t col;            /* its 0-based column, in characters */
	size_t off, end;       /* its bytes in the buffer: [off, end) (a scalar's text as written) */
	struct yt_node *kid;   /* map: key, value, key, value...; seq: items; owned */
	size_t nkid, cap;
};

/*
 * Build into n the node whose first event e was just read (e is consumed),
 * depth levels down; where names it in messages. Returns 0, or -1 with
 * "FNAME:LINE: WHERE: ..." in r->err (a syntax error, nesting deeper than
 * YT_MAX_DEPTH, out of memory). Free n with yt_free() in both cases.
 */
int yt_build(struct yt_rd *r, yaml_event_t *e, struct yt_node *n, int depth, const char *where);
void yt_free(struct yt_node *n);

#endif
