/*
 * estimate_alloc.c - the caching allocator's reserve: a small replay of
 * PyTorch's CUDACachingAllocator (block rounding, the small and large
 * pools, best fit, splitting, coalescing, no release unless a new segment
 * would not fit) over the training steps of a workload, the steps' lengths
 * drawn from the dataset's stated spread (formulas.md "The caching
 * allocator's reserve").
 */
#include "core/estimate/estimate_int.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/framework.h"

/*
 * formulas.md "The caching allocator's reserve": the constants of
 * pytorch/pytorch v2.1.1 c10/cuda/CUDACachingAllocator.cpp (the torch the
 * ms-swift rows state), the block of constexpr after the allocator's
 * header comment: kMinBlockSize 512 ("all sizes are rounded to at least
 * 512 bytes"), kSmallSize 1 MiB ("largest small allocation"), kSmallBuffer
 * 2 MiB ("small allocations are packed in 2 MiB blocks"), kMinLargeAlloc
 * 10 MiB ("allocations between 1 and 10 MiB may use kLargeBuffer"),
 * kRoundLarge 2 MiB ("round up large allocations to 2 MiB"); kLargeBuffer
 * 20 MiB.
 */
#define K_MIN_BLOCK 512ULL
#define K_SMALL_SIZE 1048576ULL
#define K_SMALL_BUFFER 2097152ULL
#define K_LARGE_BUFFER 20971520ULL
#define K_MIN_LARGE_ALLOC 10485760ULL
#define K_ROUND_LARGE 2097152ULL

/* round_size(): at least kMinBlockSize, else up to a multiple of it
 * (roundup_power2_divisions unset, the default). */
uint64_t est_alloc_round(uint64_t bytes)
{
	if (bytes < K_MIN_BLOCK)
		return K_MIN_BLOCK;
	return K_MIN_BLOCK * ((bytes + K_MIN_BLOCK - 1) / K_MIN_BLOCK);
}

/* get_allocation_size(): the segment cudaMalloc'ed for a request of
 * bytes (already rounded) that no cached block can hold. */
uint64_t est_alloc_segment(uint64_t bytes)
{
	if (bytes <= K_SMALL_SIZE)
		return K_SMALL_BUFFER;
	if (bytes < K_MIN_LARGE_ALLOC)
		return K_LARGE_BUFFER;
	return K_ROUND_LARGE * ((bytes + K_ROUND_LARGE - 1) / K_ROUND_LARGE);
}

void est_alloc_init(struct est_alloc *a, double cap)
{
	memset(a, 0, sizeof(*a));
	a->cap = cap;
	for (size_t i = 0; i < EST_ALLOC_IDS; i++)
		a->of_id[i] = -1;
}

/* A block slot: a merged-away block's, or a new one. */
static int new_block(struct est_alloc *a)
{
	if (a->nspare)
		return a->spare[--a->nspare];
	if (a->nblocks >= EST_ALLOC_BLOCKS)
		return -1;
	return (int)a->nblocks++;
}

static void drop_block(struct est_alloc *a, int i)
{
	a->b[i].size = 0;
	a->spare[a->nspare++] = i;
}

/* The free blocks, kept sorted as the allocator's free set is
 * (BlockComparatorSize: by size, then address; the pools apart), so that
 * best fit is a binary search, not a walk over every free block. */
static bool block_before(const struct est_alloc_block *x, const struct est_alloc_block *y)
{
	if (x->small != y->small)
		return x->small < y->small;
	if (x->size != y->size)
		return x->size < y->size;
	return x->addr < y->addr;
}

/* The first place in a->free whose block is not before key. */
static size_t free_lower(const struct est_alloc *a, const struct est_alloc_block *key)
{
	size_t lo = 0, hi = a->nfree;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (block_before(&a->b[a->free[mid]], key))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void free_add(struct est_alloc *a, int i)
{
	size_t at = free_lower(a, &a->b[i]);

	memmove(&a->free[at + 1], &a->free[at], (a->nfree - at) * sizeof(a->free[0]));
	a->free[at] = i;
	a->nfree++;
}

static void free_del(struct est_alloc *a, int i)
{
	size_t at = free_lower(a, &a->b[i]);   /* addresses differ: exactly i's place */

	memmove(&a->free[at], &a->free[at + 1], (a->nfree - at - 1) * sizeof(a->free[0]));
	a->nfree--;
}

/* get_free_block(): the smallest free block of the pool that holds
 * size; between equal sizes the lower address (BlockComparatorSize
 * orders by size, then pointer). max_split_size is unlimited by default,
 * so no block is refused as oversize. */
static int best_fit(const struct est_alloc *a, bool small, uint64_t size)
{
	struct est_alloc_block key = {.addr = 0, .size = size, .small = small};
	size_t at = free_lower(a, &key);

	if (at < a->nfree && a->b[a->free[at]].small == small)
		return a->free[at];
	return -1;
}

/* release_cached_blocks(): every free block that is a whole segment
 * (not split) goes back to the driver. */
static void release_cached(struct est_alloc *a)
{
	for (size_t j = a->nfree; j-- > 0;) {
		int i = a->free[j];
		struct est_alloc_block *k = &a->b[i];
		if (k->prev < 0 && k->next < 0) {
			a->reserved -= k->size;
			free_del(a, i);
			drop_block(a, i);
		}
	}
}

int est_alloc_malloc(struct est_alloc *a, int id, uint64_t bytes)
{
	uint64_t size = est_alloc_round(bytes);
	bool small = size <= K_SMALL_SIZE;
	int i, r;

	if (id < 0 || id >= EST_ALLOC_IDS || a->of_id[id] >= 0)
		return -1;
	i = best_fit(a, small, size);
	if (i < 0) {
		/* alloc_block(): a new segment; when it would not fit, free
		 * the cached whole segments and try again (the allocator
		 * then raises out-of-memory; the estimate goes on) */
		uint64_t seg = est_alloc_segment(size);
		if (a->cap > 0 && (double)(a->reserved + seg) > a->cap)
			release_cached(a);
		i = new_block(a);
		if (i < 0)
			return -1;
		a->b[i] = (struct est_alloc_block){.addr = a->top, .size = seg, .small = small,
						   .prev = -1, .next = -1};
		a->top += seg;
		a->reserved += seg;
		if (a->reserved > a->max_reserved)
			a->max_reserved = a->reserved;
	} else {
		free_del(a, i);
	}
	/* should_split(): the rest stays a free block of its own when more
	 * than kSmallSize is left (large pool) or kMinBlockSize (small) */
	if (a->b[i].size - size >= (small ? K_MIN_BLOCK : K_SMALL_SIZE + 1)) {
		r = new_block(a);
		if (r < 0)
			return -1;
		a->b[r] = (struct est_alloc_block){.addr = a->b[i].addr + size, .size = a->b[i].size - size,
						   .small = small, .prev = i, .next = a->b[i].next};
		if (a->b[i].next >= 0)
			a->b[a->b[i].next].prev = r;
		a->b[i].next = r;
		a->b[i].size = size;
		free_add(a, r);
	}
	a->b[i].used = true;
	a->of_id[id] = i;
	a->allocated += a->b[i].size;
	if (a->allocated > a->max_allocated)
		a->max_allocated = a->allocated;
	return 0;
}

/* try_merge_blocks(): a freed block absorbs its free neighbour src. */
static void merge(struct est_alloc *a, int dst, int src)
{
	struct est_alloc_block *d = &a->b[dst], *s = &a->b[src];

	if (s->prev == dst) {
		d->next = s->next;
		if (d->next >= 0)
			a->b[d->next].prev = dst;
	} else {
		d->addr = s->addr;
		d->prev = s->prev;
		if (d->prev >= 0)
			a->b[d->prev].next = dst;
	}
	d->size += s->size;
	free_del(a, src);
	drop_block(a, src);
}

int est_alloc_free(struct est_alloc *a, int id)
{
	int i;

	if (id < 0 || id >= EST_ALLOC_IDS || a->of_id[id] < 0)
		return -1;
	i = a->of_id[id];
	a->of_id[id] = -1;
	a->b[i].used = false;
	a->allocated -= a->b[i].size;
	/* free_block(): coalesce with the free neighbours of its segment */
	if (a->b[i].prev >= 0 && !a->b[a->b[i].prev].used)
		merge(a, i, a->b[i].prev);
	if (a->b[i].next >= 0 && !a->b[a->b[i].next].used)
		merge(a, i, a->b[i].next);
	free_add(a, i);
	return 0;
}

/* ---- the steps replayed (formulas.md "The caching allocator's reserve") ---- */

/* Steps replayed: the quantiles of the lengths' distribution, in the
 * order est_step_lengths() gives. A bound on the cost (the replay runs on
 * every estimate, a few times with the sensitivity tries), and, as the
 * reserve grows with the steps (about 2.3 GB a doubling for the ms-swift
 * LoRA at 2048 tokens), also what sets its level: a fitted constant, not
 * derived. Chosen from the grid 16, 32, 64, 128 by the median |error| of
 * the ms-swift rows of the fit half only (swift-01, -03 ... -19: 13.9%,
 * 6.8%, 1.1%, 8.7%); the held half was not looked at for the choice
 * (formulas.md "The caching allocator's reserve", "What it gives, and
 * what is not settled"). */
#define EST_ALLOC_STEPS 64

static double phi(double z) { return 0.5 * erfc(-z / sqrt(2)); }

/* The standard normal's quantile, by bisection. */
static double phi_inv(double p)
{
	double lo = -12, hi = 12;

	for (int i = 0; i < 80; i++) {
		double mid = (lo + hi) / 2;
		if (phi(mid) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/*
 * The padded length of each step (tokens a sequence): a log-normal of the
 * stated mean and sd (lengths are positive; a normal of sd 0.79 x mean
 * would put a tenth of the samples below zero), samples above max_len
 * left out (ms-swift 1.x's truncation_strategy 'delete'), a batch of b
 * padded to its longest (the quantile of the largest of b, u^(1/b)). Step
 * i takes the quantile v(i) + 0.5 / n, v the van der Corput sequence (0,
 * 1/2, 1/4, 3/4, ...): every quantile once, long and short steps
 * interleaved, a new longest step about log2(n) times.
 */
size_t est_step_lengths(double mean, double sd, double max_len, double b, double *out, size_t n)
{
	double s2 = log(1 + sd * sd / (mean * mean)), mu = log(mean) - s2 / 2, sg = sqrt(s2);
	double top = phi((log(max_len) - mu) / (sg > 0 ? sg : 1));

	for (size_t i = 0; i < n; i++) {
		double u = 0, f = 0.5;
		/* the van der Corput sequence: i's bits reversed after the point */
		for (size_t k = i; k; k >>= 1, f /= 2)
			u += (double)(k & 1) * f;
		u += 0.5 / (double)n;
		double x = sg > 0 ? exp(mu + sg * phi_inv(pow(u, 1 / b) * top)) : mean;
		out[i] = fmax(1, fmin(max_len, round(x)));
	}
	return n;
}

/* The tensors of one step: their ids in est_alloc's table (a layer's
 * kept tensors at ID_KEEP + LAYER_IDS l, without checkpointing). */
#define LAYER_IDS 12
#define MAX_LAYERS 128
enum { ID_TEMP = 0, ID_LOSS = 40, ID_GRAD = 60, ID_MISC = 62, ID_CKPT = 64, ID_PGRAD = ID_CKPT + MAX_LAYERS,
       ID_STEP = ID_PGRAD + EST_LINEARS * MAX_LAYERS, ID_KEEP = ID_STEP + EST_LINEARS * MAX_LAYERS };

struct step_shape {
	long layers;
	bool ckpt;             /* full checkpointing: each layer's input kept, the layer recomputed */
	double row_h, row_f;   /* bytes a token of a hidden-wide and an MLP-wide tensor */
	double layer_tok;      /* bytes a token one layer's activations take (recomputed or kept) */
	int f_pieces;          /* MLP-wide tensors a layer keeps */
	double loss_tok;       /* bytes a token of the loss buffers */
	double logit_tok, lsm_tok; /* ... the logits in the activations' dtype; an fp32 piece */
	double linear[EST_LINEARS]; /* a quantized base: each linear's dequantized copy (est_linears' order) */
	int nlinear;
	double pgrad[EST_LINEARS]; /* full training: a layer's linears' gradients (kept to the step) */
	double steptmp;        /* ... the step's temporaries, a share of each gradient */
	int npgrad;
	long accum;
};

/* A layer's activations of T tokens as the tensors it keeps: f_pieces
 * MLP-wide, then hidden-wide ones, the rest one tensor; ids from base. */
static int layer_tensors(struct est_alloc *a, const struct step_shape *sh, double T, int base, int *n)
{
	double left = sh->layer_tok * T, hf = sh->row_f * T, hh = sh->row_h * T;
	int k = 0;

	for (int i = 0; i < sh->f_pieces && left > hf; i++, left -= hf)
		if (est_alloc_malloc(a, base + k++, (uint64_t)hf))
			return -1;
	for (; left > hh && k < LAYER_IDS - 1; left -= hh)
		if (est_alloc_malloc(a, base + k++, (uint64_t)hh))
			return -1;
	if (left >= 1 && est_alloc_malloc(a, base + k++, (uint64_t)left))
		return -1;
	*n = k;
	return 0;
}

static int free_range(struct est_alloc *a, int base, int n)
{
	for (int i = n - 1; i >= 0; i--)
		if (est_alloc_free(a, base + i))
			return -1;
	return 0;
}

/* The loss buffers of T tokens: the logits, then fp32 pieces, the last
 * (the gradient) made in backward (grad), the others in forward. */
static int loss_tensors(struct est_alloc *a, const struct step_shape *sh, double T, bool grad, int *n)
{
	double left = sh->loss_tok * T, piece[16];
	int k = 0;

	*n = 0;
	if (left < 1)
		return 0;
	piece[k] = fmin(left, sh->logit_tok * T);
	left -= piece[k++];
	while (left >= 1 && k < 15) {
		piece[k] = fmin(left, sh->lsm_tok * T);
		left -= piece[k++];
	}
	for (int i = grad ? k - 1 : 0; i < (grad ? k : k - 1); i++)
		if (est_alloc_malloc(a, ID_LOSS + i, (uint64_t)piece[i]))
			return -1;
	*n = k;
	return 0;
}

/* A quantized layer's linears dequantized one after another, each copy
 * made and freed around its matmul (bitsandbytes' MatMul4Bit, forward and
 * backward alike). */
static int dequant_use(struct est_alloc *a, const struct step_shape *sh)
{
	for (int i = 0; i < sh->nlinear; i++)
		if (est_alloc_malloc(a, ID_MISC, (uint64_t)sh->linear[i]) || est_alloc_free(a, ID_MISC))
			return -1;
	return 0;
}

/* The optimizer step after the last micro-batch: its temporaries, then
 * the gradients set to None (zero_grad's default). */
static int replay_opt_step(struct est_alloc *a, const struct step_shape *sh)
{
	long L = sh->layers;
	int k = sh->npgrad;

	/* foreach AdamW's sqrt(exp_avg_sq): one temporary a parameter */
	for (long l = 0; l < L * k && sh->steptmp > 0; l++)
		if (est_alloc_malloc(a, ID_STEP + (int)l, (uint64_t)(sh->pgrad[l % k] * sh->steptmp)))
			return -1;
	for (long l = L * k - 1; l >= 0 && sh->steptmp > 0; l--)
		if (est_alloc_free(a, ID_STEP + (int)l))
			return -1;
	for (long l = 0; l < L * k; l++)
		if (est_alloc_free(a, ID_PGRAD + (int)l))
			return -1;
	return 0;
}

/* One micro-batch of T tokens, forward and backward; i: its index. */
static int replay_step(struct est_alloc *a, const struct step_shape *sh, double T, long i)
{
	long L = sh->layers;
	int n = 0, nl = 0, kept[MAX_LAYERS];

	/* forward: each layer's input kept and the layer's own freed (full
	 * checkpointing: it runs without grad), or all the layer keeps */
	for (long l = 0; l < L; l++) {
		if (sh->ckpt && est_alloc_malloc(a, ID_CKPT + (int)l, (uint64_t)(sh->row_h * T)))
			return -1;
		if (dequant_use(a, sh) ||
		    layer_tensors(a, sh, T, sh->ckpt ? ID_TEMP : ID_KEEP + LAYER_IDS * (int)l, &kept[l]) ||
		    (sh->ckpt && free_range(a, ID_TEMP, kept[l])))
			return -1;
	}
	/* the final norm's output, the loss; in backward its gradient, the
	 * loss buffers freed, the hidden state's gradient */
	if (est_alloc_malloc(a, ID_MISC + 1, (uint64_t)(sh->row_h * T)) || loss_tensors(a, sh, T, false, &nl) ||
	    loss_tensors(a, sh, T, true, &nl) || free_range(a, ID_LOSS, nl) ||
	    est_alloc_malloc(a, ID_GRAD, (uint64_t)(sh->row_h * T)) || est_alloc_free(a, ID_MISC + 1))
		return -1;
	/* backward, last layer first: (recomputed) its tensors, the input's
	 * gradient made and the output's freed, its own tensors freed */
	for (long l = L - 1; l >= 0; l--) {
		int g = ID_GRAD + (int)((L - l) % 2), base = sh->ckpt ? ID_TEMP : ID_KEEP + LAYER_IDS * (int)l;
		n = kept[l];
		if (sh->ckpt && (dequant_use(a, sh) || layer_tensors(a, sh, T, ID_TEMP, &n)))
			return -1;
		if (dequant_use(a, sh) || est_alloc_malloc(a, g, (uint64_t)(sh->row_h * T)) ||
		    est_alloc_free(a, ID_GRAD + (int)((L - l + 1) % 2)) || free_range(a, base, n))
			return -1;
		for (int k = 0; k < sh->npgrad && i % sh->accum == 0; k++)
			if (est_alloc_malloc(a, ID_PGRAD + sh->npgrad * (int)l + k, (uint64_t)sh->pgrad[k]))
				return -1;
		if (sh->ckpt && est_alloc_free(a, ID_CKPT + (int)l))
			return -1;
	}
	if (est_alloc_free(a, ID_GRAD + (int)(L % 2)))
		return -1;
	if (sh->npgrad && i % sh->accum == sh->accum - 1)
		return replay_opt_step(a, sh);
	return 0;
}

/* The step's tensors from the estimate's own components at the
 * workload's length (e->mem: activations, logits, dequant, gradients,
 * step_temp), a token's share each. */
static void step_shape_of(const struct workload *w, const struct model_spec *m, const struct estimate *e,
			  struct step_shape *sh)
{
	double ea = w->precision == PREC_FP32 ? 4 : 2, L = (double)m->layers;
	double T = (double)w->seq * (double)w->micro_batch, el[EST_LINEARS], big = 0, sum = 0;
	const struct est_mem *M = &e->mem;

	memset(sh, 0, sizeof(*sh));
	sh->layers = m->layers;
	sh->ckpt = w->activation_checkpointing == AC_FULL;
	sh->row_h = (double)m->hidden * ea;
	sh->row_f = (double)m->ffn * ea;
	sh->f_pieces = m->gated_ffn ? 3 : 2;
	sh->layer_tok = sh->ckpt ? fmax(0, M->activations / T - L * sh->row_h) : M->activations / T / L;
	sh->loss_tok = M->logits / T;
	sh->logit_tok = (double)m->vocab * ea;
	sh->lsm_tok = (double)m->vocab * 4 / (e->loss.chunks > 1 ? e->loss.chunks : 1);
	est_linears(m, el);
	for (int i = 0; i < EST_LINEARS; i++) {
		big = fmax(big, el[i]);
		sum += el[i];
	}
	if (base_quantized(w) && M->dequant > 0) {
		/* the copies at the bytes a weight frozen_base() counts for the largest */
		for (int i = 0; i < EST_LINEARS; i++)
			if (el[i] > 0)
				sh->linear[sh->nlinear++] = fmin(el[i] / big, 1) * M->dequant;
	}
	sh->accum = w->grad_accum > 0 ? w->grad_accum : 1;
	if (w->task == TASK_TRAIN && w->zero < 2 && w->optimizer_step != STEP_IN_BWD) {
		/* the gradients are made in the first backward of a step and
		 * set to None after it; a layer's share of them over its
		 * linears, by size */
		for (int k = 0; k < EST_LINEARS; k++)
			if (el[k] > 0 && sum > 0)
				sh->pgrad[sh->npgrad++] = M->gradients / L * el[k] / sum;
		sh->steptmp = M->gradients > 0 ? M->step_temp / M->gradients : 0;
	}
}

bool est_reserve(const struct workload *w, const struct model_spec *m, struct estimate *e, double gpu_bytes)
{
	struct step_shape sh;
	struct est_alloc *a;
	double len[EST_ALLOC_STEPS], resident, cap = 0;
	const struct est_mem *M = &e->mem;
	size_t n;
	bool ok = true;

	/* without a spread the flat alloc_overhead stands: the replay of
	 * fixed-length steps gives 0-7% of allocated, below what the rows the
	 * 10% was set on measured (formulas.md, "The caching allocator's
	 * reserve") */
	if (w->seq_mean <= 0 || w->task == TASK_INFER || m->kind != MODEL_DECODER || m->layers < 1 ||
	    m->layers > MAX_LAYERS || w->framework == FW_LLMC || workload_is_set(w, "alloc_overhead") ||
	    w->seq < 1 || w->micro_batch < 1 || w->activation_offloading)
		return false;
	step_shape_of(w, m, e, &sh);
	resident = M->train_peak - M->activations - M->logits - M->dequant - M->int8_saved - M->quant_saved -
		   (sh.npgrad ? M->gradients : 0);
	if (gpu_bytes > 0)
		cap = fmax(1, gpu_bytes - w->cuda_context - resident);
	/* MEAN+-0: every step MEAN long (the fixed-length replay) */
	n = est_step_lengths(w->seq_mean, w->seq_sd, (double)w->seq, (double)w->micro_batch, len, EST_ALLOC_STEPS);
	a = malloc(sizeof(*a));
	if (!a)
		return false;
	est_alloc_init(a, cap);
	for (size_t i = 0; i < n && ok; i++)
		ok = !replay_step(a, &sh, len[i] * (double)w->micro_batch, (long)i);
	if (ok) {
		e->mem.allocator = (double)(a->max_reserved - a->max_allocated);
		e->mem.reserve_steps = (long)n;
		/* the overhead's note says the reserve was replayed */
		for (int i = 0; i < e->nassumptions; i++) {
			struct est_note *o = &e->assumptions[i];
			if (o->code != EST_N_OVERHEAD)
				continue;
			o->mech = 1;
			o->length = (long)n;
			o->fraction = M->allocated > 0 ? e->mem.allocator / M->allocated : 0;
			named(o, w->seq_spread);
		}
	}
	free(a);
	return ok;
}
