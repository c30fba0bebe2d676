/*
 * model.c - model presets (data/models.csv) and the arithmetic on an
 * architecture: parameter counts, embedding/linear split, the ResNet walk.
 * Formulas: docs/formulas.md "Parameters" and "CNN".
 */
#include "core/model/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text/csv.h"
#include "core/text/names.h"
#include "base/i18n.h"

const char *model_kind_name(enum model_kind k)
{
	switch (k) {
	case MODEL_DECODER: return "decoder";
	case MODEL_ENCODER: return "encoder";
	case MODEL_VIT: return "vit";
	case MODEL_RESNET: return "resnet";
	case MODEL_PARAMS_ONLY: break;
	}
	return "params-only";
}

static int parse_enum(const char *s, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

static int load_row(const struct csv *c, const struct csv_row *r,
		    const char *fname, void *record, char *err, size_t errlen)
{
	struct model_spec *m = record;
	static const char *const kinds[] = {"params-only", "decoder", "encoder", "vit", "resnet"};
	static const char *const biases[] = {"none", "qkv", "all"};
	static const char *const norms[] = {"layernorm", "rmsnorm"};
	static const char *const poss[] = {"none", "learned", "rope"};
	char kind[32], bias[16], norm[16], pos[16], block[16], stages[64], stem[16];
	int k;

	if (csv_field_str(c, r, "name", true, fname, m->name, sizeof(m->name), err, errlen) ||
	    csv_field_str(c, r, "aliases", false, fname, m->aliases, sizeof(m->aliases), err, errlen) ||
	    csv_field_str(c, r, "kind", true, fname, kind, sizeof(kind), err, errlen) ||
	    csv_field_str(c, r, "source", true, fname, m->source, sizeof(m->source), err, errlen) ||
	    csv_field_double_range(c, r, "params_published", false, 0, 0, 1e15, fname, &m->params_published, err, errlen) ||
	    csv_field_double_range(c, r, "active_params_published", false, 0, 0, 1e15, fname, &m->active_published, err, errlen))
		return -1;
	k = parse_enum(kind, kinds, 5);
	if (k <= 0) {
		snprintf(err, errlen, _("%s:%zu: kind: expected decoder, encoder, vit or resnet, got '%s'"),
			 fname, r->line, kind);
		return -1;
	}
	m->kind = (enum model_kind)k;
	if (m->kind == MODEL_RESNET) {
		if (csv_field_long_range(c, r, "image_size", true, 0, 1, 100000, fname, &m->image_size, err, errlen) ||
		    csv_field_long_range(c, r, "num_classes", true, 0, 1, 100000000, fname, &m->num_classes, err, errlen) ||
		    csv_field_str(c, r, "cnn_block", true, fname, block, sizeof(block), err, errlen) ||
		    csv_field_str(c, r, "cnn_stages", true, fname, stages, sizeof(stages), err, errlen) ||
		    csv_field_str(c, r, "cnn_stem", true, fname, stem, sizeof(stem), err, errlen))
			return -1;
		if (strcmp(block, "basic") && strcmp(block, "bottleneck")) {
			snprintf(err, errlen, _("%s:%zu: cnn_block: expected basic or bottleneck, got '%s'"),
				 fname, r->line, block);
			return -1;
		}
		m->cnn_bottleneck = !strcmp(block, "bottleneck");
		if (sscanf(stages, "%ld-%ld-%ld-%ld", &m->cnn_stages[0], &m->cnn_stages[1],
			   &m->cnn_stages[2], &m->cnn_stages[3]) != 4 ||
		    m->cnn_stages[0] < 1 || m->cnn_stages[1] < 1 ||
		    m->cnn_stages[2] < 1 || m->cnn_stages[3] < 1) {
			snprintf(err, errlen, _("%s:%zu: cnn_stages: expected four block counts like 3-4-6-3, got '%s'"),
				 fname, r->line, stages);
			return -1;
		}
		if (strcmp(stem, "imagenet") && strcmp(stem, "cifar")) {
			snprintf(err, errlen, _("%s:%zu: cnn_stem: expected imagenet or cifar, got '%s'"),
				 fname, r->line, stem);
			return -1;
		}
		m->cnn_cifar_stem = !strcmp(stem, "cifar");
		return 0;
	}
	if (csv_field_long_range(c, r, "layers", true, 0, 1, 100000, fname, &m->layers, err, errlen) ||
	    csv_field_long_range(c, r, "hidden", true, 0, 1, 10000000, fname, &m->hidden, err, errlen) ||
	    csv_field_long_range(c, r, "heads", true, 0, 1, 100000, fname, &m->heads, err, errlen) ||
	    csv_field_long_range(c, r, "kv_heads", true, 0, 1, 100000, fname, &m->kv_heads, err, errlen) ||
	    csv_field_long_range(c, r, "head_dim", true, 0, 1, 1000000, fname, &m->head_dim, err, errlen) ||
	    csv_field_long_range(c, r, "ffn", true, 0, 1, 10000000, fname, &m->ffn, err, errlen) ||
	    csv_field_bool(c, r, "gated_ffn", false, fname, &m->gated_ffn, err, errlen) ||
	    csv_field_long_range(c, r, "vocab", m->kind != MODEL_VIT, 0, 0, 100000000, fname, &m->vocab, err, errlen) ||
	    csv_field_bool(c, r, "tied_embeddings", false, fname, &m->tied_embeddings, err, errlen) ||
	    csv_field_str(c, r, "pos_embedding", true, fname, pos, sizeof(pos), err, errlen) ||
	    csv_field_long_range(c, r, "max_positions", false, 0, 0, 1000000000, fname, &m->max_positions, err, errlen) ||
	    csv_field_str(c, r, "norm", true, fname, norm, sizeof(norm), err, errlen) ||
	    csv_field_long_range(c, r, "norms_per_layer", true, 0, 1, 16, fname, &m->norms_per_layer, err, errlen) ||
	    (csv_col(c, "qk_norm") >= 0 &&  /* optional column: older tables lack it */
	     csv_field_bool(c, r, "qk_norm", false, fname, &m->qk_norm, err, errlen)) ||
	    (csv_col(c, "attn_softcap") >= 0 &&  /* optional column, as qk_norm */
	     csv_field_double_range(c, r, "attn_softcap", false, 0, 0, 1e6, fname, &m->attn_softcap, err, errlen)) ||
	    csv_field_str(c, r, "bias", true, fname, bias, sizeof(bias), err, errlen) ||
	    csv_field_long_range(c, r, "experts", false, 0, 0, 100000, fname, &m->experts, err, errlen) ||
	    csv_field_long_range(c, r, "experts_active", false, 0, 0, 100000, fname, &m->experts_active, err, errlen) ||
	    csv_field_double_range(c, r, "dropout", false, 0, 0, 1, fname, &m->dropout, err, errlen))
		return -1;
	if ((k = parse_enum(pos, poss, 3)) < 0) {
		snprintf(err, errlen, _("%s:%zu: pos_embedding: expected none, learned or rope, got '%s'"),
			 fname, r->line, pos);
		return -1;
	}
	m->pos = (enum pos_kind)k;
	if ((k = parse_enum(norm, norms, 2)) < 0) {
		snprintf(err, errlen, _("%s:%zu: norm: expected layernorm or rmsnorm, got '%s'"),
			 fname, r->line, norm);
		return -1;
	}
	m->norm = (enum norm_kind)k;
	if ((k = parse_enum(bias, biases, 3)) < 0) {
		snprintf(err, errlen, _("%s:%zu: bias: expected none, qkv or all, got '%s'"),
			 fname, r->line, bias);
		return -1;
	}
	m->bias = (enum bias_kind)k;
	if (m->kind == MODEL_VIT &&
	    (csv_field_long_range(c, r, "image_size", true, 0, 1, 100000, fname, &m->image_size, err, errlen) ||
	     csv_field_long_range(c, r, "patch_size", true, 0, 1, 100000, fname, &m->patch_size, err, errlen) ||
	     csv_field_long_range(c, r, "num_classes", true, 0, 1, 100000000, fname, &m->num_classes, err, errlen)))
		return -1;
	if (model_validate(m, err, errlen)) {
		char tmp[256];
		snprintf(tmp, sizeof(tmp), "%s", err);
		snprintf(err, errlen, "%s:%zu: %s", fname, r->line, tmp);
		return -1;
	}
	return 0;
}

int model_db_load(struct model_db *db, const char *buf, size_t len,
		  const char *fname, char *err, size_t errlen)
{
	void *v;

	memset(db, 0, sizeof(*db));
	if (csv_load_table(buf, len, fname, sizeof(*db->v), load_row, &v, &db->n, err, errlen))
		return -1;
	db->v = v;
	return 0;
}

void model_db_free(struct model_db *db)
{
	free(db->v);
	db->v = NULL;
	db->n = 0;
}

const struct model_spec *model_db_find(const struct model_db *db, const char *name)
{
	for (size_t i = 0; i < db->n; i++)
		if (names_equal(name, db->v[i].name) || names_in_list(name, db->v[i].aliases))
			return &db->v[i];
	return NULL;
}

int model_db_suggest(const struct model_db *db, const char *name, char *out, size_t n)
{
	struct names_suggest s;

	names_suggest_init(&s, name);
	for (size_t i = 0; i < db->n; i++) {
		names_suggest_add(&s, db->v[i].name);
		names_suggest_add_list(&s, db->v[i].aliases);
	}
	if (!s.best[0])
		return -1;
	snprintf(out, n, "%s", s.best);
	return 0;
}

int model_validate(const struct model_spec *m, char *err, size_t errlen)
{
	if (m->kind == MODEL_PARAMS_ONLY) {
		if (m->params_given <= 0) {
			snprintf(err, errlen, _("params: expected a positive parameter count"));
			return -1;
		}
		return 0;
	}
	if (m->kind == MODEL_RESNET)
		return 0;
	if (m->kv_heads > m->heads || m->heads % m->kv_heads) {
		snprintf(err, errlen, _("kv_heads: expected a divisor of heads (%ld), got %ld"),
			 m->heads, m->kv_heads);
		return -1;
	}
	if (m->experts && (m->experts_active < 1 || m->experts_active > m->experts)) {
		snprintf(err, errlen, _("experts_active: expected 1 to %ld, got %ld"),
			 m->experts, m->experts_active);
		return -1;
	}
	if (m->dropout < 0 || m->dropout >= 1) {
		snprintf(err, errlen, _("dropout: expected a probability below 1, got %g"), m->dropout);
		return -1;
	}
	return 0;
}

/* One transformer block: attention, MLP (all experts, or the active ones), norms. */
static double block_params(const struct model_spec *m, bool active_only)
{
	double h = (double)m->hidden, q = (double)(m->heads * m->head_dim);
	double kv = (double)(m->kv_heads * m->head_dim), f = (double)m->ffn;
	double attn = h * q + 2 * h * kv + q * h;
	double mlp = (m->gated_ffn ? 3 : 2) * h * f;
	double norm_w = m->norm == NORM_LAYER ? 2 : 1;  /* weight (+ bias) */
	double norms = (double)m->norms_per_layer * norm_w * h;
	double experts;

	if (m->qk_norm)  /* one norm over head_dim for q, one for k, shared by the heads */
		norms += 2 * norm_w * (double)m->head_dim;

	if (m->bias == BIAS_QKV)
		attn += q + 2 * kv;
	if (m->bias == BIAS_ALL) {
		attn += q + 2 * kv + h;
		mlp += (m->gated_ffn ? 2 : 1) * f + h;
	}
	if (m->experts) {
		experts = (double)(active_only ? m->experts_active : m->experts);
		mlp = experts * mlp + h * (double)m->experts;  /* + router */
	}
	return attn + mlp + norms;
}

long model_vit_tokens(const struct model_spec *m, long image_size)
{
	long side = image_size / m->patch_size;
	return side * side + 1;
}

double model_params_embedding(const struct model_spec *m)
{
	double h = (double)m->hidden, e = 0;

	switch (m->kind) {
	case MODEL_DECODER:
	case MODEL_ENCODER:
		e = (double)m->vocab * h;
		if (m->pos == POS_LEARNED)
			e += (double)m->max_positions * h;
		if (m->kind == MODEL_ENCODER)
			e += 2 * h;  /* token-type table (BERT type_vocab_size 2) */
		return e;
	case MODEL_VIT:
		return (double)model_vit_tokens(m, m->image_size) * h + h; /* pos + cls */
	case MODEL_RESNET:
	case MODEL_PARAMS_ONLY:
		break;
	}
	return 0;
}

static double model_params_k(const struct model_spec *m, bool active_only)
{
	double h = (double)m->hidden;
	double final_norm = m->norm == NORM_LAYER ? 2 * h : h;
	double total;
	struct cnn_cost cc;

	switch (m->kind) {
	case MODEL_PARAMS_ONLY:
		return m->params_given;
	case MODEL_RESNET:
		model_cnn_cost(m, m->image_size, &cc);
		return cc.params;
	case MODEL_DECODER:
	case MODEL_ENCODER:
	case MODEL_VIT:
		break;
	}
	total = model_params_embedding(m) + (double)m->layers * block_params(m, active_only);
	if (m->kind == MODEL_DECODER) {
		total += final_norm;
		if (!m->tied_embeddings)
			total += (double)m->vocab * h;  /* lm_head */
	} else if (m->kind == MODEL_ENCODER) {
		total += 2 * h + h * h + h;  /* embedding LayerNorm + pooler */
	} else {
		double p = (double)m->patch_size;
		total += 3 * p * p * h + h;  /* patch embedding conv */
		total += final_norm + h * (double)m->num_classes + (double)m->num_classes;
	}
	return total;
}

double model_params(const struct model_spec *m)
{
	return model_params_k(m, false);
}

double model_params_active(const struct model_spec *m)
{
	return model_params_k(m, true);
}

double model_params_linear(const struct model_spec *m)
{
	double h = (double)m->hidden, q = (double)(m->heads * m->head_dim);
	double kv = (double)(m->kv_heads * m->head_dim), f = (double)m->ffn;
	double mlp = (m->gated_ffn ? 3 : 2) * h * f;

	if (m->kind == MODEL_PARAMS_ONLY)
		return m->params_given;
	if (m->kind == MODEL_RESNET)
		return model_params(m);
	if (m->experts)
		mlp *= (double)m->experts;
	return (double)m->layers * (2 * h * q + 2 * h * kv + mlp);
}

/* ---- ResNet walk (docs/formulas.md "CNN") ---- */

struct cnn_walk {
	struct cnn_cost *c;
	long side;   /* current feature map side */
	long ch;     /* current channels */
};

static long conv_out(long in, long k, long stride)
{
	return (in + 2 * (k / 2) - k) / stride + 1;
}

/* conv (no bias) + BatchNorm; relu: in-place ReLU follows. */
static void conv_bn(struct cnn_walk *w, long cout, long k, long stride, bool relu)
{
	long out = conv_out(w->side, k, stride);
	double elems = (double)cout * (double)out * (double)out;

	w->c->params += (double)(k * k) * (double)w->ch * (double)cout + 2.0 * (double)cout;
	w->c->fwd_flops += 2.0 * (double)(k * k) * (double)w->ch * elems;
	/* BN keeps the conv output; an in-place ReLU keeps the BN output,
	 * which the next conv reads. Without ReLU the BN output goes to the
	 * residual add and is not kept. */
	w->c->saved_elems += relu ? 2 * elems : elems;
	if (elems > w->c->peak_layer_elems)
		w->c->peak_layer_elems = elems;
	w->side = out;
	w->ch = cout;
}

static void res_block(struct cnn_walk *w, long width, long stride, bool bottleneck)
{
	long in_ch = w->ch, in_side = w->side;
	long out_ch = bottleneck ? 4 * width : width;
	double out_elems;

	if (bottleneck) {
		conv_bn(w, width, 1, 1, true);
		conv_bn(w, width, 3, stride, true);  /* v1.5: stride in the 3x3 */
		conv_bn(w, out_ch, 1, 1, false);
	} else {
		conv_bn(w, width, 3, stride, true);
		conv_bn(w, width, 3, 1, false);
	}
	if (stride != 1 || in_ch != out_ch) {
		struct cnn_walk d = {w->c, in_side, in_ch};
		conv_bn(&d, out_ch, 1, stride, false);
	}
	/* residual add, then in-place ReLU keeps the block output */
	out_elems = (double)w->ch * (double)w->side * (double)w->side;
	w->c->saved_elems += out_elems;
}

void model_cnn_cost(const struct model_spec *m, long image, struct cnn_cost *c)
{
	static const long widths[4] = {64, 128, 256, 512};
	struct cnn_walk w = {c, image, 3};

	memset(c, 0, sizeof(*c));
	c->saved_elems = 3.0 * (double)image * (double)image;  /* conv1 keeps its input */
	if (m->cnn_cifar_stem) {
		conv_bn(&w, 64, 3, 1, true);
	} else {
		long pooled;
		conv_bn(&w, 64, 7, 2, true);
		pooled = conv_out(w.side, 3, 2);
		/* max-pool: output (read by the next conv) and int64 indices */
		c->saved_elems += 64.0 * (double)pooled * (double)pooled;
		c->saved_index_elems += 64.0 * (double)pooled * (double)pooled;
		w.side = pooled;
	}
	for (int s = 0; s < 4; s++)
		for (long b = 0; b < m->cnn_stages[s]; b++)
			res_block(&w, widths[s], (s > 0 && b == 0) ? 2 : 1, m->cnn_bottleneck);
	/* global average pool, then the classifier */
	c->saved_elems += (double)w.ch;
	c->params += (double)w.ch * (double)m->num_classes + (double)m->num_classes;
	c->fwd_flops += 2.0 * (double)w.ch * (double)m->num_classes;
}
