/*
 * estimate_assume.c - what an estimate took without being told (issue 30):
 * the framework defaults in effect for the fields a user left unset, and
 * which of those fields would move the answer most if set the other way
 * (formulas.md "What moves the answer").
 */
#include "core/estimate/estimate_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/framework.h"

/* The fields a framework profile (or gpurent, without one) decides when
 * the user says nothing, in the order they are listed. */
static const char *const defaulted[] = {
	"loss", "activation_checkpointing", "optimizer_step", "flash_attention", "compile", "double_quant",
};

/* Whether field key matters for w on m (a loss only for a trained decoder,
 * checkpointing and the step only in training, double quantization only
 * for a 4-bit base). */
static bool relevant(const char *key, const struct workload *w, const struct model_spec *m)
{
	bool train = w->task != TASK_INFER;

	if (!strcmp(key, "loss"))
		return train && m->kind == MODEL_DECODER;
	if (!strcmp(key, "activation_checkpointing") || !strcmp(key, "optimizer_step"))
		return train;
	if (!strcmp(key, "flash_attention"))
		return is_transformer(m);
	if (!strcmp(key, "double_quant"))  /* NF4's (formulas.md "Quantization") */
		return w->quant_bits == 4 && w->task != TASK_TRAIN && w->quant_format <= QF_NF4;
	return true;
}

/* The value of an int-stored field (F_BOOL, F_ENUM) of w as its word. */
static const char *field_word(const struct workload *w, int i)
{
	const struct workload_field *f = &workload_fields[i];
	int k;

	memcpy(&k, (const char *)w + f->offset, sizeof(k));
	if (f->type == F_BOOL)
		return k ? "true" : "false";
	return workload_enum_name(f->name, k);
}

void est_defaults_note(const struct workload *w, const struct model_spec *m, struct estimate *e)
{
	struct est_note n = {.code = EST_N_FRAMEWORK_DEFAULTS, .framework = w->framework};
	size_t off = 0;

	for (size_t d = 0; d < sizeof(defaulted) / sizeof(defaulted[0]); d++) {
		int i = workload_field_index(defaulted[d]);

		if (i < 0 || workload_index_set(w, i) || !relevant(defaulted[d], w, m))
			continue;
		if (!strcmp(defaulted[d], "activation_checkpointing") && workload_is_set(w, "grad_checkpointing"))
			continue;  /* said by grad_checkpointing */
		off += (size_t)snprintf(n.name + off, off < sizeof(n.name) ? sizeof(n.name) - off : 0, "%s%s=%s",
					off ? " " : "", defaulted[d], field_word(w, i));
		if (off >= sizeof(n.name))
			break;
	}
	if (off)
		note(e, n);
}

/* A candidate: the field and the value to try in place of the one taken
 * (NULL: none applies to this workload). */
static const char *other_value(const char *key, const struct workload *r, char *buf, size_t n)
{
	if (!strcmp(key, "grad_checkpointing"))
		return r->task == TASK_INFER ? NULL : r->grad_checkpointing ? "false" : "true";
	if (!strcmp(key, "flash_attention"))
		return r->flash_attention ? "false" : "true";
	if (!strcmp(key, "loss"))
		return r->task == TASK_INFER ? NULL : r->loss == LOSS_FULL ? "chunked" : "full";
	if (!strcmp(key, "optimizer_step"))
		return r->task == TASK_INFER ? NULL : r->optimizer_step == STEP_FOREACH ? "fused" : "foreach";
	if (!strcmp(key, "compile"))
		return r->compile ? "false" : "true";
	if (!strcmp(key, "gradient_as_bucket_view"))
		return r->gpus > 1 && r->zero == 0 && r->task != TASK_INFER && !r->gradient_as_bucket_view ? "true" : NULL;
	if (!strcmp(key, "micro_batch")) {
		snprintf(buf, n, "%ld", r->micro_batch * 2);
		return buf;
	}
	return NULL;
}

void estimate_sensitivity(const struct workload *given, const struct model_db *mdb, const struct gpu_db *gdb,
			  const struct est_bench *bench, struct estimate *e)
{
	static const char *const cand[] = {
		"grad_checkpointing", "loss", "flash_attention", "optimizer_step", "compile",
		"gradient_as_bucket_view", "micro_batch",
	};
	struct workload r = *given, t;
	struct model_spec arch;
	const struct gpu_spec *gpu;
	struct estimate *x = NULL;
	int bad;
	char err[256], buf[32];

	e->nsensitive = 0;
	if (workload_resolve(&r, mdb, gdb, &arch, &gpu, &bad, err, sizeof(err)) || !(e->mem.total > 0))
		return;
	x = malloc(sizeof(*x));
	if (!x)
		return;
	for (size_t c = 0; c < sizeof(cand) / sizeof(cand[0]); c++) {
		const char *v;
		double dm, dt = 0, score;
		int i = workload_field_index(cand[c]);
		struct est_sensitive s;

		if (i < 0 || workload_index_set(given, i) || !(v = other_value(cand[c], &r, buf, sizeof(buf))))
			continue;
		if (!strcmp(cand[c], "grad_checkpointing") && workload_is_set(given, "activation_checkpointing"))
			continue;
		t = *given;
		if (workload_set(&t, cand[c], v, 0, err, sizeof(err)) ||
		    workload_resolve(&t, mdb, gdb, &arch, &gpu, &bad, err, sizeof(err)) ||
		    estimate_run_bench(&t, &arch, gpu, bench, x, err, sizeof(err)))
			continue;  /* that value is refused for this workload: not a choice */
		dm = (x->mem.total - e->mem.total) / e->mem.total;
		if (e->have_time && x->have_time && e->wall_seconds > 0)
			dt = (x->wall_seconds - e->wall_seconds) / e->wall_seconds;
		score = fmax(fabs(dm), fabs(dt));
		if (!(score >= 0.01))
			continue;
		s = (struct est_sensitive){.field = i, .mem_change = dm, .time_change = dt};
		snprintf(s.value, sizeof(s.value), "%s", v);
		/* keep the largest two, largest first */
		for (int k = 0; k <= e->nsensitive && k < EST_MAX_SENSITIVE; k++) {
			const struct est_sensitive *o = &e->sensitive[k];
			if (k == e->nsensitive || score > fmax(fabs(o->mem_change), fabs(o->time_change))) {
				memmove(&e->sensitive[k + 1], &e->sensitive[k],
					(size_t)(EST_MAX_SENSITIVE - 1 - k) * sizeof(e->sensitive[0]));
				e->sensitive[k] = s;
				if (e->nsensitive < EST_MAX_SENSITIVE)
					e->nsensitive++;
				break;
			}
		}
	}
	free(x);
}
