/*
 * workload_yaml.c - read a workload file (a YAML mapping of field: value)
 * with libyaml's event parser. Every error names file, line and field.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "quote.h"
#include "units.h"

#include "workload.h"
#include "../util/util.h"

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
	for (size_t i = 0; i < ARRAY_SIZE(sky_task_keys); i++)
		if (!strcmp(k, sky_task_keys[i]))
			return true;
	return false;
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

/* What a non-scalar event is, for "expected a value, got ...". */
static const char *event_kind(const yaml_event_t *e)
{
	switch (e->type) {
	case YAML_ALIAS_EVENT:
		return "an alias (YAML aliases are not supported here)";
	case YAML_SEQUENCE_START_EVENT:
		return "a list";
	case YAML_MAPPING_START_EVENT:
		return "a mapping";
	default:
		return "something else";
	}
}

/* Copy a scalar event's text; -1 (nothing copied) when it does not fit
 * or the event is not a scalar. Never truncates. */
static int scalar_copy(const yaml_event_t *e, char *out, size_t n)
{
	if (e->type != YAML_SCALAR_EVENT || e->data.scalar.length >= n)
		return -1;
	memcpy(out, e->data.scalar.value, e->data.scalar.length);
	out[e->data.scalar.length] = '\0';
	return 0;
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
		char q[QUOTE_KEEP * 4 + 8];
		/* finite, above 0, at most a node's worth; L4:0.5 (a slice) is fine */
		if (units_scan_number(count_text, &count) || !(count >= SKY_MIN_ACCEL_COUNT) ||
		    count > SKY_MAX_ACCEL_COUNT) {
			snprintf(err, errlen, "accelerators: expected NAME:COUNT with a COUNT from 0.001 to %d "
				 "such as A100:8, got '%s'", SKY_MAX_ACCEL_COUNT, quote_value(spec, q, sizeof(q)));
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

/* "8", "8+" for cpus / memory / disk_size: finite, from 0.001 to max. */
static int min_value(const char *s, double max, double *v, bool *exact, const char *key,
		     char *err, size_t errlen)
{
	char num[64], q[QUOTE_KEEP * 4 + 8];
	size_t n = strlen(s);

	*exact = true;
	if (n && s[n - 1] == '+') {
		*exact = false;
		n--;
	}
	if (n >= sizeof(num))
		goto bad;
	memcpy(num, s, n);
	num[n] = '\0';
	if (units_scan_number(num, v) || !(*v >= 0.001) || *v > max)
		goto bad;
	return 0;
bad:
	snprintf(err, errlen, "%s: expected a number from 0.001 to %.0f or a minimum such as 8+, got '%s'",
		 key, max, quote_value(s, q, sizeof(q)));
	return -1;
}

/* The accelerators: value whose start event e was just read: "A100:8",
 * [A100:8, H100:8] or {A100: 8, H100: 8} (a set {A100:8} has null values).
 * -1 with "accelerators: ..." in msg; -2 for a YAML syntax error. */
static int read_accelerators(yaml_parser_t *p, const yaml_event_t *e, struct sky_resources *r,
			     char *msg, size_t msglen)
{
	bool map = e->type == YAML_MAPPING_START_EVENT;
	char name[64], val[128];
	yaml_event_t x;

	if (e->type == YAML_SCALAR_EVENT) {
		if (scalar_copy(e, val, sizeof(val))) {
			snprintf(msg, msglen, "accelerators: value longer than %zu characters", sizeof(val) - 1);
			return -1;
		}
		return add_accel(r, val, NULL, msg, msglen);
	}
	if (e->type != YAML_SEQUENCE_START_EVENT && !map) {
		snprintf(msg, msglen, "accelerators: expected NAME:COUNT, a list or a mapping, got %s",
			 event_kind(e));
		return -1;
	}
	for (;;) {
		if (!yaml_parser_parse(p, &x))
			return -2;
		if (x.type == YAML_SEQUENCE_END_EVENT || x.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&x);
			return 0;
		}
		if (x.type != YAML_SCALAR_EVENT) {
			snprintf(msg, msglen, "accelerators: expected NAME:COUNT entries, got %s", event_kind(&x));
			yaml_event_delete(&x);
			return -1;
		}
		if (scalar_copy(&x, name, sizeof(name))) {
			snprintf(msg, msglen, "accelerators: name longer than %zu characters", sizeof(name) - 1);
			yaml_event_delete(&x);
			return -1;
		}
		yaml_event_delete(&x);
		if (!map) {
			if (add_accel(r, name, NULL, msg, msglen))
				return -1;
			continue;
		}
		/* the count: a scalar (or null); an alias, list or mapping is refused
		 * here rather than skipped, so the parser never loses its place */
		if (!yaml_parser_parse(p, &x))
			return -2;
		if (x.type != YAML_SCALAR_EVENT) {
			snprintf(msg, msglen, "accelerators: expected a count for '%s', got %s",
				 name, event_kind(&x));
			yaml_event_delete(&x);
			return -1;
		}
		if (scalar_copy(&x, val, sizeof(val))) {
			snprintf(msg, msglen, "accelerators: count longer than %zu characters", sizeof(val) - 1);
			yaml_event_delete(&x);
			return -1;
		}
		if (x.data.scalar.plain_implicit && (!strcmp(val, "null") || !strcmp(val, "~")))
			val[0] = '\0';
		yaml_event_delete(&x);
		if (add_accel(r, name, val, msg, msglen))
			return -1;
	}
}

/* Copy a text constraint (infra, cloud, region) of n bytes. */
static void text_value(const char *key, const char *val, char *out, size_t n, char *msg, size_t msglen)
{
	if (strlen(val) >= n)
		snprintf(msg, msglen, "%s: longer than %zu characters", key, n - 1);
	else
		memcpy(out, val, strlen(val) + 1);
}

/* The keys of resources: already given, for the duplicate check. */
#define RES_MAX_KEYS 64
struct seen_keys {
	size_t n;
	char key[RES_MAX_KEYS][64];
	size_t line[RES_MAX_KEYS];
};

/* The line key was first given on, or 0 (and it is remembered). */
static size_t seen_before(struct seen_keys *k, const char *key, size_t line)
{
	for (size_t i = 0; i < k->n; i++)
		if (!strcmp(k->key[i], key))
			return k->line[i];
	if (k->n < RES_MAX_KEYS) {
		snprintf(k->key[k->n], sizeof(k->key[0]), "%s", key);
		k->line[k->n++] = line;
	}
	return 0;
}

/* The resources: mapping (its MAPPING_START already read at depth 1). */
static int read_resources(yaml_parser_t *p, struct workload *w, const char *fname, size_t line,
			  char *err, size_t errlen)
{
	struct sky_resources *r = &w->sky;
	struct seen_keys *seen;
	yaml_event_t e;
	char key[64], val[128], msg[256], q[QUOTE_KEEP * 4 + 8];
	int rc = -1;

	seen = calloc(1, sizeof(*seen));
	if (!seen) {
		snprintf(err, errlen, "%s:%zu: resources: out of memory", fname, line);
		return -1;
	}
	memset(r, 0, sizeof(*r));
	r->given = true;
	r->line = line;
	r->use_spot = -1;
	for (;;) {
		size_t kline, first;
		int k;
		if (!yaml_parser_parse(p, &e))
			goto syntax;
		if (e.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&e);
			rc = 0;
			goto out_seen;
		}
		if (e.type != YAML_SCALAR_EVENT) {
			snprintf(err, errlen, "%s:%zu: resources: expected key: value pairs, got %s",
				 fname, ev_line(&e), event_kind(&e));
			goto out_event;
		}
		kline = ev_line(&e);
		if (scalar_copy(&e, key, sizeof(key))) {
			snprintf(err, errlen, "%s:%zu: resources: key longer than %zu characters",
				 fname, kline, sizeof(key) - 1);
			goto out_event;
		}
		yaml_event_delete(&e);
		first = seen_before(seen, key, kline);
		if (first) {
			snprintf(err, errlen, "%s:%zu: resources.%s: duplicate key (first given on line %zu)",
				 fname, kline, quote_value(key, q, sizeof(q)), first);
			goto out_seen;
		}
		if (!yaml_parser_parse(p, &e))
			goto syntax;
		msg[0] = '\0';
		if (!strcmp(key, "accelerators")) {
			k = read_accelerators(p, &e, r, msg, sizeof(msg));
			if (k == -2) {
				yaml_event_delete(&e);
				goto syntax;
			}
		} else if (e.type == YAML_ALIAS_EVENT) {
			snprintf(msg, sizeof(msg), "%s: expected a value, got %s", key, event_kind(&e));
		} else if (e.type != YAML_SCALAR_EVENT) {
			/* any_of, ordered, labels, ports lists...: not constraints gpurent prices */
			size_t dline = 0;
			k = skip_node(p, &e, 2, &dline);
			if (k == -2) {
				snprintf(err, errlen, "%s:%zu: resources.%s: nesting deeper than %d levels",
					 fname, dline, key, YAML_MAX_DEPTH);
				goto out_event;
			}
			if (k) {
				yaml_event_delete(&e);
				goto syntax;
			}
		} else if (scalar_copy(&e, val, sizeof(val))) {
			snprintf(msg, sizeof(msg), "%s: value longer than %zu characters", key, sizeof(val) - 1);
		} else if (!strcmp(key, "use_spot")) {
			int b;
			if (units_parse_bool(val, &b, msg, sizeof(msg)) == 0)
				r->use_spot = b;
		} else if (!strcmp(key, "cpus")) {
			min_value(val, SKY_MAX_CPUS, &r->cpus, &r->cpus_exact, key, msg, sizeof(msg));
		} else if (!strcmp(key, "memory")) {
			min_value(val, SKY_MAX_MEMORY_GIB, &r->memory_gib, &r->memory_exact, key, msg, sizeof(msg));
		} else if (!strcmp(key, "disk_size")) {
			bool ex;
			min_value(val, SKY_MAX_DISK_GB, &r->disk_gb, &ex, key, msg, sizeof(msg));
		} else if (!strcmp(key, "infra")) {
			text_value(key, val, r->infra, sizeof(r->infra), msg, sizeof(msg));
		} else if (!strcmp(key, "cloud")) {
			text_value(key, val, r->cloud, sizeof(r->cloud), msg, sizeof(msg));
		} else if (!strcmp(key, "region")) {
			text_value(key, val, r->region, sizeof(r->region), msg, sizeof(msg));
		}
		/* other keys (instance_type, image_id, disk_tier, ...) are not priced */
		yaml_event_delete(&e);
		if (msg[0]) {
			if (strncmp(msg, key, strlen(key)) || msg[strlen(key)] != ':')
				snprintf(err, errlen, "%s:%zu: resources.%s: %s", fname, kline, key, msg);
			else
				snprintf(err, errlen, "%s:%zu: resources.%s", fname, kline, msg);
			goto out_seen;
		}
	}
syntax:
	snprintf(err, errlen, "%s:%zu: resources: YAML syntax error: %s", fname,
		 p->problem_mark.line + 1, p->problem ? p->problem : "unknown");
	goto out_seen;
out_event:
	yaml_event_delete(&e);
out_seen:
	free(seen);
	return rc;
}

int workload_load_yaml(struct workload *w, const char *buf, size_t len,
		       const char *fname, char *err, size_t errlen)
{
	static const size_t nsky = ARRAY_SIZE(sky_task_keys);
	yaml_parser_t p;
	yaml_event_t e;
	char key[128], value[512], msg[384], q[QUOTE_KEEP * 4 + 8];
	size_t key_line = 0, seen_line[64] = {0}, sky_line[ARRAY_SIZE(sky_task_keys)] = {0};
	size_t resources_line = 0, dline = 0;
	int depth = 0, expect_key = 1, rc = -1, done = 0, docs = 0;

	key[0] = '\0';
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
			done = 1;
			break;
		case YAML_DOCUMENT_END_EVENT:
		case YAML_STREAM_START_EVENT:
			break;
		case YAML_DOCUMENT_START_EVENT:
			/* one workload per file: a second document is refused, not dropped */
			if (++docs > 1) {
				snprintf(err, errlen, "%s:%zu: a second YAML document ('---'); "
					 "gpurent reads one workload per file", fname, ev_line(&e));
				goto out_event;
			}
			break;
		case YAML_MAPPING_START_EVENT:
			if (depth > 0 && !expect_key && !strcmp(key, "resources")) {
				if (resources_line) {
					snprintf(err, errlen, "%s:%zu: resources: duplicate field (first given on line %zu)",
						 fname, key_line, resources_line);
					goto out_event;
				}
				resources_line = key_line;
				if (read_resources(&p, w, fname, key_line, err, errlen))
					goto out_event;
				expect_key = 1;
				break;
			}
			if (depth > 0 && !expect_key && is_sky_task_key(key)) {
				int k = skip_node(&p, &e, depth, &dline);
				if (k == -2)
					goto too_deep;
				if (k)
					goto syntax_in_skip;
				expect_key = 1;
				break;
			}
			if (depth > 0) {
				snprintf(err, errlen, "%s:%zu: %s: expected a single value, got a nested mapping",
					 fname, ev_line(&e), expect_key ? "(key)" : key);
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
				size_t *first = NULL;
				if (e.data.scalar.length >= sizeof(key)) {
					snprintf(err, errlen, "%s:%zu: field name too long", fname, ev_line(&e));
					goto out_event;
				}
				memcpy(key, e.data.scalar.value, e.data.scalar.length);
				key[e.data.scalar.length] = '\0';
				key_line = ev_line(&e);
				idx = workload_field_index(key);
				if (idx >= 0) {
					first = &seen_line[idx];
				} else {
					for (size_t i = 0; i < nsky; i++)
						if (!strcmp(key, sky_task_keys[i]))
							first = &sky_line[i];
				}
				if (first && *first) {
					snprintf(err, errlen, "%s:%zu: %s: duplicate field (first given on line %zu)",
						 fname, key_line, quote_value(key, q, sizeof(q)), *first);
					goto out_event;
				}
				if (first)
					*first = key_line;
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
					long nodes;
					if (!strcmp(key, "num_nodes")) {
						if (units_parse_int(value, 1, SKY_MAX_NODES, &nodes, msg, sizeof(msg))) {
							snprintf(err, errlen, "%s:%zu: num_nodes: %s", fname, key_line, msg);
							goto out_event;
						}
						w->sky.num_nodes = nodes;
					}
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
				int k = skip_node(&p, &e, depth, &dline);
				if (k == -2)
					goto too_deep;
				if (k)
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
too_deep:
	snprintf(err, errlen, "%s:%zu: %s: nesting deeper than %d levels", fname, dline, key,
		 YAML_MAX_DEPTH);
	goto out_event;
syntax_in_skip:
	snprintf(err, errlen, "%s:%zu: %s: YAML syntax error: %s", fname, p.problem_mark.line + 1, key,
		 p.problem ? p.problem : "unknown");
out_event:
	yaml_event_delete(&e);
out:
	yaml_parser_delete(&p);
	/* one line, whatever bytes the file's keys and values held: \xNN */
	if (rc)
		quote_message(err, errlen);
	return rc;
}
