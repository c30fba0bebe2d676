/*
 * skytask_int.h - what the task reader's files share (skytask.c: documents
 * and matching; skytask_values.c: values and errors; skytask_res.c:
 * resources and their candidates). Internal to core/task.
 */
#ifndef GPURENT_SKYTASK_INT_H
#define GPURENT_SKYTASK_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/task/skytask.h"
#include "core/text/yaml.h"

/* Where an error is: the file, the key path, the document being read
 * (borrowed). */
struct sky_ctx {
	const char *fname;
	char *err;
	size_t errlen;
	char where[96];     /* "resources", "resources.any_of[2]" */
	struct sky_doc *doc;
};

/* ---- errors (skytask_values.c): each returns -1 with the message in c->err ---- */

/* "FILE:LINE: WHERE[.KEY]: " and fmt with val quoted into its %s. */
int sky_fail(struct sky_ctx *c, size_t line, const char *key, const char *fmt, const char *val);
/* "a mapping", "a list", "an alias (...)", "a value": static text. */
const char *sky_kind_of(const struct yt_node *n);
/* 0 when v is a scalar (not null), else an error naming what it got. */
int sky_want_scalar(struct sky_ctx *c, const struct yt_node *v, const char *key, const char *what);
/* 0 when the keys of mapping m are scalars and none is given twice. */
int sky_check_keys(struct sky_ctx *c, const struct yt_node *m, const char *key);

/* ---- values (skytask_values.c): 0, or -1 with the error in c->err ---- */

int sky_read_min(struct sky_ctx *c, const struct yt_node *v, const char *key, double max, double *out,
		 bool *exact);
int sky_read_size(struct sky_ctx *c, const struct yt_node *v, const char *key, bool plus, double max_gib,
		  double *gib, bool *exact);
int sky_copy_text(struct sky_ctx *c, const struct yt_node *v, const char *key, char *out, size_t n);
void sky_lower(char *s);
int sky_read_infra(struct sky_ctx *c, const struct yt_node *v, struct sky_res *r);
int sky_read_bool(struct sky_ctx *c, const struct yt_node *v, const char *key, int *out);
int sky_read_autostop(struct sky_ctx *c, const struct yt_node *v, struct sky_res *r);
int sky_count_ports(struct sky_ctx *c, const struct yt_node *v, int *n);

/* ---- resources (skytask_res.c) ---- */

/* r unconstrained, written at line. */
void sky_res_default(struct sky_res *r, size_t line);
/* r appended to c->doc's candidates (at most SKY_MAX_CANDIDATES). */
int sky_push_cand(struct sky_ctx *c, const struct sky_res *r, size_t line);
/* The resources: mapping v into c->doc's candidates. */
int sky_read_resources(struct sky_ctx *c, const struct yt_node *v);

#endif
