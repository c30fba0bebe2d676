/*
 * dstack.h - a dstack configuration file (.dstack.yml) read as dstack
 * reads it (dstackai/dstack, the commit cited in dstack.c and
 * docs/dstack.md): its type (task, service, dev-environment; fleet,
 * gateway, volume and preset are no jobs), name, nodes, the resources'
 * gpu in every written form (a count, a name, NAME:COUNT, memory and
 * count ranges such as 24GB..80GB:2, a vendor, a mapping), cpu, memory
 * and disk, spot_policy, max_price, backends, regions, instance_types,
 * and what a service or task carries (commands, image, ports, port,
 * model). The constraints become the candidates of one SkyPilot-shaped
 * task document (skytask.h), so that the planner matches offers the one
 * way; the file's bytes and where each top-level key lies are kept for
 * `plan --emit dstack`, which carries every key it does not change.
 * Pure: no I/O.
 */
#ifndef GPURENT_DSTACK_H
#define GPURENT_DSTACK_H

#include <stdbool.h>
#include <stddef.h>

#include "core/market/catalog.h"
#include "core/task/skytask.h"

/* At most this many entries in backends, regions, instance_types. */
#define DSTACK_MAX_LIST 64

/* configurations.py ApplyConfigurationType: what a file is. */
enum dstack_kind {
	DSTACK_TASK,
	DSTACK_SERVICE,
	DSTACK_DEV_ENV,
	DSTACK_FLEET,
	DSTACK_GATEWAY,
	DSTACK_VOLUME,
	DSTACK_PRESET,
};

/* A top-level key (or a key of resources:) and the bytes it spans in the
 * file: from the start of its line to the start of the next key's line
 * (its comments come with it). */
struct dstack_span {
	char key[64];
	size_t from, to;
	size_t line;
};

struct dstack_conf {
	enum dstack_kind kind;
	size_t type_line;
	struct sky_task task;          /* one document: name, nodes, the candidates; owned */
	int spot;                      /* spot_policy: 1 spot, 0 on-demand (dstack's default), -1 auto */
	double max_price;              /* max_price, USD per hour; 0 none */
	size_t max_price_line;
	char model[128];               /* a service's model: name, "" none */
	bool has_commands, has_image;
	int nports;                    /* ports: entries, and a service's port: */
	/* for --emit dstack: the file (owned), its top-level keys in order,
	 * the keys of a block resources: mapping (nres 0 otherwise) */
	char *buf;
	size_t len;
	bool flow;                     /* the top level is a flow mapping: not re-written */
	struct dstack_span *span, *res;
	size_t nspan, nres;
	size_t res_col;                /* the column resources' keys are written at */
	bool res_flow;                 /* resources: {...}: res[] spans each key: value alone */
};

/*
 * Whether buf[0..len) (named fname) is a dstack configuration: the name
 * ends in .dstack.yml or .dstack.yaml, or the first document's top-level
 * type: is one of dstack's (task, service, dev-environment, fleet,
 * gateway, volume, preset). Reads only the top level.
 */
bool dstack_file_is(const char *buf, size_t len, const char *fname);

/*
 * Read buf[0..len) (a dstack configuration named fname) into dc (zeroed
 * by the call). Returns 0; -1 with "FILE:LINE: FIELD: expected ..." in
 * err (one line, input bytes escaped), among them a file that is no job
 * (a fleet, a gateway, a volume, a preset: dc->kind says which, and the
 * line names dstack and what the file is). Release with dstack_free() in
 * both cases.
 */
int dstack_parse(const char *buf, size_t len, const char *fname, struct dstack_conf *dc, char *err,
		 size_t errlen);
void dstack_free(struct dstack_conf *dc);

/* "task", "service", "dev-environment", ...: static. */
const char *dstack_kind_name(enum dstack_kind k);

/*
 * Whether offer o satisfies the gpu: part of candidate r (r->dstack set):
 * a provider dstack has a backend for (dstack_backend_of()), the vendor, the name as a family or an alias, the count per node and
 * the memory ranges (the datasheet's memory of a whole card, a slice's
 * own). Called by sky_res_fits().
 */
bool dstack_gpu_fits(const struct sky_res *r, const struct offer *o);

/* dstack's backend name for an offer's provider (base.py BackendType:
 * "aws", "vastai", "digitalocean", ...), or NULL where dstack has no
 * backend for it. Static. */
const char *dstack_backend_of(const struct cat_str *provider);

/* The card's name as dstack's catalog (gpuhunt) names it (A100 for the
 * 40 and the 80 GB card, A6000, H100NVL, MI300X) into out: the one of
 * gpuhunt's names the card's datasheet name or an alias is, else the
 * family of its name upper-cased. Returns out. */
struct gpu_spec;
char *dstack_gpu_name(const struct gpu_spec *g, char *out, size_t n);

#endif
