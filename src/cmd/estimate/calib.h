/*
 * calib.h - `estimate --calibrate PROBE` and `plan --calibrate PROBE`: a
 * probe recorded in the ledger (src/store/ledger.h, `gpurent probe`)
 * replaces the estimator's memory and time figures where the rules of
 * docs/formulas.md "Calibrated by a probe" allow, and says which it
 * replaced. Shared by cmd_estimate.c and cmd_plan.c.
 */
#ifndef GPURENT_CALIB_H
#define GPURENT_CALIB_H

#include <stdbool.h>
#include <stdint.h>

#include "core/estimate/estimate.h"
#include "core/model/gpu.h"
#include "core/model/workload.h"
#include "store/ledger.h"

/* Why a figure was not taken from the probe (the words: calib_why()). */
enum calib_skip {
	CALIB_OK,
	CALIB_NO_MEMORY,        /* the probe read no GPU memory */
	CALIB_SMALLER_CARD,     /* the card has less memory than the probed one */
	CALIB_SERVING,          /* a serving engine reserves its share: the probe read the share */
	CALIB_NO_GPU,           /* no GPU to time on, or the probe's GPU is not in the GPU table */
	CALIB_NO_RATE,          /* the probe has no MFU (compute) or no rate (decode) */
	CALIB_GPU_COUNT,        /* a decode probe on another number of GPUs */
	CALIB_NO_TIME,          /* the estimate computed no time */
};

struct calib {
	struct ledger_probe_rows rows_;     /* private: owns p */
	const struct ledger_probe *p;       /* the probe; NULL: not calibrating */
	const struct gpu_spec *probe_gpu;   /* its GPU in the table; NULL unknown */
	bool digest_differs;                /* recorded for another workload */
	/* memory (per GPU) */
	enum calib_skip mem_skip;
	double mem_total;                   /* the probe's peak / its GPUs (bytes) */
	double est_total;                   /* the estimate's total per GPU (bytes) */
	int est_recommended;                /* the estimate's recommended tier (-1 none) */
	bool est_gpu_fits;
	/* time */
	enum calib_skip time_skip;
	bool memory_bound;                  /* decode: scaled by bandwidth, else by dense FLOPS */
	double scale;                       /* target / probed GPU (FLOPS or bandwidth), 1 same GPU */
	double wall_s, est_wall_s;          /* calibrated and the estimate's own */
	double mfu, est_mfu;                /* the probe's and the estimate's */
};

/*
 * Read probe `spec` ("latest" or an id) from the ledger at ledger_path
 * (NULL: $GPURENT_LEDGER or the default), read-only, into *c, checking
 * its workload digest against w's (workload_digest() of the resolved
 * workload): "latest" of another workload is refused, an id is used with
 * a warning. Returns 0, or the exit status after one message (2 for a bad
 * spec, 1 for a missing ledger or probe).
 */
int calib_load(const char *ledger_path, const char *spec, const struct gpu_db *gdb,
	       const struct workload *w, struct calib *c);

/*
 * Apply the rules to e (estimated for w on gpu; gpu may be NULL): the
 * tiers and the GPU fit from the probe's memory where the card is at
 * least the probed one's size, the wall time and GPU-hours from its MFU
 * (or decode rate); records the estimate's own figures in *c. Pure.
 */
void calib_apply(struct calib *c, const struct workload *w, const struct gpu_spec *gpu,
		 struct estimate *e);

/* For plan: the workload's mfu set to the probe's when the job is
 * compute-bound training and the probe has one; false when not. */
bool calib_plan_workload(const struct calib *c, struct workload *w);

/* The reason's words ("the card has less memory than the probed ..."). Static. */
const char *calib_why(enum calib_skip s);
/* Its stable JSON code ("smaller_card"). Static. */
const char *calib_code(enum calib_skip s);

/* "probe 3 (2026-12-01 17:00 UTC, 1x NVIDIA H100 SXM)" into buf. */
char *calib_word_probe(const struct calib *c, char *buf, size_t n);

void calib_free(struct calib *c);

#endif
