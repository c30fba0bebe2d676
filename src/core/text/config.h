/*
 * config.h - the user's defaults file ($XDG_CONFIG_HOME/gpurent/config.yaml):
 * a flat YAML mapping of key: value, a value a scalar or a list of scalars
 * (`access: [SJTU-HPC, PKU]` or a block list). This reads it and edits it
 * as text (so that comments and the order of the other keys survive a
 * `gpurent config set`); which keys exist and what their values must be is
 * the command layer's (src/kit/config.c). No I/O here.
 */
#ifndef GPURENT_CONFIG_H
#define GPURENT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#define CONFIG_MAX_VALUES 64    /* items of one list */
#define CONFIG_MAX_VALUE 1024   /* bytes of one value */

struct config_entry {
	char key[32];
	char *vals[CONFIG_MAX_VALUES];  /* owned, NUL-ended */
	size_t nvals;
	bool is_list;
	size_t line, end_line;          /* 1-based lines the entry spans */
};

struct config {
	struct config_entry *v;   /* owned */
	size_t n;
	bool flow;                /* written as one {key: value, ...}: not editable by lines */
};

/*
 * Parse len bytes of buf (fname names it in messages) into *c. keys, a
 * NULL-ended list, are the keys allowed: another key is an error with the
 * closest one suggested. Returns 0, or -1 with "fname:line: key: what was
 * expected" in err and *c empty. A key given twice, a nested mapping, an
 * empty list, a value over CONFIG_MAX_VALUE bytes or with control bytes are
 * errors. An empty file (or one of comments) is an empty config. Free with
 * config_free().
 */
int config_parse(const char *buf, size_t len, const char *fname, const char *const *keys,
		 struct config *c, char *err, size_t errlen);

void config_free(struct config *c);

/* The entry for key, or NULL. Borrowed from c. */
const struct config_entry *config_find(const struct config *c, const char *key);

/*
 * One line of YAML for key and its values: `key: value\n` (a list as a
 * flow sequence `key: [a, b]`), each value double-quoted and escaped when
 * plain YAML would read it otherwise. Returns 0, or -1 when out is too
 * small.
 */
int config_render(const char *key, const char *const *vals, size_t nvals, bool is_list, char *out,
		  size_t outlen);

/*
 * The text of buf with key's lines (as parsed into c) replaced by line
 * (a rendered entry), or removed when line is NULL; a key not in c gets
 * line appended. *out is malloc'ed (caller frees), *outlen its length.
 * Returns 0, -1 when out of memory, or -2 (nothing done) when c->flow:
 * the settings share lines, so no line can be replaced alone.
 */
int config_edit(const char *buf, size_t len, const struct config *c, const char *key, const char *line,
		char **out, size_t *outlen);

/*
 * config_edit(), and the result read back (config_parse() with fname and
 * keys): key holds line's values (or is gone when line is NULL), every
 * other setting of c is as it was and no other one appears. Returns what
 * config_edit() does, or -3 (nothing done, *out NULL) when the result
 * would read otherwise: a file config_edit's lines cannot edit (a block
 * without a final newline, lone CR line ends, UTF-16 text, ...).
 */
int config_edit_checked(const char *buf, size_t len, const char *fname, const char *const *keys,
			const struct config *c, const char *key, const char *line, char **out, size_t *outlen);

/*
 * The text of buf without key's top-level lines (the line "key:" at column
 * 0 and the indented or "- " lines below it), for a file that does not
 * parse: `config unset` repairs it. Returns 0, -1 out of memory, -2 (no
 * such line, *out NULL). *out is malloc'ed.
 */
int config_remove_text(const char *buf, size_t len, const char *key, char **out, size_t *outlen);

#endif
