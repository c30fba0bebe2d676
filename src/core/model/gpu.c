/*
 * gpu.c - loading and looking up GPU specifications (gpu.h).
 */
#include "core/model/gpu.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "core/text/csv.h"
#include "core/text/names.h"
#include "base/i18n.h"

const char *gpu_class_name(enum gpu_class c)
{
	switch (c) {
	case GPU_DATACENTER: return "datacenter";
	case GPU_WORKSTATION: return "workstation";
	case GPU_CONSUMER: return "consumer";
	case GPU_TPU: return "tpu";
	}
	return "?";
}

const char *gpu_link_name(enum gpu_link l)
{
	switch (l) {
	case LINK_PCIE: return "pcie";
	case LINK_NVLINK: return "nvlink";
	case LINK_NVLINK_BRIDGE: return "nvlink-bridge";
	case LINK_INFINITY: return "infinity-fabric";
	case LINK_ICI: return "ici";
	}
	return "?";
}

static int lookup(const char *s, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

static int load_row(const struct csv *c, const struct csv_row *r, const char *fname,
		    void *record, char *err, size_t errlen)
{
	struct gpu_spec *g = record;
	static const char *const classes[] = {"datacenter", "workstation", "consumer", "tpu"};
	static const char *const links[] = {"pcie", "nvlink", "nvlink-bridge", "infinity-fabric", "ici"};
	char cls[32], link[32];
	double mem, bw, f32, f16, b16, f8, lbw;
	int k;

	if (csv_field_str(c, r, "name", true, fname, g->name, sizeof(g->name), err, errlen) ||
	    csv_field_str(c, r, "aliases", false, fname, g->aliases, sizeof(g->aliases), err, errlen) ||
	    csv_field_str(c, r, "vendor", true, fname, g->vendor, sizeof(g->vendor), err, errlen) ||
	    csv_field_str(c, r, "architecture", false, fname, g->arch, sizeof(g->arch), err, errlen) ||
	    csv_field_str(c, r, "class", true, fname, cls, sizeof(cls), err, errlen) ||
	    csv_field_double_range(c, r, "memory_gb", true, 0, 0.001, 1e6, fname, &mem, err, errlen) ||
	    csv_field_double_range(c, r, "memory_bandwidth_gbps", true, 0, 0.001, 1e6, fname, &bw, err, errlen) ||
	    csv_field_double_range(c, r, "fp32_tflops", false, 0, 0, 1e6, fname, &f32, err, errlen) ||
	    csv_field_double_range(c, r, "fp16_tflops", false, 0, 0, 1e6, fname, &f16, err, errlen) ||
	    csv_field_double_range(c, r, "bf16_tflops", false, 0, 0, 1e6, fname, &b16, err, errlen) ||
	    csv_field_double_range(c, r, "fp8_tflops", false, 0, 0, 1e6, fname, &f8, err, errlen) ||
	    csv_field_str(c, r, "interconnect", true, fname, link, sizeof(link), err, errlen) ||
	    csv_field_double_range(c, r, "link_bw_gbps", false, 0, 0, 1e6, fname, &lbw, err, errlen) ||
	    csv_field_long_range(c, r, "pcie_gen", false, 0, 0, 10, fname, &g->pcie_gen, err, errlen) ||
	    csv_field_double_range(c, r, "tdp_w", false, 0, 0, 1e5, fname, &g->tdp_w, err, errlen) ||
	    csv_field_str(c, r, "source", true, fname, g->source, sizeof(g->source), err, errlen))
		return -1;
	if ((k = lookup(cls, classes, 4)) < 0) {
		snprintf(err, errlen, _("%s:%zu: class: expected datacenter, workstation, consumer or tpu, got '%s'"),
			 fname, r->line, cls);
		return -1;
	}
	g->cls = (enum gpu_class)k;
	if ((k = lookup(link, links, 5)) < 0) {
		snprintf(err, errlen, _("%s:%zu: interconnect: expected pcie, nvlink, nvlink-bridge, infinity-fabric or ici, got '%s'"),
			 fname, r->line, link);
		return -1;
	}
	g->link = (enum gpu_link)k;
	if (f32 <= 0 && f16 <= 0 && b16 <= 0) {
		snprintf(err, errlen, _("%s:%zu: fp32_tflops: expected at least one of fp32/fp16/bf16 throughput"),
			 fname, r->line);
		return -1;
	}
	g->memory_bytes = mem * 1e9;
	g->mem_bw = bw * 1e9;
	g->fp32_flops = f32 * 1e12;
	g->fp16_flops = f16 * 1e12;
	g->bf16_flops = b16 * 1e12;
	g->fp8_flops = f8 * 1e12;
	g->link_bw = lbw * 1e9;
	return 0;
}

int gpu_db_load(struct gpu_db *db, const char *buf, size_t len,
		const char *fname, char *err, size_t errlen)
{
	void *v;

	memset(db, 0, sizeof(*db));
	if (csv_load_table(buf, len, fname, sizeof(*db->v), load_row, &v, &db->n, err, errlen))
		return -1;
	db->v = v;
	return 0;
}

void gpu_db_free(struct gpu_db *db)
{
	free(db->v);
	db->v = NULL;
	db->n = 0;
}

const struct gpu_spec *gpu_db_find(const struct gpu_db *db, const char *name)
{
	char nn[256];

	names_norm(name, nn, sizeof(nn));   /* once, not once a row */
	for (size_t i = 0; i < db->n; i++)
		if (names_norm_eq(nn, db->v[i].name, SIZE_MAX) || names_norm_in_list(nn, db->v[i].aliases))
			return &db->v[i];
	/* "A100 80GB SXM" names the same card as "NVIDIA A100 80GB SXM". */
	for (size_t i = 0; i < db->n; i++) {
		const char *n = db->v[i].name;
		if (!strncmp(n, "NVIDIA ", 7))
			n += 7;
		if (!strncmp(n, "GeForce ", 8))
			n += 8;
		if (names_norm_eq(nn, n, SIZE_MAX))
			return &db->v[i];
	}
	return NULL;
}

int gpu_db_suggest(const struct gpu_db *db, const char *name, char *out, size_t n)
{
	struct names_suggest s;

	names_suggest_init(&s, name);
	for (size_t i = 0; i < db->n; i++) {
		names_suggest_add(&s, db->v[i].name);
		names_suggest_add_list(&s, db->v[i].aliases);
	}
	if (!s.best[0])
		return -1;
	snprintf(out, n, "%s", s.best);
	return 0;
}
