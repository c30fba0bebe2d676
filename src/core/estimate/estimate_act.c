/*
 * estimate_act.c - what the forward pass leaves in memory: activations by
 * layer (kept, checkpointed, offloaded), the loss buffer, quantized inputs.
 */
#include "core/estimate/estimate_int.h"

#include <math.h>
#include <string.h>

#include "core/model/framework.h"

/* ---- activations (formulas.md "Activations") ---- */

/* Bytes one transformer layer keeps for backward, every activation kept. */
static double layer_activation_bytes(const struct workload *w, const struct model_spec *m,
				     double s, double b, double e)
{
	const struct fw_profile *fp = fw_profile(w->framework);
	double h = (double)m->hidden, a = (double)m->heads, d = (double)m->head_dim;
	double k = (double)m->kv_heads;
	double f = (double)m->ffn * (m->experts ? (double)m->experts_active : 1);
	double norms = (double)(m->norms_per_layer < 1 ? 1 : m->norms_per_layer);
	/* torch.autocast runs softmax and the norms in fp32; a framework that
	 * casts the parameters (FSDP MixedPrecision, DeepSpeed, Megatron) runs
	 * every op in 16 bits (formulas.md "Activations") */
	bool autocast = is_mixed(w->precision) && !fp->cast_params;
	double es = autocast ? 4 : e;
	/* formulas.md "Activations": under torch.compile the partitioner
	 * recomputes pointwise ops in backward rather than keep their
	 * outputs: a norm keeps its input only, the MLP its matmul outputs */
	double keep_norm = w->compile ? 1 : 2;
	double keep_mlp = m->gated_ffn ? (w->compile ? 2 : 4) : (w->compile ? 1 : 2);
	bool drop = w->dropout > 0;
	double bytes;

	/* Full training under autocast (or any training of a module kept in
	 * fp32) keeps the residual stream in fp32 and runs LayerNorm in fp32: each norm keeps a 4-byte input and output
	 * plus the 16-bit copy the next matmul reads. */
	if (autocast && (w->task == TASK_TRAIN || fp->mixed_fp32_module))
		bytes = s * b * norms * h * (w->compile ? 4 + 2 : 4 + 4 + 2);
	else
		bytes = e * s * b * keep_norm * norms * h;
	bytes += e * s * b * (a * d + 2 * k * d + a * d);
	bytes += e * s * b * f * keep_mlp;
	if (drop)
		bytes += 2 * s * b * h;  /* two 1-byte dropout masks */
	if ((w->task == TASK_LORA || w->task == TASK_QLORA) && w->lora_dropout > 0) {
		/* formulas.md "Activations": LoRA's dropout on each adapter's
		 * input, x -> dropout(x) @ A @ B: the dropped copy (kept by the
		 * matmul with A) and its 1-byte mask, for every adapted linear;
		 * q, k and v share one where the framework fuses them */
		const char *t = w->lora_targets;
		double qkv = (est_target_on(t, "q") ? 1 : 0) + (est_target_on(t, "k") ? 1 : 0) + (est_target_on(t, "v") ? 1 : 0);
		double in = (fp->lora_fused_qkv ? fmin(qkv, 1) : qkv) * h + (est_target_on(t, "o") ? a * d : 0) +
			    (m->gated_ffn && est_target_on(t, "gate") ? h : 0) + (est_target_on(t, "up") ? h : 0) +
			    (est_target_on(t, "down") ? f : 0);
		bytes += s * b * in * (e + 1);
	}
	if (w->flash_attention)
		bytes += 4 * a * s * b;  /* softmax log-sum-exp, fp32 */
	else if (w->activation_checkpointing != AC_SELECTIVE)
		/* the score matrix: selective checkpointing recomputes it (Korthikanti
		 * et al. 2022 eq. 6: the 5as^2b term goes, 34sbh stays) */
		bytes += a * s * s * b * (es + (drop ? 1 + es : 0));
	return bytes;
}

/* formulas.md "Activations": torchtitan's selective checkpointing by op
 * (pytorch/torchtitan@b5bcd76c: torchtitan/distributed/activation_checkpoint.py,
 * "Save all compute/comm ops, except every second mm/linear"): of the
 * layer's matmuls, in forward order, the 1st, 3rd, ... keep their outputs,
 * as do attention (its output and log-sum-exp); the layer's input is kept
 * as the checkpoint's; everything else is recomputed in backward. */
static double layer_sac_op_bytes(const struct model_spec *m, double s, double b, double e)
{
	double h = (double)m->hidden, a = (double)m->heads, d = (double)m->head_dim;
	double k = (double)m->kv_heads;
	double f = (double)m->ffn * (m->experts ? (double)m->experts_active : 1);
	double mm[7];
	int n = 0;
	double kept = h + a * d;   /* the layer's input, attention's output */

	mm[n++] = a * d; mm[n++] = k * d; mm[n++] = k * d; mm[n++] = h;   /* q, k, v, o */
	if (m->gated_ffn)
		mm[n++] = f;                                              /* gate */
	mm[n++] = f; mm[n++] = h;                                         /* up, down */
	for (int i = 0; i < n; i += 2)
		kept += mm[i];
	return e * s * b * kept + 4 * a * s * b;
}

/* Bytes one layer needs while it runs forward only (inference). */
static double layer_transient_bytes(const struct model_spec *m, double s, double b, double e,
				    bool flash)
{
	double h = (double)m->hidden, f = (double)m->ffn;
	double bytes = e * s * b * (4 * h + (m->gated_ffn ? 3 : 2) * f);

	if (!flash)
		bytes += 2 * e * (double)m->heads * s * s * b;
	return bytes;
}

/* ---- the loss buffer (formulas.md "Logits") ---- */

static double next_pow2(double x)
{
	double p = 1;

	while (p < x)
		p *= 2;
	return p;
}

void estimate_loss(const struct workload *w, const struct model_spec *m, double s, double b,
		   double ea, struct est_loss *out)
{
	/* each framework's own loss (formulas.md "Logits", with the code cited) */
	const struct fw_profile *fp = fw_profile(w->framework);
	double n = s * b, V = (double)m->vocab, H = (double)m->hidden;

	memset(out, 0, sizeof(*out));
	out->framework = w->framework >= 0 && w->framework < FW_COUNT ? w->framework : FW_NONE;
	out->given = workload_is_set(w, "loss");
	out->loss = out->given ? w->loss : fp->loss;
	out->chunks = 1;
	switch (out->loss) {
	case LOSS_CHUNKED:
		/* the model's logits whole in the compute dtype, one chunk of
		 * ceil(s / C) positions upcast: fp32 log-softmax + its gradient;
		 * C is the framework's chunk count, or s / its chunk length */
		out->chunks = out->framework != FW_NONE && fp->loss == LOSS_CHUNKED ?
			      (fp->loss_chunk_tokens > 0 ? ceil(s / (double)fp->loss_chunk_tokens) : fp->loss_chunks) :
			      EST_LOSS_CHUNKS_TORCHTUNE;
		if (out->chunks < 1)
			out->chunks = 1;
		out->bytes = n * V * ea + ceil(s / out->chunks) * b * V * (fp->loss_upcast > 0 ? fp->loss_upcast : 8);
		break;
	case LOSS_FUSED:
		if (out->framework == FW_LIGER && H > 0) {
			/* Liger: chunk_size = next_pow2(ceil(BT / ceil(V / H))) rows of
			 * logits live, plus grad_input (BT x H) held from forward */
			double chunk = fmin(next_pow2(ceil(n / ceil(V / H))), n);
			out->chunks = ceil(n / chunk);
			out->bytes = ea * (chunk * V + n * H);
		} else {
			/* the logits whole in the compute dtype, the gradient written over them */
			out->bytes = n * V * ea;
		}
		break;
	default:
		/* the logits, and an fp32 copy with its gradient (8 B a logit);
		 * Megatron's vocab-parallel loss reuses one fp32 buffer (4 B);
		 * a module cast to fp16 keeps the log-softmax and its gradient
		 * in 16 bits (2 x ea) */
		out->half = estimate_loss_half(w);
		out->bytes = n * V * (ea + (out->half ? 2 * ea :
					   out->framework != FW_NONE && fp->loss_upcast > 0 ? fp->loss_upcast : 8));
		break;
	}
}

/*
 * formulas.md "Logits" (the loss's dtype): DeepSpeed's engine casts the
 * module itself under fp16 (microsoft/DeepSpeed@38327e07
 * deepspeed/runtime/engine.py:1227, _configure_distributed_model:
 * `if self.fp16_enabled(): ... self.module.half()`) and runs no autocast,
 * so a loss that takes the logits as they are (a plain
 * nn.CrossEntropyLoss, as GPT2LMHeadModel.forward did before
 * Transformers' ForCausalLMLoss: huggingface/transformers@0010f602
 * src/transformers/models/gpt2/modeling_gpt2.py `loss_fct =
 * CrossEntropyLoss()` on `shift_logits`) computes its log-softmax and
 * gradient in fp16. Under bf16 gpurent keeps the fp32 upcast (the
 * Transformers models DeepSpeed's bf16 runs train upcast: `logits =
 * logits.float()`), as it does under autocast (cross_entropy is on
 * autocast's fp32 list).
 */
bool estimate_loss_half(const struct workload *w)
{
	return fw_profile(w->framework)->loss_half_fp16 && w->framework != FW_NONE &&
	       (w->precision == PREC_FP16 || w->precision == PREC_FP16_TRUE);
}

/*
 * formulas.md "Peak by phase" (the loss and the recomputed layer): under
 * checkpointing the loss buffers live from the lm_head's forward to its
 * backward, which frees them (the gradient of the logits becomes that of
 * the last hidden state) before backward reaches the last checkpointed
 * layer and recomputes it (torch.utils.checkpoint: the recomputation runs
 * inside the layer's own backward, in reverse layer order). The two are
 * never live together: of the recomputed layer's bytes, those under the
 * loss buffers' are taken off the activations, so activations + logits is
 * the larger moment, not the sum. Sets e->loss.apart.
 */
static void loss_moment(double recomputed, struct estimate *e)
{
	double apart = fmin(fmax(recomputed, 0), e->mem.logits);

	e->loss.apart = apart;
	e->mem.activations -= apart;
}

void est_activations(const struct workload *w, const struct model_spec *m,
		     struct estimate *e, double ea)
{
	double s = (double)w->seq, b = (double)w->micro_batch;
	struct cnn_cost cc;

	if (m->kind == MODEL_PARAMS_ONLY) {
		note(e, (struct est_note){.code = EST_N_NO_ACTIVATIONS});
		return;
	}
	if (m->kind == MODEL_RESNET) {
		model_cnn_cost(m, w->image_size, &cc);
		if (w->task == TASK_INFER) {
			e->mem.activations = 2 * cc.peak_layer_elems * b * ea;
			return;
		}
		e->mem.activations = b * (cc.saved_elems * ea + cc.saved_index_elems * 8);
		if (w->grad_checkpointing) {
			/* keep stage boundaries, recompute one stage at a time */
			e->mem.activations *= 0.5;
			note(e, (struct est_note){.code = EST_N_CNN_CHECKPOINTING});
		}
		return;
	}
	if (w->task == TASK_INFER) {
		/* one sequence's prompt is prefilled at a time */
		double sp = m->kind == MODEL_DECODER ? (double)w->context : s;
		/* formulas.md "Inference: chunked prefill": it runs prefill_chunk tokens a pass */
		if (m->kind == MODEL_DECODER && w->prefill_chunk > 0 && (double)w->prefill_chunk < sp)
			sp = (double)w->prefill_chunk;
		double bp = m->kind == MODEL_DECODER ? 1 : b;
		e->mem.activations = layer_transient_bytes(m, sp, bp, ea, w->flash_attention);
		if (m->kind == MODEL_DECODER)
			e->mem.logits = (double)w->concurrency * (double)m->vocab * 4;
		return;
	}
	{
		const struct fw_profile *fp = fw_profile(w->framework);
		double per = layer_activation_bytes(w, m, s, b, ea);
		double L = (double)m->layers, h = (double)m->hidden;
		double recomputed = 0;  /* one layer's bytes rebuilt in backward */
		if (w->activation_checkpointing == AC_FULL && w->activation_offloading) {
			/* formulas.md "Activations": the layer inputs wait in host
			 * memory; one comes back at a time for its recomputation */
			recomputed = per;
			e->mem.activations = ea * s * b * h + per;
		} else if (w->activation_checkpointing == AC_FULL) {
			recomputed = per;
			e->mem.activations = L * ea * s * b * h + per;
		} else if (w->activation_checkpointing == AC_SELECTIVE && fp->sac_op && m->kind == MODEL_DECODER) {
			/* kept by op in every layer; one layer's rest recomputed at a time */
			double kept = layer_sac_op_bytes(m, s, b, ea);
			recomputed = fmax(per - kept, 0);
			e->mem.activations = L * kept + recomputed;
		} else
			e->mem.activations = L * per;
		e->mem.activations += 2 * ea * s * b * h;  /* embedding output, final norm */
		if (m->kind == MODEL_VIT)
			e->mem.activations += 3.0 * (double)w->image_size * (double)w->image_size * b * ea;
		if (m->kind == MODEL_DECODER) {
			estimate_loss(w, m, s, b, ea, &e->loss);
			e->mem.logits = e->loss.bytes;
			loss_moment(recomputed, e);
			note(e, (struct est_note){.code = EST_N_LOSS, .loss = e->loss.loss,
						  .framework = e->loss.framework, .given = e->loss.given,
						  .chunks = e->loss.chunks, .bytes = e->loss.bytes,
						  .bits = e->loss.half ? 16 : 32});
			if (e->loss.apart > 0)
				note(e, (struct est_note){.code = EST_N_LOSS_MOMENT, .bytes = e->loss.bytes,
							  .left = e->loss.apart});
		}
		if (w->task == TASK_LORA && w->quant_bits == 16 && is_mixed(w->precision) &&
		    fp->mixed_fp32_module && m->kind == MODEL_DECODER) {
			/* formulas.md "Framework profiles": autocast over an fp32
			 * module casts each frozen weight to 16 bits for its matmul
			 * and, the weight not requiring grad, caches none: the matmul
			 * keeps its copy for backward, a layer's linears in every
			 * layer kept (one under recomputation), and the lm_head's for
			 * every chunk of the loss that calls it */
			double lin = model_params_linear(m) / L;
			e->mem.activations += ea * ((w->grad_checkpointing ? 1 : L) * lin +
						    (double)e->loss.chunks * (double)m->vocab * h);
		}
		if (base_quantized(w) && w->quant_bits == 8) {
			/* formulas.md "Peak by phase": bitsandbytes' MatMul8bitLt
			 * keeps CAt, an int8 copy of each linear's input, for
			 * backward: q, k, v and gate/up read h, o reads heads x
			 * head_dim, down reads ffn; one layer under recomputation */
			double q = (double)(m->heads * m->head_dim);
			double f = (double)m->ffn * (m->experts ? (double)m->experts_active : 1);
			double in = 3 * h + q + (m->gated_ffn ? 2 : 1) * h + f;
			e->mem.int8_saved = (w->grad_checkpointing ? 1 : L) * s * b * in;
		}
		if (base_quantized(w) && w->quant_bits == 4 && w->quant_saves_input) {
			/* formulas.md "Peak by phase": bitsandbytes up to 0.43.1
			 * kept each 4-bit linear's input for backward, which never
			 * reads it (ctx.tensors = (A, B); fixed by bitsandbytes
			 * #1270): the distinct inputs, the attention's and the MLP's
			 * norm outputs, attention's output and the MLP's product,
			 * 16-bit; one layer under recomputation, and the lm_head's
			 * input when it is quantized too */
			double q = (double)(m->heads * m->head_dim);
			double f = (double)m->ffn * (m->experts ? (double)m->experts_active : 1);
			e->mem.quant_saved = ((w->grad_checkpointing ? 1 : L) * (2 * h + q + f) +
					      (fw_profile(w->framework)->quant_lm_head ? h : 0)) * s * b * ea;
		}
	}
}
