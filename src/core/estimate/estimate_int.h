/*
 * estimate_int.h - what the estimator's files share (estimate.c the run,
 * estimate_memory.c and estimate_act.c the memory, estimate_time.c the time,
 * estimate_comm.c the communication); no other room includes it.
 */
#ifndef GPURENT_ESTIMATE_INT_H
#define GPURENT_ESTIMATE_INT_H

#include <stdint.h>
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

/* formulas.md "The caching allocator's reserve" (estimate_alloc.c): a
 * replay of PyTorch's CUDACachingAllocator. Sizes in bytes; a block is
 * part of a segment (prev/next: its neighbours there, -1 none). */
#define EST_ALLOC_BLOCKS 4096
#define EST_ALLOC_IDS 3600
struct est_alloc_block {
	uint64_t addr, size;    /* size 0: a free slot */
	bool used, small;       /* allocated; in the small pool (<= 1 MiB) */
	int prev, next;
};
struct est_alloc {
	struct est_alloc_block b[EST_ALLOC_BLOCKS];
	size_t nblocks;
	int free[EST_ALLOC_BLOCKS], spare[EST_ALLOC_BLOCKS]; /* the free blocks; slots to reuse */
	size_t nfree, nspare;
	int of_id[EST_ALLOC_IDS];   /* a tensor's block, -1: none */
	uint64_t top;               /* the next segment's address */
	uint64_t reserved, allocated, max_reserved, max_allocated;
	double cap;                 /* bytes a new segment may not take reserved past; 0: none */
};

/* round_size() and get_allocation_size(): a request's block, and the
 * segment made for it when no cached block holds it. */
uint64_t est_alloc_round(uint64_t bytes);
uint64_t est_alloc_segment(uint64_t bytes);
/* An empty allocator (cap as in struct est_alloc). */
void est_alloc_init(struct est_alloc *a, double cap);
/* Tensor id (0..EST_ALLOC_IDS-1) takes bytes, or gives its block back;
 * 0, or -1 for an id in use (malloc) / not in use (free) or no slot left. */
int est_alloc_malloc(struct est_alloc *a, int id, uint64_t bytes);
int est_alloc_free(struct est_alloc *a, int id);
/* formulas.md "The caching allocator's reserve": the reserve above
 * allocated after the workload's training steps, into e->mem.allocator
 * (e->mem's components already summed; gpu_bytes: the card, 0 none);
 * false when it does not apply (the flat alloc_overhead stands). */
/* formulas.md "The caching allocator's reserve": the padded length of n
 * steps (tokens a sequence) from a mean +- sd of sample lengths, samples
 * above max_len left out, b samples a step; into out, returns n. */
/* A decoder layer's linear weights (elements) in the order q k v o gate up
 * down, gate 0 for a plain MLP (estimate_memory.c). */
#define EST_LINEARS 7
void est_linears(const struct model_spec *m, double el[EST_LINEARS]);
size_t est_step_lengths(double mean, double sd, double max_len, double b, double *out, size_t n);
bool est_reserve(const struct workload *w, const struct model_spec *m, struct estimate *e,
		 double gpu_bytes);

#endif
