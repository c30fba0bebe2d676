/*
 * dstackemit.h - `gpurent plan --emit dstack`: the dstack configuration
 * for a planned choice (docs/dstack.md "dstack out"): the input's task,
 * service or dev environment with every key carried as written (its
 * comments too) but resources.gpu (the chosen card and count, as
 * NAME:MEMORY:COUNT), backends and regions (the offer's, where dstack
 * names them); without an input, a task of its own.
 */
#ifndef GPURENT_DSTACKEMIT_H
#define GPURENT_DSTACKEMIT_H

#include <stdbool.h>
#include <stdio.h>

#include "core/plan/plan.h"
#include "core/task/dstack.h"

struct dstack_emit {
	const struct plan_choice *c;   /* the choice written for (borrowed) */
	int rank;                      /* its rank in the plan, from 1 */
	const struct dstack_conf *dc;  /* the input configuration, or NULL */
	const char *code;              /* display currency */
	double usd_per_unit;           /* its USD value */
};

/* Whether dstack can launch choice c: a dstack backend for its provider,
 * whole GPUs (dstack asks for no share of a card). */
bool dstack_emit_can(const struct plan_choice *c);

/* Whether dstack names the regions of backend b as the cloud does (aws,
 * azure, gcp, oci, lambda, nebius), so that the offer's region is one. */
bool dstack_emit_region_ok(const char *backend, const struct offer *o);

/* Write the configuration to f. 0, or -1 (a write error). */
int dstack_emit_write(FILE *f, const struct dstack_emit *e);

#endif
