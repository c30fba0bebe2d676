/*
 * catalog_own.c - the reader of gpurent's own offer format (data/offers.csv;
 * docs/offers.md): its columns, number and duration fields, and rows.
 * Internal: catalog_int.h.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/market/catalog_int.h"
#include "base/i18n.h"

const char *const own_cols[OC_N] = {
	"provider", "supply_type", "instance", "region", "gpu", "gpu_count", "slice",
	"gpu_mem_gb", "vcpus", "ram_gb", "disk_gb", "persistent_storage", "price",
	"spot_price", "currency", "billing", "queue_wait", "max_runtime", "source", "date",
	"access",   /* optional (OC_REQUIRED): empty = anyone who pays */
};

/* A number column: empty is 0, else finite, 0 or from min_pos to max. */
static int own_number(struct loader *ld, const struct csv_field *f, uint32_t line, int c,
		      double *out, double min_pos, double max, const char *what)
{
	if (!f->len) {
		*out = 0;
		return 0;
	}
	if (catalog_parse_number(f->p, f->len, out) || *out < 0 || *out > max ||
	    (*out > 0 && *out < min_pos)) {
		bad(ld, line, own_cols[c], what, f);
		return -1;
	}
	return 0;
}

static int own_duration(struct loader *ld, const struct csv_field *f, uint32_t line, int c, double *out)
{
	double v;
	size_t n = f->len;
	char unit;

	*out = 0;
	if (!n)
		return 0;
	unit = f->p[n - 1];
	if (unit == 'h' || unit == 'm' || unit == 'd' || unit == 's')
		n--;
	else
		unit = 's';
	if (catalog_parse_number(f->p, n, &v) || v < 0 ||
	    v * (unit == 'm' ? 60 : unit == 'h' ? 3600 : unit == 'd' ? 86400 : 1) > CAT_MAX_DURATION) {
		bad(ld, line, own_cols[c], _("expected a duration such as 30m, 6h or 2d, at most 100 years"), f);
		return -1;
	}
	*out = v * (unit == 'm' ? 60 : unit == 'h' ? 3600 : unit == 'd' ? 86400 : 1);
	return 0;
}

int load_own(struct loader *ld, const char *buf, size_t len, size_t pos, size_t line,
		    const int *col)
{
	struct csv_field f[MAX_FIELDS];

	while (pos < len) {
		const char *rec;
		size_t rec_len, rec_line = line;
		int nf, st, mem_case;
		bool ambiguous;
		struct offer o;
		double rate = 0, mem_gb = 0;
		const struct csv_field *cur;

		if (buf[pos] == '\n' || buf[pos] == '\r' || buf[pos] == '#') {
			while (pos < len && buf[pos] != '\n')
				pos++;
			if (pos < len) {
				pos++;
				line++;
			}
			continue;
		}
		nf = csv_scan_record(buf, len, &pos, &line, f, MAX_FIELDS, &rec, &rec_len);
		if (nf < 0) {
			bad(ld, (uint32_t)rec_line, "(row)", _("unterminated quoted field"), NULL);
			return 0;
		}
		ld->rep->rows++;
		if (nf != OC_N && nf > MAX_FIELDS) {
			bad(ld, (uint32_t)rec_line, "(row)", _("too many fields"), NULL);
			continue;
		}
		for (int c = 0; c < OC_N; c++)
			if (col[c] >= nf) {
				char what[64];
				snprintf(what, sizeof(what), _("expected %d fields, got %d"),
					 col[OC_ACCESS] >= 0 ? OC_N : OC_REQUIRED, nf);
				bad(ld, (uint32_t)rec_line, "(row)", what, NULL);
				goto next;
			}
		if (seen_hash(ld, hash_record(rec, rec_len) | 1, ROW_CODE(ROW_LOADED, 0, 0, 0))) {
			ld->rep->duplicates++;
			continue;
		}
		memset(&o, 0, sizeof(o));
		cur = &f[col[OC_SUPPLY]];
		st = supply_type_parse(cur->p, cur->len);
		if (st < 0) {
			bad(ld, (uint32_t)rec_line, "supply_type",
			    _("expected hyperscaler, ai-cloud, campus-hpc, serverless or marketplace"), cur);
			continue;
		}
		o.supply = (enum supply_type)st;
		if (own_number(ld, &f[col[OC_COUNT]], (uint32_t)rec_line, OC_COUNT, &o.gpus,
			       CAT_MIN_GPUS, CAT_MAX_GPUS, _("expected a GPU count from 0.001 to 1024")))
			continue;
		if (o.gpus <= 0) {
			bad(ld, (uint32_t)rec_line, "gpu_count", _("expected a GPU count from 0.001 to 1024"),
			    &f[col[OC_COUNT]]);
			continue;
		}
		if (own_number(ld, &f[col[OC_PRICE]], (uint32_t)rec_line, OC_PRICE, &o.price,
			       CAT_MIN_PRICE, CAT_MAX_PRICE, _("expected a price from 0 to 1e6 per instance-hour")) ||
		    own_number(ld, &f[col[OC_SPOT]], (uint32_t)rec_line, OC_SPOT, &o.spot_price,
			       CAT_MIN_PRICE, CAT_MAX_PRICE, _("expected a price from 0 to 1e6 per instance-hour")) ||
		    own_number(ld, &f[col[OC_MEM]], (uint32_t)rec_line, OC_MEM, &mem_gb,
			       0.001, CAT_MAX_GPU_GB, _("expected GPU memory in GB, at most 1e6")) ||
		    own_number(ld, &f[col[OC_VCPU]], (uint32_t)rec_line, OC_VCPU, &o.vcpus,
			       CAT_MIN_VCPUS, CAT_MAX_VCPUS, _("expected a number from 0.001 to 1e5")) ||
		    own_number(ld, &f[col[OC_RAM]], (uint32_t)rec_line, OC_RAM, &o.ram_gib,
			       CAT_MIN_RAM_GIB, CAT_MAX_RAM_GIB, _("expected a number from 0.001 to 1e7")) ||
		    own_number(ld, &f[col[OC_DISK]], (uint32_t)rec_line, OC_DISK, &o.disk_gb,
			       0.001, CAT_MAX_DISK_GB, _("expected a number from 0.001 to 1e9")) ||
		    own_duration(ld, &f[col[OC_QUEUE]], (uint32_t)rec_line, OC_QUEUE, &o.queue_wait) ||
		    own_duration(ld, &f[col[OC_MAXRUN]], (uint32_t)rec_line, OC_MAXRUN, &o.max_runtime))
			continue;
		if (!f[col[OC_PRICE]].len) {
			ld->rep->missing_price++;
			continue;
		}
		cur = &f[col[OC_CURRENCY]];
		if (cur->len < 16 && ld->o->currencies) {
			char code[16];
			memcpy(code, cur->p, cur->len);
			code[cur->len] = '\0';
			rate = currency_to_usd(ld->o->currencies, code);   /* read-only: safe on two threads */
		}
		if (rate <= 0) {
			bad(ld, (uint32_t)rec_line, "currency", _("unknown currency (see data/currencies.csv)"), cur);
			continue;
		}
		o.price *= rate;
		o.spot_price *= rate;
		if (o.spot_price >= o.price && o.spot_price > 0)
			spot_at_or_above(ld, &o, o.spot_price);
		cur = &f[col[OC_PERSIST]];
		o.persistent_storage = cur->len && (cur->p[0] == 'y' || cur->p[0] == 't');
		cur = &f[col[OC_SLICE]];
		o.is_slice = cur->len && !(cur->len == 5 && !memcmp(cur->p, "whole", 5));
		o.slice = str_of(ld, cur);
		cur = &f[col[OC_GPU]];
		o.gpu = resolve_gpu(ld, cur->p, cur->len, o.is_slice ? 0 : mem_gb * 1024.0,
				    1, 0, &mem_case, &ambiguous);
		o.gpu_name = str_of(ld, cur);
		if (!o.gpu)
			note_unknown(ld, cur);
		/* a slice has only its own memory; a whole card the spec's */
		o.gpu_mem = mem_gb > 0 ? mem_gb * 1e9 : o.gpu ? o.gpu->memory_bytes : 0;
		o.provider = str_of(ld, &f[col[OC_PROVIDER]]);
		o.instance = str_of(ld, &f[col[OC_INSTANCE]]);
		o.region = str_of(ld, &f[col[OC_REGION]]);
		o.billing = str_of(ld, &f[col[OC_BILLING]]);
		o.source = str_of(ld, &f[col[OC_SOURCE]]);
		o.date = str_of(ld, &f[col[OC_DATE]]);
		if (col[OC_ACCESS] >= 0)
			o.access = str_of(ld, &f[col[OC_ACCESS]]);
		if (!o.source.len) {
			bad(ld, (uint32_t)rec_line, "source", _("expected where the price comes from"), NULL);
			continue;
		}
		o.file = ld->file_index;
		o.line = (uint32_t)rec_line;
		if (push(ld, &o))
			return -1;
next:;
	}
	return 0;
}
