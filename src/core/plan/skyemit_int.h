/*
 * skyemit_int.h - what skyemit.c and skyemit_doc.c share: the user's task
 * document as a list of top-level keys, each value kept as the libyaml
 * events it was read as, and the writers that put events back out.
 * Internal to core/plan.
 */
#ifndef GPURENT_SKYEMIT_INT_H
#define GPURENT_SKYEMIT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <yaml.h>

/* A node as its events, in order (owned). */
struct sky_evl {
	yaml_event_t *v;
	size_t n, cap;
};

struct sky_kv {
	char *key;           /* owned */
	size_t line;
	struct sky_evl val;
};

/* A mapping's keys in the order written (owned). */
struct sky_kvm {
	struct sky_kv *v;
	size_t n;
};

/*
 * The index-th (from 0) document of the YAML stream buf[0..len) that is
 * a mapping (as the task reader counts them) into m, key by key. Returns
 * 0; -1 out of memory; -2 when there is none, a key is no scalar or it
 * does not parse (the task reader has said why already). Free m with sky_kvm_free() in every case.
 */
int sky_doc_read(const char *buf, size_t len, size_t index, struct sky_kvm *m);
/* A mapping node l (its events, which move into m) as keys. 0, -1, -2 as above. */
int sky_kvm_from_evl(struct sky_evl *l, struct sky_kvm *m);
/* The entry for key in m, or NULL (borrowed). */
const struct sky_kv *sky_kvm_get(const struct sky_kvm *m, const char *key);
void sky_kvm_free(struct sky_kvm *m);
void sky_evl_free(struct sky_evl *l);

/* The anchors the events written so far defined (owned). */
struct sky_anchors {
	char **v;
	size_t n;
};
void sky_anchors_free(struct sky_anchors *a);

/* Writers: each 0, or -1 (the emitter's error, out of memory). The events
 * of l go to the emitter, which frees them; l is left empty. sky_put_evl
 * and sky_put_pair note the anchors written in a, and return -2 for an
 * alias of an anchor not written before (a node gpurent left out). */
int sky_put_evl(yaml_emitter_t *em, struct sky_evl *l, struct sky_anchors *a);
int sky_put_pair(yaml_emitter_t *em, struct sky_kv *kv, struct sky_anchors *a);
int sky_put_scalar(yaml_emitter_t *em, const char *s, yaml_scalar_style_t style);
int sky_put_kv(yaml_emitter_t *em, const char *key, const char *value, yaml_scalar_style_t style);
/* A block mapping's start (start) or end. */
int sky_put_mapping(yaml_emitter_t *em, bool start);

#endif
