/*
 * framework.c - the framework profiles (framework.h). Each value is the
 * framework's own default, cited in docs/formulas.md "Framework profiles"
 * (repository, path, commit); a field of the workload overrides each.
 */
#include "core/model/framework.h"

#include "core/model/workload.h"
#include "base/i18n.h"
#include "base/util.h"

/* the order of enum framework (workload.h) */
const char *const fw_names[] = {
	"none", "hf", "liger", "llm.c", "torchtune", "unsloth", "litgpt", "deepspeed",
	"fsdp", "torchtitan", "megatron", "vllm", "llama.cpp", "sglang", NULL,
};
const char *const ac_names[] = {"none", "selective", "full", NULL};
const char *const step_names[] = {"foreach", "fused", "in_bwd", "for_loop", NULL};

#define TRAIN(n, w, l, ch, ct, a, s, q, c) \
	{.name = n, .what = w, .loss = l, .loss_chunks = ch, .loss_chunk_tokens = ct, .ac = a, \
	 .step = s, .quant_load = q, .compile = c, .loss_upcast = 8, .ddp_reducer = true}

static const struct fw_profile profiles[] = {
	[FW_NONE] = TRAIN("none", N_("none named"), LOSS_FULL, 1, 0, AC_NONE, STEP_FOREACH,
			  QLOAD_PER_WEIGHT, false),
	[FW_HF] = {.name = "hf", .what = N_("Transformers Trainer, Accelerate, PEFT"), .loss = LOSS_FULL,
		   .loss_chunks = 1, .ac = AC_NONE, .step = STEP_FUSED, .quant_load = QLOAD_PER_WEIGHT,
		   .kbit_fp32_rest = true, .loss_upcast = 8, .bnb_quant = true, .ddp_reducer = true},
	[FW_LIGER] = TRAIN("liger", N_("Liger kernels on Transformers"), LOSS_FUSED, 1, 0, AC_NONE,
			   STEP_FUSED, QLOAD_PER_WEIGHT, false),
	/* llm.c all-reduces its own gradient buffer: no Reducer */
	[FW_LLMC] = {.name = "llm.c", .what = N_("Karpathy's llm.c"), .loss = LOSS_FUSED, .loss_chunks = 1,
		     .ac = AC_NONE, .step = STEP_FUSED, .quant_load = QLOAD_PER_WEIGHT, .loss_upcast = 8},
	[FW_TORCHTUNE] = {.name = "torchtune", .what = N_("PyTorch torchtune recipes"), .loss = LOSS_CHUNKED,
			  .loss_chunks = 8, .ac = AC_FULL, .step = STEP_FUSED, .quant_load = QLOAD_PER_WEIGHT,
			  .double_quant = true, .expandable = true, .loss_upcast = 8, .root_unsharded = true},
	[FW_UNSLOTH] = {.name = "unsloth", .what = N_("Unsloth"), .loss = LOSS_FUSED, .loss_chunks = 1,
			.ac = AC_FULL, .ac_offload = true, .step = STEP_FOREACH, .compile = true,
			.quant_load = QLOAD_PREQUANTIZED, .expandable = true, .loss_upcast = 8,
			.double_quant = true, .bnb_quant = true, .ddp_reducer = true},
	[FW_LITGPT] = {.name = "litgpt", .what = N_("Lightning LitGPT"), .loss = LOSS_CHUNKED,
		       .loss_chunk_tokens = 128, .ac = AC_NONE, .step = STEP_FOREACH,
		       .quant_load = QLOAD_PER_WEIGHT, .loss_upcast = 4, .mixed_fp32_module = true,
		       .quant_lm_head = true, .softcap_eager = true,
		       .untied_lm_head = true, .lora_fused_qkv = true, .quant_fp16_state = true,
		       .bnb_quant = true, .tp_replicates_vocab = true, .root_unsharded = true,
		       .ddp_reducer = true},
	[FW_DEEPSPEED] = {.name = "deepspeed", .what = N_("DeepSpeed ZeRO"), .loss = LOSS_FULL, .loss_chunks = 1,
			  .ac = AC_NONE, .step = STEP_FUSED, .quant_load = QLOAD_PER_WEIGHT, .cast_params = true,
			  .prefetch_params = 5e7, .reduce_bucket = 5e8, .reduce_bytes = 2, .loss_upcast = 8,
			  .loss_half_fp16 = true},
	[FW_FSDP] = {.name = "fsdp", .what = N_("PyTorch FSDP"), .loss = LOSS_FULL, .loss_chunks = 1,
		     .ac = AC_NONE, .step = STEP_FOREACH, .quant_load = QLOAD_PER_WEIGHT,
		     .cast_params = true, .reduce_bytes = 2, .loss_upcast = 8, .root_unsharded = true,
		     .wrap_cache = true},
	[FW_TORCHTITAN] = {.name = "torchtitan", .what = N_("PyTorch torchtitan (FSDP2)"), .loss = LOSS_CHUNKED,
			   .loss_chunks = 8, .loss_upcast = 8, .expandable = true, .ac = AC_SELECTIVE, .sac_op = true,
			   .step = STEP_FUSED, .quant_load = QLOAD_PER_WEIGHT, .cast_params = true, .reduce_bytes = 4,
			   .mfu_a100 = 0.5435, .mfu_h100 = 0.36, .root_unsharded = true},
	[FW_MEGATRON] = {.name = "megatron", .what = N_("Megatron-LM / Megatron-Core"), .loss = LOSS_FULL,
			 .loss_chunks = 1, .ac = AC_NONE, .step = STEP_FUSED, .quant_load = QLOAD_PER_WEIGHT,
			 .cast_params = true, .loss_upcast = 4},
	[FW_VLLM] = {.name = "vllm", .what = N_("vLLM"), .loss = LOSS_FULL, .loss_chunks = 1, .serving = true,
		     .compile = true, .prefill_chunk = 2048, .gpu_mem_util = 0.9, .kv_block = 16,
		     .custom_allreduce = true, .by_card = true},
	[FW_LLAMACPP] = {.name = "llama.cpp", .what = N_("llama.cpp (and Ollama)"), .loss = LOSS_FULL,
			 .loss_chunks = 1, .serving = true, .compile = true, .prefill_chunk = 512,
			 .native = true, .decode_bw_eff = 0.89, .decode_by_issue = true, .layer_split = true},
	[FW_SGLANG] = {.name = "sglang", .what = N_("SGLang"), .loss = LOSS_FULL, .loss_chunks = 1,
		       .serving = true, .compile = true, .prefill_chunk = 8192, .gpu_mem_util = 0.88,
		       .kv_block = 1, .custom_allreduce = true, .by_card = true},
};

_Static_assert(ARRAY_SIZE(profiles) == FW_COUNT, "one profile a framework");
_Static_assert(ARRAY_SIZE(fw_names) == FW_COUNT + 1, "one name a framework");

const struct fw_profile *fw_profile(int fw)
{
	return fw >= 0 && fw < FW_COUNT ? &profiles[fw] : &profiles[FW_NONE];
}
