/*
 * workload_yaml.c - read a workload file (a YAML mapping of field: value)
 * with libyaml's event parser. Every error names file, line and field.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "base/quote.h"

#include "core/task/skytask.h"
#include "core/model/workload.h"
#include "base/util.h"
#include "base/i18n.h"

static size_t ev_line(const yaml_event_t *e)
{
	return e->start_mark.line + 1;
}

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
				 ev_line(&e), key);
			yaml_event_delete(&e);
			return -1;
		}
		if (strlen(out) + e.data.scalar.length + 2 > n) {
			snprintf(err, errlen, _("%s:%zu: %s: list too long"), fname, ev_line(&e), key);
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


/* Nodes gpurent skips (envs:, run:, resources' any_of, ...) may nest
 * this deep; deeper is refused, so a file of 40,000 '[' ends at once
 * (libyaml's scanner slows with every open flow level). */
#define YAML_MAX_DEPTH 64

/*
 * Consume the rest of a node whose start event `first` was just read.
 * Returns 0; -1 on a YAML syntax error (the parser's problem is set);
 * -2 when it nests deeper than YAML_MAX_DEPTH (*line: where).
 */
static int skip_node(yaml_parser_t *p, const yaml_event_t *first, int depth0, size_t *line)
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
			if (++depth + depth0 > YAML_MAX_DEPTH) {
				*line = ev_line(&e);
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
		if (depth > YAML_MAX_DEPTH)
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

int workload_load_yaml(struct workload *w, const char *buf, size_t len,
		       const char *fname, char *err, size_t errlen)
{
	yaml_parser_t p;
	yaml_event_t e;
	char key[128], value[512], msg[384], q[QUOTE_KEEP * 4 + 8];
	size_t key_line = 0, seen_line[WORKLOAD_MAX_FIELDS] = {0}, dline = 0;
	int depth = 0, expect_key = 1, rc = -1, done = 0, docs = 0;
	bool field_seen = false, skip_val = false;
	int is_task = -1;   /* the file read as a SkyPilot task: -1 not yet asked */

	key[0] = '\0';
	if (!yaml_parser_initialize(&p)) {
		snprintf(err, errlen, _("%s: out of memory"), fname);
		return -1;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	while (!done) {
		if (!yaml_parser_parse(&p, &e)) {
			snprintf(err, errlen, _("%s:%zu: YAML syntax error: %s%s%s"), fname,
				 p.problem_mark.line + 1, p.problem ? p.problem : "unknown",
				 p.context ? " " : "", p.context ? p.context : "");
			goto out;
		}
		switch (e.type) {
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		case YAML_DOCUMENT_END_EVENT:
		case YAML_STREAM_START_EVENT:
			break;
		case YAML_DOCUMENT_START_EVENT:
			/* a SkyPilot pipeline's later documents may hold task keys
			 * only: a workload field there is refused below, not dropped */
			docs++;
			break;
		case YAML_MAPPING_START_EVENT:
			if (depth > 0 && !expect_key && skip_val) {
				int k = skip_node(&p, &e, depth, &dline);
				if (k == -2)
					goto too_deep;
				if (k)
					goto syntax_in_skip;
				expect_key = 1;
				break;
			}
			if (depth > 0) {
				snprintf(err, errlen, _("%s:%zu: %s: expected a single value, got a nested mapping"),
					 fname, ev_line(&e), expect_key ? "(key)" : key);
				goto out_event;
			}
			depth++;
			break;
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		case YAML_SCALAR_EVENT:
			if (depth == 0 && e.data.scalar.plain_implicit && !e.data.scalar.length)
				break;   /* an empty document ('---' at the end) */
			if (depth == 0) {
				snprintf(err, errlen, _("%s:%zu: expected a mapping of field: value, got a plain value"),
					 fname, ev_line(&e));
				goto out_event;
			}
			if (expect_key) {
				int idx;
				size_t *first = NULL;
				if (e.data.scalar.length >= sizeof(key)) {
					snprintf(err, errlen, _("%s:%zu: field name too long"), fname, ev_line(&e));
					goto out_event;
				}
				memcpy(key, e.data.scalar.value, e.data.scalar.length);
				key[e.data.scalar.length] = '\0';
				key_line = ev_line(&e);
				idx = workload_field_index(key);
				if (idx >= 0 && docs > 1) {
					snprintf(err, errlen, _("%s:%zu: %s: a workload field in YAML document %d; gpurent reads "
						 "the workload from the first document (later ones may hold SkyPilot task keys "
						 "only)"), fname, key_line, quote_value(key, q, sizeof(q)), docs);
					goto out_event;
				}
				if (idx >= 0)
					first = &seen_line[idx];
				/* a task key, or in a SkyPilot task any other non-field key
				 * (a job group's primary_tasks:): skytask.c reads the task */
				skip_val = idx < 0 && (sky_task_key(key) || file_is_task(buf, len, fname, &is_task));
				if (first && *first) {
					snprintf(err, errlen, _("%s:%zu: %s: duplicate field (first given on line %zu)"),
						 fname, key_line, quote_value(key, q, sizeof(q)), *first);
					goto out_event;
				}
				if (first)
					*first = key_line;
				expect_key = 0;
			} else {
				int r;
				if (skip_val) {   /* name: x, run: ..., num_nodes: 2: skytask.c's */
					expect_key = 1;
					break;
				}
				if (e.data.scalar.length >= sizeof(value)) {
					snprintf(err, errlen, _("%s:%zu: %s: value too long"), fname, ev_line(&e), key);
					goto out_event;
				}
				memcpy(value, e.data.scalar.value, e.data.scalar.length);
				value[e.data.scalar.length] = '\0';
				if (e.data.scalar.plain_implicit && (!strcmp(value, "~") || !strcmp(value, "null") || !value[0])) {
					snprintf(err, errlen, _("%s:%zu: %s: expected a value, got nothing"),
						 fname, key_line, key);
					goto out_event;
				}
				r = workload_set(w, key, value, key_line, msg, sizeof(msg));
				if (r) {
					snprintf(err, errlen, "%s:%zu: %s: %s", fname, key_line, key, msg);
					goto out_event;
				}
				field_seen = true;
				expect_key = 1;
			}
			break;
		case YAML_SEQUENCE_START_EVENT:
			if (depth > 0 && !expect_key && skip_val) {
				int k = skip_node(&p, &e, depth, &dline);
				if (k == -2)
					goto too_deep;
				if (k)
					goto syntax_in_skip;
				expect_key = 1;
				break;
			}
			if (depth == 0 || expect_key) {
				snprintf(err, errlen, _("%s:%zu: expected a mapping of field: value, got a list"),
					 fname, ev_line(&e));
				goto out_event;
			}
			if (read_list(&p, value, sizeof(value), fname, key, key_line, err, errlen))
				goto out_event;
			if (workload_set(w, key, value, key_line, msg, sizeof(msg))) {
				snprintf(err, errlen, "%s:%zu: %s: %s", fname, key_line, key, msg);
				goto out_event;
			}
			field_seen = true;
			expect_key = 1;
			break;
		case YAML_ALIAS_EVENT:
			if (depth > 0 && !expect_key && skip_val) {
				expect_key = 1;
				break;
			}
			snprintf(err, errlen, _("%s:%zu: %s: YAML aliases are not supported here"),
				 fname, ev_line(&e), expect_key ? "(key)" : key);
			goto out_event;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_NO_EVENT:
			break;
		}
		yaml_event_delete(&e);
	}
	rc = 0;
	goto out;
too_deep:
	snprintf(err, errlen, _("%s:%zu: %s: nesting deeper than %d levels"), fname, dline, key,
		 YAML_MAX_DEPTH);
	goto out_event;
syntax_in_skip:
	snprintf(err, errlen, _("%s:%zu: %s: YAML syntax error: %s"), fname, p.problem_mark.line + 1, key,
		 p.problem ? p.problem : "unknown");
out_event:
	yaml_event_delete(&e);
out:
	yaml_parser_delete(&p);
	if (rc && !field_seen)
		not_a_task(buf, len, fname, err, errlen);
	/* one line, whatever bytes the file's keys and values held: \xNN */
	if (rc)
		quote_message(err, errlen);
	return rc;
}
