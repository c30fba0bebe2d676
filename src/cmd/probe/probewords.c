/*
 * probewords.c - the words of `gpurent probe` (probewords.h). The fixes
 * are the seed article's troubleshooting table (000 §5.1), in its order.
 */
#include "cmd/probe/probewords.h"

#include <stdbool.h>
#include <stdio.h>

#include "base/i18n.h"

#include "base/util.h"

const char *probe_word_title(enum probe_code c)
{
	static const char *const t[] = {
		[PROBE_D_WARMUP] = N_("warm-up"),
		[PROBE_D_DATA_STARVED] = N_("data loading cannot keep up"),
		[PROBE_D_SLOWING] = N_("steps slowing down"),
		[PROBE_D_MEM_GROWING] = N_("memory growing"),
		[PROBE_D_SLICED] = N_("a slice of the card"),
		[PROBE_D_NO_STEPS] = N_("no step lines"),
		[PROBE_D_NO_GPU_MEMORY] = N_("no GPU memory reading"),
		[PROBE_D_IMPOSSIBLE] = N_("impossible speed"),
	};

	return (unsigned)c < ARRAY_SIZE(t) && t[c] ? t[c] : "?";
}

const char *probe_word_fix(enum probe_code c)
{
	static const char *const t[] = {
		[PROBE_D_WARMUP] = N_("compilation, autotuning and cold caches: excluded from the figures"),
		[PROBE_D_DATA_STARVED] = N_("more DataLoader workers (num_workers), pin_memory=True, prefetch "
					 "(prefetch_factor), and the data set on local disk rather than "
					 "network storage"),
		[PROBE_D_SLOWING] = N_("a leak or a growing cache: detach losses before logging them "
				    "(loss.item(), not the tensor), keep no tensors across steps, empty "
				    "caches (torch.cuda.empty_cache()) where one grows"),
		[PROBE_D_MEM_GROWING] = N_("a leak or a growing cache: detach losses before logging them "
					"(loss.item(), not the tensor), keep no tensors across steps, empty "
					"caches (torch.cuda.empty_cache()) where one grows"),
		[PROBE_D_SLICED] = N_("the card is shared or sliced (MIG, vGPU): `gpurent env` tells which; "
				   "plan with the memory you see, or rent another box"),
		[PROBE_D_NO_STEPS] = N_("give --step-regex 'RE' (its first group the step number) or "
				     "--progress-file FILE that the job rewrites with its step"),
		[PROBE_D_NO_GPU_MEMORY] = N_("have the job write PyTorch's figures to $GPURENT_PROBE_TORCH_FILE "
					  "(docs/probe.md); in a container NVML may list the host's process "
					  "ids, which match none of the job's"),
		[PROBE_D_IMPOSSIBLE] = N_("check what a step is: the tokens or samples a step (micro_batch x seq x "
				       "grad_accum x GPUs), the step lines read (a logger printing several lines a "
				       "step, --step-regex), and the GPU; --calibrate refuses this probe"),
	};

	return (unsigned)c < ARRAY_SIZE(t) && t[c] ? t[c] : "";
}

/* The translation of the format fmt for a human, the English for JSON. */
static const char *word(bool human, const char *fmt) __attribute__((format_arg(2)));
static const char *word(bool human, const char *fmt)
{
	return human ? _(fmt) : fmt;
}

void probe_word_evidence(const struct probe_diag *d, bool human, char *buf, size_t n)
{
	switch (d->code) {
	case PROBE_D_WARMUP:
		snprintf(buf, n, word(human, N_("the first %ld step%s took %.3g s against %.3g s steady")), d->steps,
			 d->steps == 1 ? "" : "s", d->a, d->b);
		break;
	case PROBE_D_DATA_STARVED:
		snprintf(buf, n, word(human, N_("GPU utilisation %.0f%% (under 50%%) while the job's CPU ran at %.0f%% of a core")),
			 d->a, d->b);
		break;
	case PROBE_D_SLOWING:
		snprintf(buf, n, word(human, N_("the median step rose from %.3g s in the first third to %.3g s in the last")),
			 d->a, d->b);
		break;
	case PROBE_D_MEM_GROWING:
		snprintf(buf, n, word(human, N_("the job's GPU memory grew %.1f MB a step, %.0f MB over %ld steady steps")),
			 d->a / 1e6, d->b / 1e6, d->steps);
		break;
	case PROBE_D_SLICED:
		snprintf(buf, n, word(human, N_("the process sees %.1f GB, the card's datasheet says %.1f GB")), d->a / 1e9,
			 d->b / 1e9);
		break;
	case PROBE_D_NO_STEPS:
		snprintf(buf, n, word(human, N_("no line of the job's output matched a known logger")));
		break;
	case PROBE_D_NO_GPU_MEMORY:
		snprintf(buf, n, word(human, N_("NVML reported no GPU memory for the job's processes")));
		break;
	case PROBE_D_IMPOSSIBLE:
		snprintf(buf, n, word(human, N_("MFU %.1f%%: the steps did more work than the card's dense peak of "
						"%.0f TFLOP/s a GPU allows")), d->a * 100, d->b / 1e12);
		break;
	default:
		snprintf(buf, n, "?");
	}
}

const char *probe_word_logger(enum probe_logger l)
{
	static const char *const t[] = {
		[PROBE_LOG_NONE] = N_("none"),
		[PROBE_LOG_HF] = "Hugging Face Trainer",
		[PROBE_LOG_TQDM] = N_("tqdm bar"),
		[PROBE_LOG_TORCHTUNE] = "torchtune",
		[PROBE_LOG_LIGHTNING] = "LitGPT",
		[PROBE_LOG_LLMC] = "llm.c",
		[PROBE_LOG_DEEPSPEED] = "DeepSpeed",
		[PROBE_LOG_STEP] = "step N",
		[PROBE_LOG_REGEX] = "--step-regex",
		[PROBE_LOG_PROGRESS] = "--progress-file",
	};

	return (unsigned)l < ARRAY_SIZE(t) && t[l] ? t[l] : "?";
}
