/*
 * cmd_estimate.c - `gpurent estimate [FILE] [--field value]... [--json]`:
 * read a workload, run the estimator, print a table (esttable.c) or JSON
 * (estjson.c).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "core/box/envcheck.h"
#include "core/estimate/estimate.h"
#include "core/model/framework.h"
#include "core/text/names.h"
#include "core/model/workload.h"
#include "kit/cmd.h"
#include "cmd/estimate/calib.h"
#include "cmd/estimate/estout.h"
#include "kit/common.h"
#include "kit/wlargs.h"
#include "store/ledger.h"

static const char usage[] = N_(
	"usage: gpurent estimate [FILE.yaml] [--FIELD VALUE]... [--json]\n"
	"\n"
	"Estimate what a workload needs: GPU memory by component and which\n"
	"memory tiers it fits, run time from FLOPs, and whether multi-GPU\n"
	"communication dominates. Fields come from FILE (YAML, field: value)\n"
	"and from flags (--micro-batch 4 or --micro-batch=4); flags win.\n"
	"Booleans: --grad-checkpointing, --no-flash-attention.\n"
	"\n"
	"Fields (default in brackets):\n");

static void print_usage(FILE *f)
{
	fputs(_(usage), f);
	wlargs_print_fields(f);
	fputs(_("\nFramework defaults (--framework NAME; each overridable by its own field;\n"
	      "sources: docs/formulas.md \"Framework profiles\"):\n"), f);
	for (int i = 1; i < FW_COUNT; i++) {
		const struct fw_profile *p = fw_profile(i);
		if (p->serving) {
			fprintf(f, _("  %-11s %s: serving, CUDA graphs %s, prefill_chunk %ld%s"), p->name, msg_tr(p->what),
				p->compile ? "on" : "off", p->prefill_chunk,
				p->by_card ? (p->gpu_mem_util > 0 && i == FW_SGLANG ?
					      _(" (it and the share set by the card when one is given)") :
					      _(" (set by the card when one is given)")) : "");
			if (p->gpu_mem_util > 0)
				fprintf(f, _(", gpu_memory_utilization %.0f%% (the KV cache takes the rest)"),
					p->gpu_mem_util * 100);
			else
				fputs(_(", KV cache for the whole context up front"), f);
			if (p->kv_block > 0)
				fprintf(f, _(", KV block %ld token%s"), p->kv_block, p->kv_block == 1 ? "" : "s");
			fputs("\n", f);
			continue;
		}
		fprintf(f, _("  %-11s %s: loss %s"), p->name, msg_tr(p->what), workload_enum_name("loss", p->loss));
		if (p->loss == LOSS_CHUNKED && p->loss_chunk_tokens > 0)
			fprintf(f, _(" (%ld positions a chunk)"), p->loss_chunk_tokens);
		else if (p->loss == LOSS_CHUNKED)
			fprintf(f, _(" (%.0f chunks)"), p->loss_chunks);
		fprintf(f, _(", activation_checkpointing %s, optimizer_step %s, compile %s%s"),
			ac_names[p->ac], step_names[p->step], p->compile ? "on" : "off",
			p->quant_load == QLOAD_PREQUANTIZED ? _(", pre-quantized base (no 16-bit copy loading)") : "");
		if (p->prefetch_params > 0)
			fprintf(f, _(", ZeRO-3 prefetch %.0e and reduce bucket %.0e elements"), p->prefetch_params,
				p->reduce_bucket);
		else if (p->reduce_bytes > 0)
			fprintf(f, _(", sharded: one layer prefetched, gradients reduced in %s"),
				p->reduce_bytes == 4 ? "fp32" : "bf16");
		if (p->root_unsharded)
			fputs(_(", fsdp_root_gathered (zero 3: a decoder's embedding and lm_head held gathered to the end "
				"of backward)"), f);
		if (p->wrap_cache)
			fputs(_(", fsdp_wrap_cache (FSDP1's wrap leaves its unsharded copies cached)"), f);
		fputs("\n", f);
	}
	fputs(_("\n  --calibrate PROBE      use a recorded probe's memory and time (an id from\n"
	      "                         'gpurent ledger probes', or latest; docs/formulas.md\n"
	      "                         \"Calibrated by a probe\")\n"
	      "  --ledger PATH          the ledger --calibrate reads (default $GPURENT_LEDGER)\n"
	      "  --json                 machine-readable output (schema: docs/json.md)\n"
	      "\nExit status: 0 ok, 1 runtime failure, 2 bad input (one line names file:line: field).\n"
	      "Formulas and sources: docs/formulas.md. Accuracy: docs/accuracy.md.\n"), f);
}

/*
 * formulas.md "Measured by gpurent bench": the newest 16-bit GEMM
 * (gemm_bf16, else gemm_fp16; none for fp32 work) and device-copy
 * (d2d_copy) records of gpu in the default ledger ($GPURENT_LEDGER, read
 * only when it exists: none is created) into *b. False when there are none.
 */
static bool bench_figures(const struct gpu_db *gdb, const struct gpu_spec *gpu, int precision,
			  struct est_bench *b)
{
	char path[4096], err[256];
	struct ledger *l = NULL;
	struct ledger_bench_rows rows = {0};
	double bf16 = 0, fp16 = 0, at_bf16 = 0, at_fp16 = 0, at_copy = 0;

	memset(b, 0, sizeof(*b));
	if (!gpu || ledger_default_path(path, sizeof(path), err, sizeof(err)) || access(path, R_OK))
		return false;
	if (ledger_open_readonly(path, &l, err, sizeof(err)))
		goto out;
	if (ledger_bench_list(l, 0, &rows, err, sizeof(err)))
		goto out;
	/* oldest first: the last record of each test wins */
	for (size_t i = 0; i < rows.n; i++) {
		const struct ledger_bench *r = &rows.v[i];
		const struct gpu_spec *s = r->gpu ? envcheck_find_gpu(gdb, r->gpu, 0) : NULL;
		if (!s || strcmp(s->name, gpu->name) || !(r->value > 0) || !isfinite(r->value))
			continue;
		/* a figure beyond the datasheet's (or under 1% of it) is not a
		 * measurement of this card: skipped */
		{
			bool copy = !strcmp(r->test, "d2d_copy");
			double v = r->value * (copy ? 1e9 : 1e12);
			double sheet = copy ? gpu->mem_bw : fmax(gpu->bf16_flops, gpu->fp16_flops);
			if (sheet > 0 && !(v <= 1.2 * sheet && v >= 0.01 * sheet))
				continue;
		}
		if (!strcmp(r->test, "gemm_bf16") && !strcmp(r->unit, "TFLOP/s")) {
			bf16 = r->value * 1e12;
			at_bf16 = r->at;
		} else if (!strcmp(r->test, "gemm_fp16") && !strcmp(r->unit, "TFLOP/s")) {
			fp16 = r->value * 1e12;
			at_fp16 = r->at;
		} else if (!strcmp(r->test, "d2d_copy") && !strcmp(r->unit, "GB/s")) {
			b->bw = r->value * 1e9;
			at_copy = r->at;
		}
	}
	if (precision != PREC_FP32) {
		b->gemm_flops = bf16 > 0 ? bf16 : fp16;
		b->at = bf16 > 0 ? at_bf16 : at_fp16;
	}
	if (b->bw > 0 && at_copy > b->at)
		b->at = at_copy;
	if (!(b->gemm_flops > 0))
		b->gemm_flops = 0;
out:
	ledger_bench_rows_free(&rows);
	ledger_close(l);
	return b->gemm_flops > 0 || b->bw > 0;
}

int cmd_estimate(int argc, char **argv)
{
	struct workload w, given;
	struct gpu_db gdb;
	struct model_db mdb;
	struct model_spec arch;
	const struct gpu_spec *gpu;
	struct estimate e;
	struct est_bench bench;
	struct calib cal = {0};
	const char *file = NULL, *calibrate = NULL, *ledger = NULL;
	char err[512];
	bool json = false;
	int rc, bad;
	const struct opt own[] = {
		{.name = "calibrate", .type = OPT_STRING, .dest = &calibrate, .arg = "PROBE",
		 .help = N_("use a recorded probe's memory and time (an id, or latest)"), .example = "latest"},
		OPT_BOOL("json", &json, N_("print JSON")),
		{.name = "ledger", .type = OPT_FILE, .dest = &ledger, .arg = "PATH",
		 .help = N_("the ledger --calibrate reads"), .example = "/dev/null"},
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = "estimate", .max_operands = -1,
				   .usage_fn = print_usage};

	workload_init(&w);
	if ((rc = wlargs_parse(&oc, own, argc, argv, &w, &file, NULL)) != OPT_GO)
		return rc;
	given = w;  /* as read: estimate_sensitivity() tries its unset fields */

	if ((rc = common_load_data(&gdb, &mdb)))
		return rc;
	if (workload_resolve(&w, &mdb, &gdb, &arch, &gpu, &bad, err, sizeof(err))) {
		rc = wlargs_field_error(file, &w, bad, err);
		goto out;
	}
	bench_figures(&gdb, gpu, w.precision, &bench);
	if (estimate_run_bench(&w, &arch, gpu, &bench, &e, err, sizeof(err))) {
		rc = wlargs_field_error(file, &w, e.bad_field, err);
		goto out;
	}
	estimate_sensitivity(&given, &mdb, &gdb, &bench, &e);
	if (calibrate) {
		if ((rc = calib_load(ledger, calibrate, &gdb, &w, &cal)))
			goto out;
		calib_apply(&cal, &w, gpu, &e);
	}
	if (json)
		estout_json(&w, &arch, gpu, &e, &cal);
	else
		estout_table(&w, &arch, gpu, &gdb, &e, &cal);
	rc = msg_finish(EXIT_OK);
out:
	calib_free(&cal);
	gpu_db_free(&gdb);
	model_db_free(&mdb);
	return rc;
}
