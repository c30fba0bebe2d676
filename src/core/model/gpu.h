/*
 * gpu.h - GPU specifications from data/gpus.csv: memory, bandwidth,
 * dense tensor throughput by precision, interconnect. Looked up by the
 * names catalogs and users write (aliases), case- and dash-insensitive.
 */
#ifndef GPURENT_GPU_H
#define GPURENT_GPU_H

#include <stddef.h>

enum gpu_link { LINK_PCIE, LINK_NVLINK, LINK_NVLINK_BRIDGE, LINK_INFINITY, LINK_ICI };
enum gpu_class { GPU_DATACENTER, GPU_WORKSTATION, GPU_CONSUMER, GPU_TPU };

struct gpu_spec {
	char name[64];
	char aliases[192];        /* '|'-separated */
	char vendor[16];
	char arch[64];
	enum gpu_class cls;
	double memory_bytes;      /* datasheet GB x 1e9 */
	double mem_bw;            /* bytes/s */
	double fp32_flops, fp16_flops, bf16_flops, fp8_flops;  /* dense FLOP/s; 0 = none */
	enum gpu_link link;
	double link_bw;           /* bytes/s, bidirectional per GPU; 0 = none */
	long pcie_gen;            /* 0 = not PCIe (TPU) */
	double tdp_w;
	char source[1024];
};

struct gpu_db {
	struct gpu_spec *v;  /* owned */
	size_t n;
};

/* Load from a CSV buffer; 0, or -1 with "fname:line: column: ..." in err.
 * Caller frees with gpu_db_free(). */
int gpu_db_load(struct gpu_db *db, const char *buf, size_t len,
		const char *fname, char *err, size_t errlen);
void gpu_db_free(struct gpu_db *db);

/* By name or alias; NULL if unknown. Borrowed from db. */
const struct gpu_spec *gpu_db_find(const struct gpu_db *db, const char *name);
/* Closest name or alias for a "did you mean" copied into out; -1 if none. */
int gpu_db_suggest(const struct gpu_db *db, const char *name, char *out, size_t n);

const char *gpu_class_name(enum gpu_class c);
const char *gpu_link_name(enum gpu_link l);

#endif
