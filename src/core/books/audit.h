/*
 * audit.h - a bill read against the ledger: the money split by kind (GPU
 * time, storage, egress, images, IPs, other) for a period and per
 * resource, and the findings of seed 000 §5.2 and seed 004 §5.1/§5.4,
 * each with the amount at stake, the resource and the period. Pure: the
 * command words the codes (src/cmd/books/billwords.c). Formulas: docs/bill.md.
 */
#ifndef GPURENT_AUDIT_H
#define GPURENT_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/books/bill.h"

/* MUST match audit_code_names[] in audit.c. */
enum audit_code {
	AUDIT_ROUNDING,             /* billed time above the time used (hourly/minute rounding) */
	AUDIT_STORAGE_OUTLIVED,     /* storage billed after the last GPU line ended */
	AUDIT_EGRESS_OVER_GPU,      /* egress cost above the GPU cost of the period */
	AUDIT_STOPPED_NOT_RELEASED, /* IP (and disk) billed after the last GPU line ended */
	AUDIT_UNGUARDED_GPU,        /* GPU lines no ledger run overlaps */
	AUDIT_RUN_COST_MISMATCH,    /* a run's ledger cost differs from the bill's GPU lines */
	AUDIT_OVER_BUDGET,          /* spend after the budget was used up */
	AUDIT_BALANCE_RUNOUT,       /* the day the budget runs out at the period's rate */
	AUDIT_NCODES
};

/* "rounding", "storage-outlived", ... (stable: JSON and tests use them). */
const char *audit_code_name(enum audit_code c);

/* A ledger run as the audit sees it. */
struct audit_run {
	int64_t id;
	double start, end;        /* unix s; end NaN while running (counts as still going) */
	double cost;              /* NaN unknown */
	char currency[8];         /* "" unknown */
	char host[BILL_TEXT_MAX]; /* the ledger's host or instance id; "" unknown */
	char gpu[64];             /* the ledger's GPU model ("A100-80GB"); "" unknown */
};

/* A balance that lasts longer than this (100 years of 365.25 days) is
 * reported as lasting: balance-runout's count is 0, its day from + this. */
#define AUDIT_RUNOUT_MAX_S (100 * 365.25 * 86400)

struct audit_opts {
	double from, to;          /* the period [from, to); NaN: the bill's own span */
	double budget;            /* in the currency audited; NaN: none */
	const char *currency;     /* the currency audited (items in others are ignored) */
};

struct audit_finding {
	enum audit_code code;
	double amount;            /* at stake, in the currency (>= 0) */
	char resource[BILL_TEXT_MAX];  /* "" when it concerns the whole bill; "run N" for runs */
	double from, to;          /* the lines' span (unix s) */
	size_t count;             /* lines (rounding: sessions) */
	double billed, used;      /* rounding: billed and used hours; egress: egress and GPU cost;
				     runs: bill and ledger cost; budget: spend and budget */
};

struct audit_resource {
	char resource[BILL_TEXT_MAX];   /* "" for lines without a resource id */
	double by_kind[BILL_NKINDS];
	double total;
};

struct audit_result {
	char currency[8];
	double from, to;                /* the period audited: from <= to; from == to (no
					   line in it) when a --to came before the bill's
					   first line and --from was left to the bill */
	double by_kind[BILL_NKINDS];    /* the split of the period */
	double total;                   /* the lines' amounts summed (credit lines in) */
	double gross;                   /* the positive amounts */
	double credits;                 /* the negative amounts and GCP's credits (<= 0) */
	double net;                     /* gross + credits */
	size_t lines;                   /* lines in the period */
	struct audit_resource *res;     /* sorted by total, largest first; owned */
	size_t nres;
	struct audit_finding *f;        /* sorted by amount, largest first; owned */
	size_t nf;
};

/*
 * Audit the n items (those in o->currency that overlap the period) against
 * the nruns ledger runs. A line partly inside the period counts pro rata
 * of its time. A run is read against the GPU lines of its own box only:
 * the lines whose resource id carries its host as a word when some line
 * does, else (no host, or one no line carries) the lines no host claims,
 * by time, one box a run (docs/bill.md "Which run a line is"). A disk
 * is tied to its instance by the names and tags the lines carry (docs/bill.md
 * "Which box a disk is"). A bound
 * left NaN is the bill's own (the first line's start, the last line's
 * end), kept on its side of the other bound. Returns 0 and fills *out
 * (caller frees with audit_result_free()), or -1 (out of memory, or a
 * period given whose end is before its start) with a message in err.
 */
int audit_bill(const struct bill_item *items, size_t n, const struct audit_run *runs,
	       size_t nruns, const struct audit_opts *o, struct audit_result *out,
	       char *err, size_t errlen);

void audit_result_free(struct audit_result *r);

#endif
