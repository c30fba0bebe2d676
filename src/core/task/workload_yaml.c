/*
 * workload_yaml.c - read a workload file (a YAML mapping of field: value)
 * with libyaml's event parser. Every error names file, line and field.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/quote.h"

#include "core/task/dstack.h"
#include "core/task/skytask.h"
#include "core/text/yaml.h"
#include "core/model/workload.h"
#include "base/util.h"
#include "base/i18n.h"

/* A sequence of scalars (lora_targets: [q, v]) joined with commas. */
static int read_list(yaml_parser_t *p, char *out, size_t n, const char *fname,
		     const char *key, size_t line, char *err, size_t errlen)
{
	yaml_event_t e;

	out[0] = '\0';
	for (;;) {
		if (!yaml_parser_parse(p, &e)) {
			snprintf(err, errlen, _("%s:%zu: %s: YAML syntax error: %s"), fname,
				 p->problem_mark.line + 1, key, p->problem ? p->problem : "?");
			return -1;
		}
		if (e.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&e);
			break;
		}
		if (e.type != YAML_SCALAR_EVENT) {
			snprintf(err, errlen, _("%s:%zu: %s: expected a list of names"), fname,
				 yt_ev_line(&e), key);
			yaml_event_delete(&e);
			return -1;
		}
		if (strlen(out) + e.data.scalar.length + 2 > n) {
			snprintf(err, errlen, _("%s:%zu: %s: list too long"), fname, yt_ev_line(&e), key);
			yaml_event_delete(&e);
			return -1;
		}
		if (out[0])
			strcat(out, ",");
		strncat(out, (const char *)e.data.scalar.value, e.data.scalar.length);
		yaml_event_delete(&e);
	}
	if (!out[0]) {
		snprintf(err, errlen, _("%s:%zu: %s: expected a non-empty list"), fname, line, key);
		return -1;
	}
	return 0;
}


/* Whether the first document's top-level keys include a workload field. */
static bool has_field(const char *buf, size_t len)
{
	yaml_parser_t p;
	yaml_event_t e;
	int depth = 0;
	bool key = true, found = false;

	if (!yaml_parser_initialize(&p))
		return true;
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	while (!found && yaml_parser_parse(&p, &e)) {
		yaml_event_type_t t = e.type;
		if (t == YAML_STREAM_END_EVENT || t == YAML_DOCUMENT_END_EVENT) {
			yaml_event_delete(&e);
			break;
		}
		if (t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT) {
			if (depth == 1)
				key = !key;
			depth++;
		} else if (t == YAML_MAPPING_END_EVENT || t == YAML_SEQUENCE_END_EVENT) {
			depth--;
		} else if (depth == 1 && (t == YAML_SCALAR_EVENT || t == YAML_ALIAS_EVENT)) {
			if (key && t == YAML_SCALAR_EVENT && e.data.scalar.length < 128) {
				char k[128];
				memcpy(k, e.data.scalar.value, e.data.scalar.length);
				k[e.data.scalar.length] = '\0';
				found = workload_field_index(k) >= 0;
			}
			key = !key;
		}
		yaml_event_delete(&e);
		if (depth > YT_MAX_DEPTH)
			break;
	}
	yaml_parser_delete(&p);
	return found;
}

/* Whether the file reads as a SkyPilot task whose first document holds
 * no workload field (a job group's header, a task given as it is):
 * then its other keys are skipped, else they stay errors (a typo in a
 * workload). Asked once: *state. */
static bool file_is_task(const char *buf, size_t len, const char *fname, int *state)
{
	struct sky_task t = {0};
	char msg[64];

	if (*state < 0) {
		*state = !has_field(buf, len) && sky_task_parse(buf, len, fname, &t, msg, sizeof(msg)) == 0;
		sky_task_free(&t);
	}
	return *state == 1;
}

/* A file refused before any workload field: when it is no SkyPilot task
 * either (an admin policy, a tool's config), say what it looks like. */
static void not_a_task(const char *buf, size_t len, const char *fname, char *err, size_t errlen)
{
	struct sky_task t;
	char msg[512];

	if (sky_task_parse(buf, len, fname, &t, msg, sizeof(msg)) && t.not_a_task)
		snprintf(err, errlen, _("%s, nor a gpurent workload"), msg);
	sky_task_free(&t);
}

/* The reader's state over one file. */
struct wl_rd {
	struct yt_rd r;
	struct workload *w;
	const char *buf;
	size_t len;
	char key[128], value[512], msg[384];
	size_t key_line, seen_line[WORKLOAD_MAX_FIELDS];
	int depth, expect_key, docs;
	bool field_seen, skip_val;
	int is_task;   /* the file read as a SkyPilot task: -1 not yet asked */
};

/* A skipped value's node (name: x, run: ..., resources: skytask.c's),
 * whose first event e was just read. */
static int skip_value(struct wl_rd *s, const yaml_event_t *e)
{
	size_t dline = 0;
	int k = yt_skip(&s->r.p, e, s->depth, &dline);

	if (k == -2)
		return yt_too_deep(s->r.err, s->r.errlen, s->r.fname, dline, s->key);
	if (k) {
		snprintf(s->r.err, s->r.errlen, _("%s:%zu: %s: YAML syntax error: %s"), s->r.fname,
			 s->r.p.problem_mark.line + 1, s->key, s->r.p.problem ? s->r.p.problem : "unknown");
		return -1;
	}
	s->expect_key = 1;
	return 0;
}

/* A field name (scalar event e) at the top level. */
static int on_key(struct wl_rd *s, const yaml_event_t *e)
{
	char q[QUOTE_KEEP * 4 + 8];
	size_t *first = NULL;
	int idx;

	if (e->data.scalar.length >= sizeof(s->key)) {
		snprintf(s->r.err, s->r.errlen, _("%s:%zu: field name too long"), s->r.fname, yt_ev_line(e));
		return -1;
	}
	memcpy(s->key, e->data.scalar.value, e->data.scalar.length);
	s->key[e->data.scalar.length] = '\0';
	s->key_line = yt_ev_line(e);
	idx = workload_field_index(s->key);
	if (idx >= 0 && s->docs > 1) {
		snprintf(s->r.err, s->r.errlen, _("%s:%zu: %s: a workload field in YAML document %d; gpurent reads "
			 "the workload from the first document (later ones may hold SkyPilot task keys "
			 "only)"), s->r.fname, s->key_line, quote_value(s->key, q, sizeof(q)), s->docs);
		return -1;
	}
	if (idx >= 0)
		first = &s->seen_line[idx];
	/* a task key, or in a SkyPilot task any other non-field key
	 * (a job group's primary_tasks:): skytask.c reads the task */
	s->skip_val = idx < 0 && (sky_task_key(s->key) || file_is_task(s->buf, s->len, s->r.fname, &s->is_task));
	if (first && *first) {
		snprintf(s->r.err, s->r.errlen, _("%s:%zu: %s: duplicate field (first given on line %zu)"),
			 s->r.fname, s->key_line, quote_value(s->key, q, sizeof(q)), *first);
		return -1;
	}
	if (first)
		*first = s->key_line;
	s->expect_key = 0;
	return 0;
}

/* value (NUL-ended) into the field just named. */
static int set_field(struct wl_rd *s)
{
	if (workload_set(s->w, s->key, s->value, s->key_line, s->msg, sizeof(s->msg))) {
		snprintf(s->r.err, s->r.errlen, "%s:%zu: %s: %s", s->r.fname, s->key_line, s->key, s->msg);
		return -1;
	}
	s->field_seen = true;
	s->expect_key = 1;
	return 0;
}

/* A scalar event: an empty document, a field name or its value. */
static int on_scalar(struct wl_rd *s, const yaml_event_t *e)
{
	if (s->depth == 0 && e->data.scalar.plain_implicit && !e->data.scalar.length)
		return 0;   /* an empty document ('---' at the end) */
	if (s->depth == 0) {
		snprintf(s->r.err, s->r.errlen, _("%s:%zu: expected a mapping of field: value, got a plain value"),
			 s->r.fname, yt_ev_line(e));
		return -1;
	}
	if (s->expect_key)
		return on_key(s, e);
	if (s->skip_val) {   /* name: x, run: ..., num_nodes: 2: skytask.c's */
		s->expect_key = 1;
		return 0;
	}
	if (e->data.scalar.length >= sizeof(s->value)) {
		snprintf(s->r.err, s->r.errlen, _("%s:%zu: %s: value too long"), s->r.fname, yt_ev_line(e), s->key);
		return -1;
	}
	memcpy(s->value, e->data.scalar.value, e->data.scalar.length);
	s->value[e->data.scalar.length] = '\0';
	if (e->data.scalar.plain_implicit && yt_null_word(s->value, e->data.scalar.length, false)) {
		snprintf(s->r.err, s->r.errlen, _("%s:%zu: %s: expected a value, got nothing"),
			 s->r.fname, s->key_line, s->key);
		return -1;
	}
	return set_field(s);
}

/* A mapping's start: the top level, or a skipped value. */
static int on_mapping(struct wl_rd *s, const yaml_event_t *e)
{
	if (s->depth > 0 && !s->expect_key && s->skip_val)
		return skip_value(s, e);
	if (s->depth > 0) {
		snprintf(s->r.err, s->r.errlen, _("%s:%zu: %s: expected a single value, got a nested mapping"),
			 s->r.fname, yt_ev_line(e), s->expect_key ? "(key)" : s->key);
		return -1;
	}
	s->depth++;
	return 0;
}

/* A list's start: a field's list of names, or a skipped value. */
static int on_sequence(struct wl_rd *s, const yaml_event_t *e)
{
	if (s->depth > 0 && !s->expect_key && s->skip_val)
		return skip_value(s, e);
	if (s->depth == 0 || s->expect_key) {
		snprintf(s->r.err, s->r.errlen, _("%s:%zu: expected a mapping of field: value, got a list"),
			 s->r.fname, yt_ev_line(e));
		return -1;
	}
	if (read_list(&s->r.p, s->value, sizeof(s->value), s->r.fname, s->key, s->key_line, s->r.err, s->r.errlen))
		return -1;
	return set_field(s);
}

/* One event of the stream; *done at its end. 0, or -1 with the error. */
static int on_event(struct wl_rd *s, const yaml_event_t *e, int *done)
{
	switch (e->type) {
	case YAML_STREAM_END_EVENT:
		*done = 1;
		break;
	case YAML_DOCUMENT_START_EVENT:
		/* a SkyPilot pipeline's later documents may hold task keys
		 * only: a workload field there is refused below, not dropped */
		s->docs++;
		break;
	case YAML_MAPPING_START_EVENT:
		return on_mapping(s, e);
	case YAML_MAPPING_END_EVENT:
		s->depth--;
		break;
	case YAML_SCALAR_EVENT:
		return on_scalar(s, e);
	case YAML_SEQUENCE_START_EVENT:
		return on_sequence(s, e);
	case YAML_ALIAS_EVENT:
		if (s->depth > 0 && !s->expect_key && s->skip_val) {
			s->expect_key = 1;
			break;
		}
		snprintf(s->r.err, s->r.errlen, _("%s:%zu: %s: YAML aliases are not supported here"),
			 s->r.fname, yt_ev_line(e), s->expect_key ? "(key)" : s->key);
		return -1;
	default:   /* document end, stream start, sequence end */
		break;
	}
	return 0;
}

int workload_load_yaml(struct workload *w, const char *buf, size_t len,
		       const char *fname, char *err, size_t errlen)
{
	struct wl_rd s = {.w = w, .buf = buf, .len = len, .expect_key = 1, .is_task = -1};
	yaml_event_t e;
	int rc = -1, done = 0;

	/* a dstack configuration holds no workload field (its model: and
	 * nodes: are dstack's): the workload comes from --FIELD options and
	 * the planner reads the file as dstack's (core/task/dstack.h) */
	if (dstack_file_is(buf, len, fname))
		return 0;
	if (yt_open(&s.r, buf, len, fname, err, errlen))
		return -1;
	while (!done) {
		if (!yaml_parser_parse(&s.r.p, &e)) {
			snprintf(err, errlen, _("%s:%zu: YAML syntax error: %s%s%s"), fname,
				 s.r.p.problem_mark.line + 1, s.r.p.problem ? s.r.p.problem : "unknown",
				 s.r.p.context ? " " : "", s.r.p.context ? s.r.p.context : "");
			goto out;
		}
		if (on_event(&s, &e, &done)) {
			yaml_event_delete(&e);
			goto out;
		}
		yaml_event_delete(&e);
	}
	rc = 0;
out:
	yt_close(&s.r);
	if (rc && !s.field_seen)
		not_a_task(buf, len, fname, err, errlen);
	/* one line, whatever bytes the file's keys and values held: \xNN */
	if (rc)
		quote_message(err, errlen);
	return rc;
}
