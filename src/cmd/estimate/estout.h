/*
 * estout.h - what `gpurent estimate` prints of an estimate: the text table
 * (esttable.c) or the JSON (estjson.c), on stdout; nothing is kept.
 */
#ifndef GPURENT_ESTOUT_H
#define GPURENT_ESTOUT_H

#include "core/estimate/estimate.h"
#include "core/model/gpu.h"
#include "core/model/model.h"
#include "core/model/workload.h"
#include "cmd/estimate/calib.h"

/* The table; gdb names the cards of the recommended tier. */
void estout_table(const struct workload *w, const struct model_spec *m,
		  const struct gpu_spec *gpu, const struct gpu_db *gdb,
		  const struct estimate *e, const struct calib *cal);

/* The JSON document. */
void estout_json(const struct workload *w, const struct model_spec *m,
		 const struct gpu_spec *gpu, const struct estimate *e, const struct calib *cal);

#endif
