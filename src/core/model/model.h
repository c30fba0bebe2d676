/*
 * model.h - model architectures: presets loaded from data/models.csv and
 * architectures given by hand. Parameter counts and forward FLOPs are
 * computed from the structure (docs/formulas.md "Parameters"), never
 * copied from a table; the published counts only check the arithmetic.
 */
#ifndef GPURENT_MODEL_H
#define GPURENT_MODEL_H

#include <stdbool.h>
#include <stddef.h>

enum model_kind {
	MODEL_PARAMS_ONLY,   /* only a parameter count is known */
	MODEL_DECODER,       /* GPT-style causal LM */
	MODEL_ENCODER,       /* BERT-style encoder (sequence classification) */
	MODEL_VIT,           /* vision transformer (image classification) */
	MODEL_RESNET,        /* ResNet family CNN */
};

enum bias_kind { BIAS_NONE, BIAS_QKV, BIAS_ALL };
enum norm_kind { NORM_LAYER, NORM_RMS };
enum pos_kind { POS_NONE, POS_LEARNED, POS_ROPE };

struct model_spec {
	char name[128];
	char aliases[256];        /* '|'-separated */
	enum model_kind kind;
	double params_published;  /* 0 when unknown */
	double active_published;  /* MoE: active parameters; 0 otherwise */
	long layers, hidden, heads, kv_heads, head_dim, ffn, vocab;
	bool gated_ffn, tied_embeddings;
	enum pos_kind pos;
	long max_positions;
	enum norm_kind norm;
	long norms_per_layer;
	bool qk_norm;             /* RMSNorm/LayerNorm of q and k per head (Qwen3, Gemma 3) */
	double attn_softcap;      /* attention logits capped, cap x tanh(s / cap) (Gemma 2); 0 = none */
	enum bias_kind bias;
	long experts, experts_active;   /* 0 = dense */
	double dropout;
	long image_size, patch_size, num_classes;
	bool cnn_bottleneck, cnn_cifar_stem;
	long cnn_stages[4];
	double params_given;      /* MODEL_PARAMS_ONLY: the count */
	char source[512];
};

struct model_db {
	struct model_spec *v;  /* owned */
	size_t n;
};

/*
 * Load presets from a CSV buffer. fname names the file in messages.
 * Returns 0, or -1 with "fname:line: column: what was expected" in err.
 * Caller frees with model_db_free().
 */
int model_db_load(struct model_db *db, const char *buf, size_t len,
		  const char *fname, char *err, size_t errlen);
void model_db_free(struct model_db *db);

/* Preset by name or alias (case and '-'/'_'/'.' insensitive); NULL if none. */
const struct model_spec *model_db_find(const struct model_db *db,
				       const char *name);

/* Closest preset name or alias for a "did you mean" copied into out; -1 if none. */
int model_db_suggest(const struct model_db *db, const char *name, char *out, size_t n);

/* Parameter counts computed from the architecture. */
double model_params(const struct model_spec *m);
double model_params_active(const struct model_spec *m);  /* MoE top-k */
/* Parameters in the input embedding tables (no matmul FLOPs). */
double model_params_embedding(const struct model_spec *m);
/* Parameters of the linear layers in the blocks (what LoRA targets and
 * what 4-bit quantization converts). */
double model_params_linear(const struct model_spec *m);

/* Sequence length a vision transformer sees: patches + class token. */
long model_vit_tokens(const struct model_spec *m, long image_size);

/* Check a hand-written architecture; 0 or -1 with the field in err. */
int model_validate(const struct model_spec *m, char *err, size_t errlen);

/*
 * ResNet structure walk. For an image of side `image` it returns the
 * forward FLOPs per image, and the activation elements per image that
 * PyTorch autograd keeps for backward (see docs/formulas.md "CNN").
 */
struct cnn_cost {
	double params;
	double fwd_flops;
	double saved_elems;       /* float tensors kept for backward */
	double saved_index_elems; /* int64 max-pool indices */
	double peak_layer_elems;  /* largest single feature map */
};
void model_cnn_cost(const struct model_spec *m, long image, struct cnn_cost *c);

const char *model_kind_name(enum model_kind k);

#endif
