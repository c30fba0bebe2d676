/*
 * estimate_int.h - what the estimator's files share (estimate.c the run,
 * estimate_memory.c and estimate_act.c the memory, estimate_time.c the time,
 * estimate_comm.c the communication); no other room includes it.
 */
#ifndef GPURENT_ESTIMATE_INT_H
#define GPURENT_ESTIMATE_INT_H

#include <stdio.h>

#include "core/estimate/estimate.h"

/* Record an assumption (note) or a warning; NULL when the list is full. */
static inline struct est_note *note(struct estimate *e, struct est_note n)
{
	if (e->nassumptions >= EST_MAX_NOTES)
		return NULL;
	e->assumptions[e->nassumptions] = n;
	return &e->assumptions[e->nassumptions++];
}

static inline struct est_note *warn(struct estimate *e, struct est_note n)
{
	if (e->nwarnings >= EST_MAX_WARNINGS)
		return NULL;
	e->warnings[e->nwarnings] = n;
	return &e->warnings[e->nwarnings++];
}

static inline void named(struct est_note *n, const char *name)
{
	if (n)
		snprintf(n->name, sizeof(n->name), "%s", name);
}

static inline bool is_mixed(int p) { return p == PREC_AMP || p == PREC_BF16 || p == PREC_FP16; }
static inline bool is_pure16(int p) { return p == PREC_BF16_TRUE || p == PREC_FP16_TRUE; }
/* a frozen base held quantized (qlora, or lora with quant_bits < 16) */
static inline bool base_quantized(const struct workload *w)
{
	return (w->task == TASK_LORA || w->task == TASK_QLORA) && w->quant_bits < 16;
}
static inline bool is_transformer(const struct model_spec *m)
{
	return m->kind == MODEL_DECODER || m->kind == MODEL_ENCODER || m->kind == MODEL_VIT;
}

/* Where a step's communication runs (bytes per GPU, formulas.md
 * "Communication"): in every micro-batch's forward and backward pass, and
 * once a step under the last micro-batch's backward; *_tail is the part of
 * each that nothing can hide. */
struct comm_plan {
	double fwd, bwd, last;
	double fwd_tail, bwd_tail, last_tail;
};

/* formulas.md "LoRA": whether the target list (q, k, v, o, gate, up, down,
 * all; q_proj and so on as PEFT names them) adapts the linear name. */
bool est_target_on(const char *list, const char *name);

/* formulas.md "Activations": what the forward pass leaves (e->mem.activations,
 * logits, int8_saved, quant_saved; e->loss), at ea bytes an activation. */
void est_activations(const struct workload *w, const struct model_spec *m,
		     struct estimate *e, double ea);

/* Memory per GPU by component and its sum into e->mem (gpu_bytes: the
 * chosen card's memory, 0 for none). */
void est_memory(const struct workload *w, const struct model_spec *m, struct estimate *e,
		double gpu_bytes);

/* formulas.md "Communication": where a step's communication runs into *cp,
 * its bytes, link and seconds into e. */
void est_comm(const struct workload *w, const struct model_spec *m,
	      const struct gpu_spec *gpu, struct estimate *e, struct comm_plan *cp);

/* formulas.md "Communication": what the step's compute (fwd its forward
 * share) leaves exposed of cp, into e. */
void est_comm_overlap(const struct workload *w, const struct comm_plan *cp, double fwd,
		      struct estimate *e);

/* formulas.md "Time": FLOPs, the rate, the run's wall time (bench: what
 * gpurent bench measured, or NULL). */
void est_time(const struct workload *w, const struct model_spec *m,
	      const struct gpu_spec *gpu, const struct est_bench *bench, struct estimate *e);

/* formulas.md "What moves the answer": the framework defaults taken for
 * the fields w leaves unset (estimate_assume.c), one note. */
void est_defaults_note(const struct workload *w, const struct model_spec *m, struct estimate *e);

#endif
