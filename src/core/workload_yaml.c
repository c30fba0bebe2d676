/*
 * workload_yaml.c - read a workload file (a YAML mapping of field: value)
 * with libyaml's event parser. Every error names file, line and field.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "units.h"

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


/* SkyPilot task keys that are not workload fields: their values are
 * skipped (a task YAML can be given to `gpurent plan` as it is). */
static const char *const sky_task_keys[] = {
	"config", "envs", "event_callback", "file_mounts", "inputs", "name", "num_nodes",
	"outputs", "run", "secrets", "service", "setup", "volumes", "workdir",
};

static bool is_sky_task_key(const char *k)
{
	for (size_t i = 0; i < sizeof(sky_task_keys) / sizeof(sky_task_keys[0]); i++)
		if (!strcmp(k, sky_task_keys[i]))
			return true;
	return false;
}

/* Consume the rest of a node whose start event `first` was just read. */
static int skip_node(yaml_parser_t *p, const yaml_event_t *first)
{
	yaml_event_t e;
	int depth;

	if (first->type != YAML_MAPPING_START_EVENT && first->type != YAML_SEQUENCE_START_EVENT)
		return 0;
	depth = 1;
	while (depth > 0) {
		if (!yaml_parser_parse(p, &e))
			return -1;
		if (e.type == YAML_MAPPING_START_EVENT || e.type == YAML_SEQUENCE_START_EVENT)
			depth++;
		else if (e.type == YAML_MAPPING_END_EVENT || e.type == YAML_SEQUENCE_END_EVENT)
			depth--;
		else if (e.type == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&e);
			return -1;
		}
		yaml_event_delete(&e);
	}
	return 0;
}

static void scalar_copy(const yaml_event_t *e, char *out, size_t n)
{
	size_t len = e->data.scalar.length < n - 1 ? e->data.scalar.length : n - 1;

	memcpy(out, e->data.scalar.value, len);
	out[len] = '\0';
}

/* "A100:8" or "A100" (count 0 = any) into the accelerator list. */
static int add_accel(struct sky_resources *r, const char *spec, const char *count_text,
		     char *err, size_t errlen)
{
	char name[64];
	const char *colon = strchr(spec, ':');
	double count = 0;

	if (r->naccel >= SKY_MAX_ACCEL) {
		snprintf(err, errlen, "accelerators: at most %d choices", SKY_MAX_ACCEL);
		return -1;
	}
	snprintf(name, sizeof(name), "%.*s", (int)(colon ? (size_t)(colon - spec) : strlen(spec)), spec);
	if (colon)
		count_text = colon + 1;
	if (count_text && *count_text) {
		char *end;
		count = strtod(count_text, &end);
		if (end == count_text || *end || !(count > 0)) {
			snprintf(err, errlen, "accelerators: expected NAME:COUNT such as A100:8, got '%s'", spec);
			return -1;
		}
	}
	if (!name[0]) {
		snprintf(err, errlen, "accelerators: expected a GPU name, got '%s'", spec);
		return -1;
	}
	if (strlen(name) >= sizeof(r->accel[0])) {
		snprintf(err, errlen, "accelerators: name longer than %zu characters", sizeof(r->accel[0]) - 1);
		return -1;
	}
	memcpy(r->accel[r->naccel], name, strlen(name) + 1);
	r->accel_count[r->naccel++] = count;
	return 0;
}

/* "8", "8+" for cpus / memory. */
static int min_value(const char *s, double *v, bool *exact, const char *key, char *err, size_t errlen)
{
	char *end;

	*v = strtod(s, &end);
	*exact = true;
	if (*end == '+') {
		*exact = false;
		end++;
	}
	if (end == s || *end || !(*v >= 0)) {
		snprintf(err, errlen, "%s: expected a number or a minimum such as 8+, got '%s'", key, s);
		return -1;
	}
	return 0;
}

/* The resources: mapping (its MAPPING_START already read). */
static int read_resources(yaml_parser_t *p, struct workload *w, const char *fname, size_t line,
			  char *err, size_t errlen)
{
	struct sky_resources *r = &w->sky;
	yaml_event_t e;
	char key[64], val[128], msg[256];

	memset(r, 0, sizeof(*r));
	r->given = true;
	r->line = line;
	r->use_spot = -1;
	for (;;) {
		size_t kline;
		if (!yaml_parser_parse(p, &e))
			goto syntax;
		if (e.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&e);
			return 0;
		}
		if (e.type != YAML_SCALAR_EVENT) {
			snprintf(err, errlen, "%s:%zu: resources: expected key: value pairs", fname, ev_line(&e));
			yaml_event_delete(&e);
			return -1;
		}
		scalar_copy(&e, key, sizeof(key));
		kline = ev_line(&e);
		yaml_event_delete(&e);
		if (!yaml_parser_parse(p, &e))
			goto syntax;
		msg[0] = '\0';
		if (!strcmp(key, "accelerators")) {
			if (e.type == YAML_SCALAR_EVENT) {
				scalar_copy(&e, val, sizeof(val));
				add_accel(r, val, NULL, msg, sizeof(msg));
			} else if (e.type == YAML_SEQUENCE_START_EVENT || e.type == YAML_MAPPING_START_EVENT) {
				bool map = e.type == YAML_MAPPING_START_EVENT;
				yaml_event_t x;
				char name[64];
				for (;;) {
					if (!yaml_parser_parse(p, &x)) {
						yaml_event_delete(&e);
						goto syntax;
					}
					if (x.type == YAML_SEQUENCE_END_EVENT || x.type == YAML_MAPPING_END_EVENT) {
						yaml_event_delete(&x);
						break;
					}
					if (x.type != YAML_SCALAR_EVENT) {
						snprintf(msg, sizeof(msg), "accelerators: expected NAME:COUNT entries");
						yaml_event_delete(&x);
						break;
					}
					scalar_copy(&x, name, sizeof(name));
					yaml_event_delete(&x);
					if (map) {   /* {A100: 8} or a set {A100:8, H100:8} (null values) */
						if (!yaml_parser_parse(p, &x)) {
							yaml_event_delete(&e);
							goto syntax;
						}
						scalar_copy(&x, val, sizeof(val));
						if (x.type != YAML_SCALAR_EVENT || !strcmp(val, "null") || !strcmp(val, "~"))
							val[0] = '\0';
						yaml_event_delete(&x);
						if (add_accel(r, name, val, msg, sizeof(msg)))
							break;
					} else if (add_accel(r, name, NULL, msg, sizeof(msg))) {
						break;
					}
				}
			}
		} else if (e.type != YAML_SCALAR_EVENT) {
			/* any_of, ordered, labels, ports lists...: not constraints gpurent prices */
			if (skip_node(p, &e)) {
				yaml_event_delete(&e);
				goto syntax;
			}
		} else {
			scalar_copy(&e, val, sizeof(val));
			if (!strcmp(key, "use_spot")) {
				int b;
				if (units_parse_bool(val, &b, msg, sizeof(msg)) == 0)
					r->use_spot = b;
			} else if (!strcmp(key, "cpus")) {
				min_value(val, &r->cpus, &r->cpus_exact, key, msg, sizeof(msg));
			} else if (!strcmp(key, "memory")) {
				min_value(val, &r->memory_gib, &r->memory_exact, key, msg, sizeof(msg));
			} else if (!strcmp(key, "disk_size")) {
				bool ex;
				min_value(val, &r->disk_gb, &ex, key, msg, sizeof(msg));
			} else if (!strcmp(key, "infra")) {
				if (strlen(val) >= sizeof(r->infra))
					snprintf(msg, sizeof(msg), "infra: longer than %zu characters", sizeof(r->infra) - 1);
				else
					memcpy(r->infra, val, strlen(val) + 1);
			} else if (!strcmp(key, "cloud")) {
				if (strlen(val) >= sizeof(r->cloud))
					snprintf(msg, sizeof(msg), "cloud: longer than %zu characters", sizeof(r->cloud) - 1);
				else
					memcpy(r->cloud, val, strlen(val) + 1);
			} else if (!strcmp(key, "region")) {
				if (strlen(val) >= sizeof(r->region))
					snprintf(msg, sizeof(msg), "region: longer than %zu characters", sizeof(r->region) - 1);
				else
					memcpy(r->region, val, strlen(val) + 1);
			}
			/* other keys (instance_type, image_id, disk_tier, ...) are not priced */
		}
		yaml_event_delete(&e);
		if (msg[0]) {
			snprintf(err, errlen, "%s:%zu: resources.%s", fname, kline, msg);
			if (strncmp(msg, key, strlen(key)))
				snprintf(err, errlen, "%s:%zu: resources.%s: %s", fname, kline, key, msg);
			return -1;
		}
	}
syntax:
	snprintf(err, errlen, "%s:%zu: resources: YAML syntax error: %s", fname,
		 p->problem_mark.line + 1, p->problem ? p->problem : "unknown");
	return -1;
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
			if (depth > 0 && !expect_key && !strcmp(key, "resources")) {
				if (read_resources(&p, w, fname, key_line, err, errlen))
					goto out_event;
				expect_key = 1;
				break;
			}
			if (depth > 0 && !expect_key && is_sky_task_key(key)) {
				if (skip_node(&p, &e))
					goto syntax_in_skip;
				expect_key = 1;
				break;
			}
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
				if (is_sky_task_key(key)) {   /* name: x, run: ..., num_nodes: 2 */
					if (!strcmp(key, "num_nodes"))
						w->sky.num_nodes = strtol(value, NULL, 10);
					expect_key = 1;
					break;
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
			if (depth > 0 && !expect_key && is_sky_task_key(key)) {
				if (skip_node(&p, &e))
					goto syntax_in_skip;
				expect_key = 1;
				break;
			}
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
syntax_in_skip:
	snprintf(err, errlen, "%s:%zu: %s: YAML syntax error: %s", fname, p.problem_mark.line + 1, key,
		 p.problem ? p.problem : "unknown");
out_event:
	yaml_event_delete(&e);
out:
	yaml_parser_delete(&p);
	/* one line, whatever bytes the file's keys and values held */
	for (char *c = err; rc && *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = ' ';
	return rc;
}
