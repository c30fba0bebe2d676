/*
 * estimate_comm.c - multi-GPU communication: the link between the GPUs and
 * across nodes, a step's bytes and where they run, what overlap leaves exposed.
 */
#include "core/estimate/estimate_int.h"

#include <math.h>
#include <string.h>

/* formulas.md "Communication": usable share of a link's peak. */
#define LINK_EFFICIENCY 0.65
/* formulas.md "Communication": gpurent's typical multi-node rental links,
 * per direction (the interconnect field's ethernet and infiniband) */
#define ETHERNET_BW   (100e9 / 8)   /* 100 Gb/s */
#define INFINIBAND_BW (200e9 / 8)   /* 200 Gb/s HDR */
/* formulas.md "Communication": PyTorch DDP's default bucket_cap_mb = 25
 * (torch/nn/parallel/distributed.py; bucket_bytes_cap = bucket_cap_mb *
 * 1024 * 1024): the last bucket is all-reduced after the backward pass. */
#define EST_DDP_BUCKET_BYTES (25.0 * 1024 * 1024)
/* formulas.md "Communication": compute runs 18.9% slower (average; 40%
 * at most) while a collective runs beside it on the same GPUs (Lee et al.
 * 2025, "Characterizing Compute-Communication Overlap in GPU-Accelerated
 * Distributed Deep Learning", arXiv 2507.03114, 4x A100/H100/MI250/MI210). */
#define EST_OVERLAP_SLOWDOWN 0.189

/* ---- the link (formulas.md "Communication") ---- */

void estimate_link(const struct workload *w, const struct gpu_spec *gpu, long gpus, enum est_link *kind,
		   double *peak_out, double *bw)
{
	int ic = w->interconnect;
	enum est_link what;
	double peak;

	if (ic == IC_AUTO) {
		if (!gpu)
			ic = IC_PCIE;
		else if (gpu->link == LINK_NVLINK || gpu->link == LINK_INFINITY || gpu->link == LINK_ICI)
			ic = IC_NVLINK;
		else if (gpu->link == LINK_NVLINK_BRIDGE && gpus == 2)
			ic = IC_NVLINK;
		else
			ic = IC_PCIE;
	}
	switch (ic) {
	case IC_NVLINK:
		if (gpu && gpu->link_bw > 0) {
			peak = gpu->link_bw / 2;
			what = gpu->link == LINK_NVLINK_BRIDGE ? EST_LINK_NVLINK_BRIDGE :
			       gpu->link == LINK_NVLINK ? EST_LINK_NVLINK :
			       gpu->link == LINK_INFINITY ? EST_LINK_INFINITY_FABRIC : EST_LINK_ICI;
		} else {
			peak = 300e9;
			what = EST_LINK_NVLINK_ASSUMED;
		}
		break;
	case IC_ETHERNET:
		peak = ETHERNET_BW;
		what = EST_LINK_ETHERNET;
		break;
	case IC_INFINIBAND:
		peak = INFINIBAND_BW;
		what = EST_LINK_INFINIBAND;
		break;
	default: {
		long gen = gpu && gpu->pcie_gen ? gpu->pcie_gen : 4;
		peak = gen <= 3 ? 15.75e9 : gen == 4 ? 31.5e9 : 63e9;
		what = gen <= 3 ? EST_LINK_PCIE3 : gen == 4 ? EST_LINK_PCIE4 : EST_LINK_PCIE5;
		break;
	}
	}
	if (kind)
		*kind = what;
	if (peak_out)
		*peak_out = peak;
	*bw = w->link_bw > 0 ? w->link_bw : peak * LINK_EFFICIENCY;
}

/*
 * formulas.md "Across nodes": a collective over N nodes of g GPUs each
 * runs in two levels (NCCL's and Horovod's hierarchical all-reduce):
 * inside each node over its link, then between nodes, where the g GPUs of
 * a node share its network. Moving a share k(G-1)/G of D bytes per GPU
 * takes k[(g-1)/g D / intra + (N-1)/N D / node_bw], so the one effective
 * bandwidth is ((G-1)/G) / ((g-1)/g / intra + (N-1)/N / node_bw).
 */
static void across_nodes(const struct workload *w, struct estimate *e)
{
	double N = (double)e->nodes, G = (double)w->gpus, g = G / N, per_byte;

	if (w->node_bw > 0) {
		e->node_bw = w->node_bw;
		e->node_link = EST_NODE_GIVEN;
	} else if (w->interconnect == IC_INFINIBAND) {
		e->node_bw = INFINIBAND_BW * LINK_EFFICIENCY;
		e->node_link = EST_NODE_INFINIBAND;
	} else if (w->interconnect == IC_ETHERNET) {
		e->node_bw = ETHERNET_BW * LINK_EFFICIENCY;
		e->node_link = EST_NODE_ETHERNET;
	} else {
		e->node_bw = EST_NODE_BW_ASSUMED * LINK_EFFICIENCY;
		e->node_link = EST_NODE_ASSUMED;
	}
	e->intra_bw = g > 1 ? e->link_bw : 0;
	per_byte = (N - 1) / N / e->node_bw + (g > 1 ? (g - 1) / g / e->intra_bw : 0);
	e->link_bw = (G - 1) / G / per_byte;
}

void est_comm(const struct workload *w, const struct model_spec *m,
	      const struct gpu_spec *gpu, struct estimate *e, struct comm_plan *cp)
{
	double G = (double)w->gpus, ring = 2 * (G - 1) / G, A = (double)w->grad_accum;
	double eg = w->precision == PREC_FP32 ? 4 : 2;
	double ew = eg;
	/* a unit FSDP / ZeRO-3 gathers at a time: one transformer block */
	double L = is_transformer(m) && m->layers > 0 ? (double)m->layers : 0;

	memset(cp, 0, sizeof(*cp));
	if (w->gpus < 2 || w->task == TASK_INFER)
		return;
	e->have_comm = true;
	if (w->task != TASK_TRAIN && !is_pure16(w->precision))
		eg = 4;   /* LoRA adapters and their gradients are fp32 (as in memory) */
	/* formulas.md "Communication": ring all-reduce of the gradients, in
	 * buckets, once a step (DDP skips it in the other micro-batches) */
	if (!(w->zero >= 3 && w->task == TASK_TRAIN)) {
		cp->last = ring * e->params_trainable * eg;
		cp->last_tail = fmin(cp->last, ring * EST_DDP_BUCKET_BYTES);
	}
	if (w->zero >= 3 && w->task == TASK_TRAIN) {
		/* every micro-batch: all-gather in forward, all-gather and
		 * reduce-scatter in backward, each (G-1)/G of the weights */
		double v = (G - 1) / G * e->params * ew;
		cp->fwd = v;
		/* FSDP's root unit stays gathered: backward does not gather it again */
		cp->bwd = 2 * v - (G - 1) / G * e->shard_root;
		cp->fwd_tail = cp->bwd_tail = L > 0 ? v / L : 0;
	} else if (w->zero >= 3) {
		/* sharded frozen base: gathered in forward and again in backward */
		double v = (G - 1) / G * (e->mem.weights + e->mem.quant_consts) * G;
		cp->fwd = v;
		cp->bwd = v - (G - 1) / G * e->shard_root;
		cp->fwd_tail = cp->bwd_tail = L > 0 ? v / L : 0;
	}
	e->comm_bytes = A * (cp->fwd + cp->bwd) + cp->last;
	e->overlap = w->zero >= 3 ? EST_OVERLAP_ZERO3 : EST_OVERLAP_DDP;
	e->nodes = w->nodes > 1 ? w->nodes : 1;
	{
		/* across nodes, ethernet / infiniband name the network between
		 * them; inside a node the GPUs use their own link */
		struct workload in = *w;
		if (e->nodes > 1 && (in.interconnect == IC_ETHERNET || in.interconnect == IC_INFINIBAND))
			in.interconnect = IC_AUTO;
		estimate_link(&in, gpu, w->gpus / e->nodes, &e->link, &e->link_peak, &e->link_bw);
	}
	e->link_efficiency = LINK_EFFICIENCY;
	e->link_given = w->link_bw > 0;
	if (e->nodes > 1)
		across_nodes(w, e);
	e->comm_seconds = e->comm_bytes / e->link_bw;
}

/* The exposed time of t seconds of communication beside p seconds of
 * compute, of which u cannot overlap anything: the rest runs beside the
 * compute, which is slowed meanwhile, or outlasts it. */
static double exposed(double t, double u, double p)
{
	double s = EST_OVERLAP_SLOWDOWN, o = t - u;

	if (t <= 0)
		return 0;
	return u + fmax(o - p, o * s / (1 + s));
}

/* formulas.md "Communication": what the step's compute (split into
 * micro-batches and passes, fwd its forward share) leaves exposed. */
void est_comm_overlap(const struct workload *w, const struct comm_plan *cp, double fwd,
		      struct estimate *e)
{
	double A = (double)w->grad_accum, C = e->step_compute_seconds, bw = e->link_bw;
	double F = fwd * C / A, B = (1 - fwd) * C / A;
	double ef, mid, last, hidden = 0;

	if (!e->have_comm || C <= 0 || bw <= 0)
		return;
	ef = exposed(cp->fwd / bw, cp->fwd_tail / bw, F);
	mid = ef + exposed(cp->bwd / bw, cp->bwd_tail / bw, B);
	last = ef + exposed((cp->bwd + cp->last) / bw, (cp->bwd_tail + cp->last_tail) / bw, B);
	e->comm_exposed_seconds = (A - 1) * mid + last;
	/* the compute communication can run under */
	if (cp->fwd > 0)
		hidden += A * F;
	if (cp->bwd > 0)
		hidden += A * B;
	else if (cp->last > 0)
		hidden += B;
	e->overlap_fraction = hidden / C;
	e->overlap_slowdown = EST_OVERLAP_SLOWDOWN;
	e->comm_share = e->comm_exposed_seconds / (C + e->comm_exposed_seconds);
	note(e, (struct est_note){.code = EST_N_COMM_OVERLAP, .overlap = e->overlap,
				  .fraction = e->overlap_fraction, .slowdown = e->overlap_slowdown,
				  .seconds = e->comm_exposed_seconds, .share = e->comm_share,
				  .gpus = w->gpus});
}
