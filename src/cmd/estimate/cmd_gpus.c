/*
 * cmd_gpus.c - `gpurent gpus [FILTER] [--json]`: the GPU table, like
 * `sky show-gpus`, filtered by a name or alias substring.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/model/gpu.h"
#include "core/text/names.h"
#include "kit/cmd.h"
#include "kit/common.h"
#include "kit/opt.h"
#include "base/out.h"
#include "base/util.h"

static const char usage[] = N_(
	"usage: gpurent gpus [FILTER] [--json]\n"
	"\n"
	"List GPU specifications from data/gpus.csv: memory, memory bandwidth,\n"
	"dense FP32/FP16/BF16/FP8 TFLOPS (no sparsity), interconnect, class.\n"
	"FILTER keeps GPUs whose name or alias contains it (A100, 4090, 80GB).\n"
	"Each row's source is in the file and in --json.\n");

static bool matches(const struct gpu_spec *g, const char *filter)
{
	char nf[128], nn[256];

	if (!filter)
		return true;
	names_norm(filter, nf, sizeof(nf));
	if (strstr(names_norm(g->name, nn, sizeof(nn)), nf))
		return true;
	return strstr(names_norm(g->aliases, nn, sizeof(nn)), nf) != NULL;
}

int cmd_gpus(int argc, char **argv)
{
	struct gpu_db db;
	const char *filter;
	bool json = false;
	int rc, shown = 0;
	struct json j;

	const struct opt opts[] = {
		OPT_BOOL("json", &json, N_("print JSON")),
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = "gpus", .usage = usage, .max_operands = 1, .operands = N_("one FILTER")};
	int nops;

	if ((rc = opt_parse(&oc, opts, argc, argv, NULL, &nops)) != OPT_GO)
		return rc;
	filter = nops ? argv[0] : NULL;
	if ((rc = common_load_data(&db, NULL)))
		return rc;
	for (size_t i = 0; i < db.n; i++)
		shown += matches(&db.v[i], filter);
	if (!shown && filter) {
		msg_error(_("no GPU matches '%s'"), filter);
		gpu_db_free(&db);
		return EXIT_RUNTIME;
	}
	if (json) {
		json_init(&j, stdout);
		json_arr_begin(&j, NULL);
	} else {
		static const int w[] = {-34, -14, 6, 8, 7, 7, 7, 7, -15, 0};
		const char *const h[] = {"GPU", _("alias"), _("mem GB"), _("BW GB/s"), "FP32", "FP16",
					 "BF16", "FP8", _("link"), _("class")};
		out_heading(stdout, w, h, ARRAY_SIZE(w));
	}
	for (size_t i = 0; i < db.n; i++) {
		const struct gpu_spec *g = &db.v[i];
		if (!matches(g, filter))
			continue;
		if (json) {
			json_obj_begin(&j, NULL);
			json_str(&j, "name", g->name);
			json_str(&j, "aliases", g->aliases);
			json_str(&j, "vendor", g->vendor);
			json_str(&j, "architecture", g->arch);
			json_str(&j, "class", gpu_class_name(g->cls));
			json_num(&j, "memory_bytes", g->memory_bytes);
			json_num(&j, "memory_bandwidth_bytes_per_second", g->mem_bw);
			json_num(&j, "fp32_flops_per_second", g->fp32_flops);
			json_num(&j, "fp16_flops_per_second", g->fp16_flops);
			json_num(&j, "bf16_flops_per_second", g->bf16_flops);
			json_num(&j, "fp8_flops_per_second", g->fp8_flops);
			json_str(&j, "interconnect", gpu_link_name(g->link));
			json_num(&j, "link_bytes_per_second", g->link_bw);
			json_int(&j, "pcie_gen", g->pcie_gen);
			json_num(&j, "tdp_watts", g->tdp_w);
			json_str(&j, "source", g->source);
			json_obj_end(&j);
		} else {
			char alias[32], f8[16], b16[16], f16[16], f32[16];
			snprintf(alias, sizeof(alias), "%.*s", (int)strcspn(g->aliases, "|"), g->aliases);
#define TF(buf, v) ((v) > 0 ? (snprintf(buf, sizeof(buf), "%.1f", (v) / 1e12), buf) : "-")
			printf("%-34s %-14s %6.0f %8.0f %7s %7s %7s %7s %-15s %s\n", g->name, alias,
			       g->memory_bytes / 1e9, g->mem_bw / 1e9, TF(f32, g->fp32_flops),
			       TF(f16, g->fp16_flops), TF(b16, g->bf16_flops), TF(f8, g->fp8_flops),
			       gpu_link_name(g->link), gpu_class_name(g->cls));
#undef TF
		}
	}
	if (json)
		json_arr_end(&j);
	gpu_db_free(&db);
	return msg_finish(EXIT_OK);
}
