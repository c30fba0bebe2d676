/*
 * skyemit_doc.c - the user's task document as libyaml events, kept to be
 * written again (skyemit_int.h): every key gpurent does not change goes
 * back out event for event (tags, anchors, scalar styles as written), so
 * that the emitted task keeps image_id, ports, service, secrets, setup,
 * file_mounts and whatever else the spec has, as SkyPilot would read them.
 */
#include <stdlib.h>
#include <string.h>

#include "core/plan/skyemit_int.h"
#include "core/text/yaml.h"

static int evl_push(struct sky_evl *l, const yaml_event_t *e)
{
	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 8;
		yaml_event_t *nv = realloc(l->v, nc * sizeof(*nv));
		if (!nv)
			return -1;
		l->v = nv;
		l->cap = nc;
	}
	l->v[l->n++] = *e;   /* the event's memory moves into the list */
	return 0;
}

void sky_evl_free(struct sky_evl *l)
{
	for (size_t i = 0; i < l->n; i++)
		yaml_event_delete(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void sky_kvm_free(struct sky_kvm *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].key);
		sky_evl_free(&m->v[i].val);
	}
	free(m->v);
	memset(m, 0, sizeof(*m));
}

const struct sky_kv *sky_kvm_get(const struct sky_kvm *m, const char *key)
{
	for (size_t i = 0; m && i < m->n; i++)
		if (!strcmp(m->v[i].key, key))
			return &m->v[i];
	return NULL;
}

/* The rest of a node whose first event (taken) is e, into l. 0, -1 out of
 * memory, -2 a syntax error or a node nested too deep. */
static int read_node(yaml_parser_t *p, yaml_event_t *e, struct sky_evl *l)
{
	int depth = 0;

	for (;;) {
		bool open = e->type == YAML_MAPPING_START_EVENT || e->type == YAML_SEQUENCE_START_EVENT;
		bool close = e->type == YAML_MAPPING_END_EVENT || e->type == YAML_SEQUENCE_END_EVENT;
		bool end = e->type == YAML_STREAM_END_EVENT || e->type == YAML_DOCUMENT_END_EVENT;
		if (end) {
			yaml_event_delete(e);
			return -2;
		}
		depth += open - close;
		if (depth > YT_MAX_DEPTH) {
			yaml_event_delete(e);
			return -2;
		}
		if (evl_push(l, e)) {
			yaml_event_delete(e);
			return -1;
		}
		if (depth <= 0)
			return 0;
		if (!yaml_parser_parse(p, e))
			return -2;
	}
}

static int kvm_push(struct sky_kvm *m, const char *key, size_t line, struct sky_evl *val)
{
	struct sky_kv *nv;

	nv = realloc(m->v, (m->n + 1) * sizeof(*nv));
	if (!nv)
		return -1;
	m->v = nv;
	nv[m->n].key = strdup(key);
	if (!nv[m->n].key)
		return -1;
	nv[m->n].line = line;
	nv[m->n].val = *val;
	memset(val, 0, sizeof(*val));
	m->n++;
	return 0;
}

int sky_kvm_from_evl(struct sky_evl *l, struct sky_kvm *m)
{
	size_t i = 1;

	memset(m, 0, sizeof(*m));
	if (!l->n || l->v[0].type != YAML_MAPPING_START_EVENT)
		return -2;
	while (i < l->n && l->v[i].type != YAML_MAPPING_END_EVENT) {
		struct sky_evl val = {0};
		const yaml_event_t *k = &l->v[i];
		int depth = 0;
		size_t j;
		if (k->type != YAML_SCALAR_EVENT)
			return -2;
		for (j = i + 1; j < l->n; j++) {
			yaml_event_type_t t = l->v[j].type;
			depth += (t == YAML_MAPPING_START_EVENT || t == YAML_SEQUENCE_START_EVENT) -
				 (t == YAML_MAPPING_END_EVENT || t == YAML_SEQUENCE_END_EVENT);
			if (evl_push(&val, &l->v[j]))
				return -1;
			memset(&l->v[j], 0, sizeof(l->v[j]));
			if (depth <= 0)
				break;
		}
		if (kvm_push(m, (const char *)k->data.scalar.value, k->start_mark.line + 1, &val)) {
			sky_evl_free(&val);
			return -1;
		}
		i = j + 1;
	}
	return 0;
}

int sky_doc_read(const char *buf, size_t len, size_t index, struct sky_kvm *m)
{
	yaml_parser_t p;
	yaml_event_t e;
	size_t doc = 0;
	int rc = -2;

	memset(m, 0, sizeof(*m));
	if (!yaml_parser_initialize(&p))
		return -1;
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	/* to the index-th document that is a mapping (the task reader skips
	 * empty ones and refuses others, so its documents count the same) */
	for (;;) {
		size_t line;
		if (!yaml_parser_parse(&p, &e))
			goto out;
		if (e.type == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&e);
			goto out;
		}
		if (e.type == YAML_MAPPING_START_EVENT && doc++ == index)
			break;
		if (yt_skip(&p, &e, 1, &line)) {
			yaml_event_delete(&e);
			goto out;
		}
		yaml_event_delete(&e);
	}
	yaml_event_delete(&e);
	for (;;) {
		struct sky_evl val = {0};
		char *key;
		size_t line;
		if (!yaml_parser_parse(&p, &e))
			goto out;
		if (e.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&e);
			rc = 0;
			break;
		}
		if (e.type != YAML_SCALAR_EVENT) {
			yaml_event_delete(&e);
			goto out;
		}
		key = strdup((const char *)e.data.scalar.value);
		line = e.start_mark.line + 1;
		yaml_event_delete(&e);
		if (!key) {
			rc = -1;
			goto out;
		}
		if (!yaml_parser_parse(&p, &e)) {
			free(key);
			goto out;
		}
		if ((rc = read_node(&p, &e, &val)) || (rc = kvm_push(m, key, line, &val) ? -1 : 0)) {
			free(key);
			sky_evl_free(&val);
			goto out;
		}
		free(key);
		rc = -2;
	}
out:
	yaml_parser_delete(&p);
	if (rc)
		sky_kvm_free(m);
	return rc;
}

/* ---- writing ---- */

/* The anchor an event defines, or NULL. */
static const yaml_char_t *anchor_of(const yaml_event_t *e)
{
	switch (e->type) {
	case YAML_SCALAR_EVENT: return e->data.scalar.anchor;
	case YAML_SEQUENCE_START_EVENT: return e->data.sequence_start.anchor;
	case YAML_MAPPING_START_EVENT: return e->data.mapping_start.anchor;
	default: return NULL;
	}
}

static bool anchor_known(const struct sky_anchors *a, const yaml_char_t *name)
{
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->v[i], (const char *)name))
			return true;
	return false;
}

void sky_anchors_free(struct sky_anchors *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

int sky_put_evl(yaml_emitter_t *em, struct sky_evl *l, struct sky_anchors *a)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < l->n && !rc; i++) {
		const yaml_char_t *an = anchor_of(&l->v[i]);
		/* an alias of a node gpurent left out (or rewrote) would not
		 * read back: the task cannot be carried over as it is */
		if (l->v[i].type == YAML_ALIAS_EVENT && !anchor_known(a, l->v[i].data.alias.anchor)) {
			rc = -2;
			break;
		}
		if (an) {
			char **nv = realloc(a->v, (a->n + 1) * sizeof(*nv));
			if (!nv || !(nv[a->n] = strdup((const char *)an))) {
				if (nv)
					a->v = nv;
				rc = -1;
				break;
			}
			a->v = nv;
			a->n++;
		}
		if (!yaml_emitter_emit(em, &l->v[i])) {   /* the emitter takes (and frees) the event */
			i++;
			rc = -1;
			break;
		}
	}
	for (size_t k = i; k < l->n; k++)
		yaml_event_delete(&l->v[k]);
	l->n = 0;
	return rc;
}

int sky_put_scalar(yaml_emitter_t *em, const char *s, yaml_scalar_style_t style)
{
	yaml_event_t e;

	if (!yaml_scalar_event_initialize(&e, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 1, 1, style))
		return -1;
	return yaml_emitter_emit(em, &e) ? 0 : -1;
}

int sky_put_mapping(yaml_emitter_t *em, bool start)
{
	yaml_event_t e;

	if (start ? !yaml_mapping_start_event_initialize(&e, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE) :
		    !yaml_mapping_end_event_initialize(&e))
		return -1;
	return yaml_emitter_emit(em, &e) ? 0 : -1;
}

int sky_put_kv(yaml_emitter_t *em, const char *key, const char *value, yaml_scalar_style_t style)
{
	return sky_put_scalar(em, key, YAML_PLAIN_SCALAR_STYLE) || sky_put_scalar(em, value, style) ? -1 : 0;
}

int sky_put_pair(yaml_emitter_t *em, struct sky_kv *kv, struct sky_anchors *a)
{
	if (sky_put_scalar(em, kv->key, YAML_PLAIN_SCALAR_STYLE))
		return -1;
	return sky_put_evl(em, &kv->val, a);
}
