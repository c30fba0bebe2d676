/*
 * workload_yaml.c - read a workload file (a YAML mapping of field: value)
 * with libyaml's event parser. Every error names file, line and field.
 */
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "workload.h"

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
			snprintf(err, errlen, "%s:%zu: %s: YAML syntax error: %s", fname,
				 p->problem_mark.line + 1, key, p->problem ? p->problem : "?");
			return -1;
		}
		if (e.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&e);
			break;
		}
		if (e.type != YAML_SCALAR_EVENT) {
			snprintf(err, errlen, "%s:%zu: %s: expected a list of names", fname,
				 ev_line(&e), key);
			yaml_event_delete(&e);
			return -1;
		}
		if (strlen(out) + e.data.scalar.length + 2 > n) {
			snprintf(err, errlen, "%s:%zu: %s: list too long", fname, ev_line(&e), key);
			yaml_event_delete(&e);
			return -1;
		}
		if (out[0])
			strcat(out, ",");
		strncat(out, (const char *)e.data.scalar.value, e.data.scalar.length);
		yaml_event_delete(&e);
	}
	if (!out[0]) {
		snprintf(err, errlen, "%s:%zu: %s: expected a non-empty list", fname, line, key);
		return -1;
	}
	return 0;
}

int workload_load_yaml(struct workload *w, const char *buf, size_t len,
		       const char *fname, char *err, size_t errlen)
{
	yaml_parser_t p;
	yaml_event_t e;
	char key[128], value[512], msg[384];
	size_t key_line = 0, seen_line[64] = {0};
	int depth = 0, expect_key = 1, rc = -1, done = 0;

	if (!yaml_parser_initialize(&p)) {
		snprintf(err, errlen, "%s: out of memory", fname);
		return -1;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	while (!done) {
		if (!yaml_parser_parse(&p, &e)) {
			snprintf(err, errlen, "%s:%zu: YAML syntax error: %s%s%s", fname,
				 p.problem_mark.line + 1, p.problem ? p.problem : "unknown",
				 p.context ? " " : "", p.context ? p.context : "");
			goto out;
		}
		switch (e.type) {
		case YAML_STREAM_END_EVENT:
		case YAML_DOCUMENT_END_EVENT:
			done = 1;
			break;
		case YAML_STREAM_START_EVENT:
		case YAML_DOCUMENT_START_EVENT:
			break;
		case YAML_MAPPING_START_EVENT:
			if (depth > 0) {
				snprintf(err, errlen, "%s:%zu: %s: expected a single value, got a nested mapping",
					 fname, ev_line(&e), key);
				goto out_event;
			}
			depth++;
			break;
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		case YAML_SCALAR_EVENT:
			if (depth == 0) {
				snprintf(err, errlen, "%s:%zu: expected a mapping of field: value, got a plain value",
					 fname, ev_line(&e));
				goto out_event;
			}
			if (expect_key) {
				int idx;
				if (e.data.scalar.length >= sizeof(key)) {
					snprintf(err, errlen, "%s:%zu: field name too long", fname, ev_line(&e));
					goto out_event;
				}
				memcpy(key, e.data.scalar.value, e.data.scalar.length);
				key[e.data.scalar.length] = '\0';
				key_line = ev_line(&e);
				idx = workload_field_index(key);
				if (idx >= 0 && seen_line[idx]) {
					snprintf(err, errlen, "%s:%zu: %s: duplicate field (first given on line %zu)",
						 fname, key_line, key, seen_line[idx]);
					goto out_event;
				}
				if (idx >= 0)
					seen_line[idx] = key_line;
				expect_key = 0;
			} else {
				int r;
				if (e.data.scalar.length >= sizeof(value)) {
					snprintf(err, errlen, "%s:%zu: %s: value too long", fname, ev_line(&e), key);
					goto out_event;
				}
				memcpy(value, e.data.scalar.value, e.data.scalar.length);
				value[e.data.scalar.length] = '\0';
				if (e.data.scalar.plain_implicit && (!strcmp(value, "~") || !strcmp(value, "null") || !value[0])) {
					snprintf(err, errlen, "%s:%zu: %s: expected a value, got nothing",
						 fname, key_line, key);
					goto out_event;
				}
				r = workload_set(w, key, value, key_line, msg, sizeof(msg));
				if (r) {
					snprintf(err, errlen, "%s:%zu: %s: %s", fname, key_line, key, msg);
					goto out_event;
				}
				expect_key = 1;
			}
			break;
		case YAML_SEQUENCE_START_EVENT:
			if (depth == 0 || expect_key) {
				snprintf(err, errlen, "%s:%zu: expected a mapping of field: value, got a list",
					 fname, ev_line(&e));
				goto out_event;
			}
			if (read_list(&p, value, sizeof(value), fname, key, key_line, err, errlen))
				goto out_event;
			if (workload_set(w, key, value, key_line, msg, sizeof(msg))) {
				snprintf(err, errlen, "%s:%zu: %s: %s", fname, key_line, key, msg);
				goto out_event;
			}
			expect_key = 1;
			break;
		case YAML_ALIAS_EVENT:
			snprintf(err, errlen, "%s:%zu: %s: YAML aliases are not supported here",
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
out_event:
	yaml_event_delete(&e);
out:
	yaml_parser_delete(&p);
	return rc;
}
