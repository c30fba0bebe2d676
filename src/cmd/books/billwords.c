/*
 * billwords.c - the words of `gpurent bill audit` and `gpurent report`
 * for the audit's codes (billwords.h). The fixes follow the seeds: seed
 * 000 §5.2 and §3.4, seed 004 §4.1, §5.1 and §5.4.
 */
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "cmd/books/billwords.h"
#include "base/i18n.h"

static char *day(double t, char *buf, size_t n)
{
	time_t tt = (time_t)floor(t);
	struct tm tm;

	if (!isfinite(t) || !gmtime_r(&tt, &tm) || !strftime(buf, n, "%Y-%m-%d", &tm))
		snprintf(buf, n, "-");
	return buf;
}

char *billwords_finding(const struct audit_finding *f, const char *cur, char *buf, size_t n)
{
	char a[24], b[24], res[BILL_TEXT_MAX + 8];

	snprintf(res, sizeof(res), "%s", f->resource[0] ? f->resource : _("(no resource id)"));
	switch (f->code) {
	case AUDIT_ROUNDING:
		snprintf(buf, n, Q_("%s: %zu session billed %.2f h for %.2f h used: %.2f %s paid for time not used.",
				    "%s: %zu sessions billed %.2f h for %.2f h used: %.2f %s paid for time not used.",
				    f->count),
			 res, f->count, f->billed, f->used, f->amount, cur);
		break;
	case AUDIT_STORAGE_OUTLIVED:
		snprintf(buf, n, _("%s: storage billed from %s to %s, after the last GPU line ended: %.2f %s."),
			 res, day(f->from, a, sizeof(a)), day(f->to, b, sizeof(b)), f->amount, cur);
		break;
	case AUDIT_EGRESS_OVER_GPU:
		snprintf(buf, n, _("Egress cost %.2f %s, more than the %.2f %s of GPU time it served: %.2f %s above it."),
			 f->billed, cur, f->used, cur, f->amount, cur);
		break;
	case AUDIT_STOPPED_NOT_RELEASED:
		snprintf(buf, n, _("%s: an IP (%.2f %s) and disks (%.2f %s) billed from %s to %s with no GPU running: "
				   "stopped, not released."),
			 res, f->billed, cur, f->used, cur, day(f->from, a, sizeof(a)), day(f->to, b, sizeof(b)));
		break;
	case AUDIT_UNGUARDED_GPU:
		snprintf(buf, n, Q_("%s: %zu GPU line (%.2f %s) with no run in the ledger: an idle or forgotten box?",
				    "%s: %zu GPU lines (%.2f %s) with no run in the ledger: an idle or forgotten box?",
				    f->count),
			 res, f->count, f->amount, cur);
		break;
	case AUDIT_RUN_COST_MISMATCH:
		snprintf(buf, n, _("%s: the ledger says %.2f %s, the bill's GPU lines over its time %.2f %s."),
			 res, f->used, cur, f->billed, cur);
		break;
	case AUDIT_OVER_BUDGET:
		snprintf(buf, n, _("Spend %.2f %s over a budget of %.2f %s: %.2f %s after it was used up on %s."),
			 f->billed, cur, f->used, cur, f->amount, cur, day(f->from, a, sizeof(a)));
		break;
	case AUDIT_BALANCE_RUNOUT:
		if (!f->count)   /* lasts past AUDIT_RUNOUT_MAX_S */
			snprintf(buf, n, _("At this period's rate a balance of %.2f %s lasts more than 100 years."),
				 f->used, cur);
		else
			snprintf(buf, n, _("At this period's rate a balance of %.2f %s runs out on %s."), f->used,
				 cur, day(f->from, a, sizeof(a)));
		break;
	default:
		snprintf(buf, n, "?");
	}
	return buf;
}

const char *billwords_fix(enum audit_code c)
{
	switch (c) {
	case AUDIT_ROUNDING:
		return _("Bill short sessions per second or per minute, or keep the box up between them.");
	case AUDIT_STORAGE_OUTLIVED:
		return _("Delete the disk (or snapshot it to object storage) when its instance is released.");
	case AUDIT_EGRESS_OVER_GPU:
		return _("Serve from a CDN or the same region, compress responses, or move the service next to its users.");
	case AUDIT_STOPPED_NOT_RELEASED:
		return _("Release the instance, not just stop it: free its IP and delete its disks.");
	case AUDIT_UNGUARDED_GPU:
		return _("Run jobs under 'gpurent run' so an idle box is stopped, or release it.");
	case AUDIT_RUN_COST_MISMATCH:
		return _("Check the run's price and billing mode in the ledger against the provider's.");
	case AUDIT_OVER_BUDGET:
		return _("Set a budget alert and 'gpurent run --budget' so the job stops at the limit.");
	case AUDIT_BALANCE_RUNOUT:
		return _("Top up before that day or turn on the provider's stop-on-arrears.");
	default:
		return "";
	}
}

const char *billwords_title(enum audit_code c)
{
	switch (c) {
	case AUDIT_ROUNDING: return _("Billing rounding");
	case AUDIT_STORAGE_OUTLIVED: return _("Storage outlived its instance");
	case AUDIT_EGRESS_OVER_GPU: return _("Egress above GPU time");
	case AUDIT_STOPPED_NOT_RELEASED: return _("Stopped, not released");
	case AUDIT_UNGUARDED_GPU: return _("GPU time with no run");
	case AUDIT_RUN_COST_MISMATCH: return _("Run cost differs from bill");
	case AUDIT_OVER_BUDGET: return _("Spend over budget");
	case AUDIT_BALANCE_RUNOUT: return _("Balance runs out");
	default: return "?";
	}
}

const char *billwords_kind(enum bill_kind k)
{
	switch (k) {
	case BILL_GPU: return _("GPU time");
	case BILL_STORAGE: return _("storage");
	case BILL_EGRESS: return _("egress");
	case BILL_IMAGE: return _("images");
	case BILL_IP: return _("IPs");
	default: return _("other");
	}
}
