/*
 * yaml.c - the one YAML reader over libyaml's event parser (yaml.h): the
 * parser on a buffer, lines, null words, and a node skipped or built into
 * a tree, bounded by YT_MAX_DEPTH.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text/yaml.h"
#include "base/i18n.h"

int yt_open(struct yt_rd *r, const char *buf, size_t len, const char *fname, char *err, size_t errlen)
{
	r->fname = fname;
	r->err = err;
	r->errlen = errlen;
	if (!yaml_parser_initialize(&r->p)) {
		snprintf(err, errlen, _("%s: out of memory"), fname);
		return -1;
	}
	yaml_parser_set_input_string(&r->p, (const unsigned char *)buf, len);
	return 0;
}

void yt_close(struct yt_rd *r)
{
	yaml_parser_delete(&r->p);
}

size_t yt_line(const yaml_mark_t *m)
{
	return m->line + 1;
}

size_t yt_ev_line(const yaml_event_t *e)
{
	return e->start_mark.line + 1;
}

bool yt_null_word(const char *s, size_t len, bool any_case)
{
	return !len || !strcmp(s, "~") || !strcmp(s, "null") ||
	       (any_case && (!strcmp(s, "Null") || !strcmp(s, "NULL")));
}

int yt_syntax(struct yt_rd *r, const char *where)
{
	snprintf(r->err, r->errlen, _("%s:%zu: %s%sYAML syntax error: %s"), r->fname,
		 r->p.problem_mark.line + 1, where ? where : "", where ? ": " : "",
		 r->p.problem ? r->p.problem : "unknown");
	return -1;
}

int yt_too_deep(char *err, size_t errlen, const char *fname, size_t line, const char *where)
{
	snprintf(err, errlen, _("%s:%zu: %s: nesting deeper than %d levels"), fname, line, where, YT_MAX_DEPTH);
	return -1;
}

int yt_skip(yaml_parser_t *p, const yaml_event_t *first, int depth0, size_t *line)
{
	yaml_event_t e;
	int depth;

	if (first->type != YAML_MAPPING_START_EVENT && first->type != YAML_SEQUENCE_START_EVENT)
		return 0;
	depth = 1;
	while (depth > 0) {
		if (!yaml_parser_parse(p, &e))
			return -1;
		if (e.type == YAML_MAPPING_START_EVENT || e.type == YAML_SEQUENCE_START_EVENT) {
			if (++depth + depth0 > YT_MAX_DEPTH) {
				*line = yt_ev_line(&e);
				yaml_event_delete(&e);
				return -2;
			}
		} else if (e.type == YAML_MAPPING_END_EVENT || e.type == YAML_SEQUENCE_END_EVENT) {
			depth--;
		} else if (e.type == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&e);
			return -1;
		}
		yaml_event_delete(&e);
	}
	return 0;
}

/* ---- the tree ---- */

void yt_free(struct yt_node *n)
{
	for (size_t i = 0; i < n->nkid; i++)
		yt_free(&n->kid[i]);
	free(n->kid);
	free(n->s);
	memset(n, 0, sizeof(*n));
}

/* A scalar event into n (e is consumed). */
static int build_scalar(yaml_event_t *e, struct yt_node *n)
{
	n->type = YT_SCALAR;
	n->s = malloc(e->data.scalar.length + 1);
	if (!n->s)
		return -1;
	memcpy(n->s, e->data.scalar.value, e->data.scalar.length);
	n->s[e->data.scalar.length] = '\0';
	n->len = e->data.scalar.length;
	n->null = e->data.scalar.plain_implicit && yt_null_word(n->s, n->len, true);
	yaml_event_delete(e);
	return 0;
}

int yt_build(struct yt_rd *r, yaml_event_t *e, struct yt_node *n, int depth, const char *where)
{
	memset(n, 0, sizeof(*n));
	n->line = yt_ev_line(e);
	n->col = e->start_mark.column;
	n->off = e->start_mark.index;
	n->end = e->end_mark.index;
	switch (e->type) {
	case YAML_SCALAR_EVENT:
		if (build_scalar(e, n))
			goto nomem;
		return 0;
	case YAML_ALIAS_EVENT:
		n->type = YT_ALIAS;
		yaml_event_delete(e);
		return 0;
	case YAML_MAPPING_START_EVENT:
	case YAML_SEQUENCE_START_EVENT:
		break;
	default:
		yaml_event_delete(e);
		snprintf(r->err, r->errlen, _("%s:%zu: %s: unexpected YAML event"), r->fname, n->line, where);
		return -1;
	}
	n->type = e->type == YAML_MAPPING_START_EVENT ? YT_MAP : YT_SEQ;
	n->flow = e->type == YAML_MAPPING_START_EVENT ? e->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE :
		  e->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE;
	yaml_event_delete(e);
	if (depth > YT_MAX_DEPTH)
		return yt_too_deep(r->err, r->errlen, r->fname, n->line, where);
	for (;;) {
		yaml_event_t x;
		if (!yaml_parser_parse(&r->p, &x))
			return yt_syntax(r, where);
		if (x.type == YAML_MAPPING_END_EVENT || x.type == YAML_SEQUENCE_END_EVENT) {
			n->end = x.end_mark.index;
			yaml_event_delete(&x);
			return 0;
		}
		if (n->nkid == n->cap) {
			size_t nc = n->cap ? n->cap * 2 : 8;
			struct yt_node *k = realloc(n->kid, nc * sizeof(*k));
			if (!k) {
				yaml_event_delete(&x);
				goto nomem;
			}
			n->kid = k;
			n->cap = nc;
		}
		if (yt_build(r, &x, &n->kid[n->nkid], depth + 1, where)) {
			n->nkid++;   /* freed with the rest */
			return -1;
		}
		n->nkid++;
	}
nomem:
	snprintf(r->err, r->errlen, _("%s:%zu: %s: out of memory"), r->fname, n->line, where);
	return -1;
}
