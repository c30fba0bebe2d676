/*
 * planwords.c - the sentences of `gpurent plan` from the codes and facts
 * of src/core/plan.c (planwords.h). Every format string is marked with
 * _() or N_() for translation; the text is exactly what `gpurent plan`
 * has always printed (tests/cli/plan.sh).
 */
#include "planwords.h"

#include <stdio.h>
#include <string.h>

#include "../core/units.h"
#include "gettext.h"

const char *plan_mode_word(enum plan_mode m)
{
	static const char *const t[PLAN_NMODES] = {
		N_("on-demand"), N_("spot"), N_("daily package"), N_("weekly package"), N_("monthly package"),
		N_("reserved 1 year"), N_("reserved 3 years"),
	};
	return (unsigned)m < PLAN_NMODES ? _(t[m]) : "?";
}

const char *plan_exclusion_word(enum plan_exclusion e)
{
	static const char *const t[EX_NREASONS] = {
		N_("GPU not in data/gpus.csv (no memory or throughput to plan with)"),
		N_("does not meet the resources asked for (GPU type, count, CPUs, memory, cloud, region, spot)"),
		N_("GPU count differs from the workload's gpus"),
		N_("not enough GPU memory (with headroom)"),
		N_("a GPU slice too small for the job"),
		N_("multi-GPU step would be communication-bound"),
		N_("job longer than the queue's time limit and not resumable"),
		N_("finishes after the deadline"),
		N_("costs more than the budget"),
		N_("instance price above --max-price"),
		N_("no throughput figure for this GPU at this precision"),
	};
	return (unsigned)e < EX_NREASONS ? _(t[e]) : "?";
}

const char *plan_advice_word(enum plan_advice a)
{
	static const char *const t[PLAN_A_COUNT] = {
		[PLAN_A_NONE] = "",
		[PLAN_A_AI_CLOUD_SHORT] = N_("fits: per-second or hourly container billing, ready images, stop and go"),
		[PLAN_A_AI_CLOUD_LONG] = N_("fits with persistent storage and checkpoints; compare a weekly/monthly package"),
		[PLAN_A_AI_CLOUD_SERVICE] = N_("fits for a small service on a monthly package"),
		[PLAN_A_MARKET_RESUMABLE] = N_("cheapest per hour; hosts vanish, so keep checkpoints off the box"),
		[PLAN_A_MARKET_VOLATILE] = N_("cheapest per hour, but hosts can vanish: only for short runs or a resumable job"),
		[PLAN_A_CAMPUS_CHAINED] = N_("fits: free or subsidised, jobs chained across the time limit; queue waits count "
					     "against the deadline"),
		[PLAN_A_CAMPUS_NEEDS_RESUME] = N_("needs a resumable job: partitions cap a job at 24-168 h"),
		[PLAN_A_CAMPUS_QUEUE] = N_("queue waits cost more than short runs save"),
		[PLAN_A_CAMPUS_NO_SERVICE] = N_("not for a 24x7 service"),
		[PLAN_A_SERVERLESS_SPIKY] = N_("fits spiky inference: per-second, scales to zero when idle"),
		[PLAN_A_SERVERLESS_SHORT] = N_("fits runs under an hour: per-second, nothing to stop"),
		[PLAN_A_SERVERLESS_LONG] = N_("per-second premium and no persistent box: poor for long training"),
		[PLAN_A_HYPER_LARGE_DATA] = N_("fits large data next to its object storage; reserved/committed prices for long use"),
		[PLAN_A_HYPER_SHORT] = N_("dearest per hour for short runs; quota requests take days"),
		[PLAN_A_HYPER_STEADY] = N_("stable capacity, reserved 1y/3y discounts pay off only with steady use"),
		[PLAN_A_BILL_PER_SECOND] = N_("on-demand with per-second (or per-minute) billing; hourly rounding and packages "
					      "waste money on short, broken-up sessions"),
		[PLAN_A_BILL_SPOT] = N_("spot/interruptible if its expected cost (with restarts) stays lower; a package only "
					"if the run fills it (see the on-demand vs package totals above)"),
		[PLAN_A_BILL_ON_DEMAND] = N_("on-demand (make the job resumable to use spot and chained HPC jobs); a package "
					     "only if the run fills it (see the on-demand vs package totals above)"),
		[PLAN_A_BILL_SERVICE] = N_("monthly package or reserved capacity for a service that stays up; serverless if "
					   "traffic is spiky"),
	};
	if ((unsigned)a >= PLAN_A_COUNT)
		return "?";
	return t[a][0] ? _(t[a]) : "";
}

/* An offer's text field, at most max bytes of it. */
static int cut(const struct cat_str *s, int max)
{
	return (int)(s->len > (uint32_t)max ? (uint32_t)max : s->len);
}

void plan_word_example(const struct plan_example *x, char *out, size_t n)
{
	const struct offer *o = x->offer;
	char d[128];

	if (!n)
		return;
	out[0] = '\0';
	if (!o)
		return;
	switch (x->detail) {
	case PLAN_D_NO_SPECS:
		snprintf(d, sizeof(d), "%s", _("no specs for this GPU"));
		break;
	case PLAN_D_OTHER_KIND:
		snprintf(d, sizeof(d), _("%g GPU(s) of another kind or place"), x->a);
		break;
	case PLAN_D_GPU_COUNT:
		snprintf(d, sizeof(d), _("has %g GPUs, the job uses %g"), x->a, x->b);
		break;
	case PLAN_D_MEMORY:
		snprintf(d, sizeof(d), _("needs %.1f GB per GPU, has %.1f GB"), x->a / 1e9, x->b / 1e9);
		break;
	case PLAN_D_NO_TFLOPS:
		snprintf(d, sizeof(d), "%s", _("no TFLOPS at this precision"));
		break;
	case PLAN_D_COMM:
		snprintf(d, sizeof(d), _("communication %.1fx the compute per step"), x->a);
		break;
	case PLAN_D_TIME_LIMIT:
		snprintf(d, sizeof(d), _("%.0f h of compute, the limit is %.0f h"), x->a / 3600, x->b / 3600);
		break;
	case PLAN_D_NO_MODE:
		snprintf(d, sizeof(d), "%s", _("no billing mode allowed"));
		break;
	case PLAN_D_DEADLINE:
		snprintf(d, sizeof(d), _("done in %.1f h, deadline %.1f h"), x->a / 3600, x->b / 3600);
		break;
	case PLAN_D_BUDGET:
		snprintf(d, sizeof(d), _("%.0f USD, budget %.0f USD"), x->a, x->b);
		break;
	case PLAN_D_MAX_PRICE:
		snprintf(d, sizeof(d), _("%.2f USD/h, cap %.2f USD/h"), x->a, x->b);
		break;
	default:
		snprintf(d, sizeof(d), "?");
		break;
	}
	/* TRANSLATORS: provider, instance, (GPU as the catalog names it): what it showed */
	snprintf(out, n, _("%.*s %.*s (%.*s): %s"), cut(&o->provider, 24), o->provider.p,
		 cut(&o->instance, 40), o->instance.p, cut(&o->gpu_name, 24), o->gpu_name.p, d);
}

void plan_word_why(const struct plan_choice *c, char *out, size_t n)
{
	const struct offer *o = c->offer;
	char t[48];

	units_fmt_duration(c->compute_s, t, sizeof(t));
	switch (c->why) {
	case PLAN_WHY_SPOT:
		/* TRANSLATORS: memory used, GPU memory, compute time, GPUs, GPU, billing mode */
		snprintf(out, n, _("%.0f%% of %.0f GB per GPU used; %s on %g x %s; %s (expected, with restarts)"),
			 c->mem_used * 100, o->gpu_mem / 1e9, t, c->gpus, o->gpu->name, plan_mode_word(c->mode));
		break;
	case PLAN_WHY_QUEUE:
		snprintf(out, n, _("%.0f%% of %.0f GB per GPU used; %s on %g x %s; %s, queue %.0f h"),
			 c->mem_used * 100, o->gpu_mem / 1e9, t, c->gpus, o->gpu->name, plan_mode_word(c->mode),
			 c->queue_s / 3600);
		break;
	default:
		snprintf(out, n, _("%.0f%% of %.0f GB per GPU used; %s on %g x %s; %s"),
			 c->mem_used * 100, o->gpu_mem / 1e9, t, c->gpus, o->gpu->name, plan_mode_word(c->mode));
		break;
	}
}

void plan_word_class(const struct plan_result *r, char *out, size_t n)
{
	char t[64];

	units_fmt_duration(r->class_run_s, t, sizeof(t));
	switch (r->class_why) {
	case PLAN_CLASS_SERVICE:
		snprintf(out, n, "%s", _("inference: a service that stays up, priced by the month, not by the job"));
		break;
	case PLAN_CLASS_LONG_RUN:
		snprintf(out, n, _("a continuous run of %s: it must survive interruptions without losing progress"), t);
		break;
	case PLAN_CLASS_OCCASIONAL:
		if (r->class_run_s >= 0)
			snprintf(out, n, _("an occasional run of %s: pay only while it runs, stop the box at once"), t);
		else
			snprintf(out, n, "%s", _("an occasional run of a few hours: pay only while it runs, stop the box "
						 "at once"));
		break;
	default:
		snprintf(out, n, "?");
		break;
	}
}

void plan_word_check(const struct plan_check *c, char *out, size_t n)
{
	char a[64], b[64];

	switch (c->code) {
	case PLAN_C_AUTO_STOP:
		snprintf(out, n, _("auto-stop: stop the instance when the job ends, idles or stalls, with a max runtime "
				   "of %s (1.2x the estimate) and a budget stop at %.0f USD"),
			 units_fmt_duration(c->seconds, a, sizeof(a)), c->usd);
		break;
	case PLAN_C_CKPT_INTERVAL:
		snprintf(out, n, _("checkpoint every %s (Young/Daly for a %s write and the expected interruption rate), "
				   "atomically: temp file, fsync, rename"),
			 units_fmt_duration(c->seconds, a, sizeof(a)), units_fmt_duration(c->write_s, b, sizeof(b)));
		break;
	case PLAN_C_CKPT_REGULAR:
		snprintf(out, n, "%s", _("checkpoint at least every 15-30 minutes, atomically, to persistent storage"));
		break;
	case PLAN_C_DATA_UNKNOWN:
		snprintf(out, n, "%s", _("data: give data_size to price its storage and upload; verify it arrived "
					 "(count and sizes)"));
		break;
	case PLAN_C_DATA_RSYNC:
		snprintf(out, n, _("data (%s): rsync with resume (rsync -P); then verify file count and sizes"),
			 units_fmt_bytes(c->bytes, a, sizeof(a)));
		break;
	case PLAN_C_DATA_OBJECT_STORE:
		snprintf(out, n, _("data (%s): upload once to object storage, pull it from there (about %s at %.0f MB/s); "
				   "verify count and sizes after the copy"),
			 units_fmt_bytes(c->bytes, a, sizeof(a)), units_fmt_duration(c->seconds, b, sizeof(b)),
			 c->bw / 1e6);
		break;
	case PLAN_C_DATA_MOUNT:
		snprintf(out, n, _("data (%s): mount object storage with a local cache rather than copying; verify a "
				   "manifest"), units_fmt_bytes(c->bytes, a, sizeof(a)));
		break;
	case PLAN_C_DEBUG_CHEAPEST:
		if (!c->offer) {
			snprintf(out, n, "?");
			break;
		}
		snprintf(out, n, _("debug the script end to end for a few steps on the cheapest fitting box first "
				   "(%.*s %.*s at %.2f USD/h)"),
			 (int)c->offer->provider.len, c->offer->provider.p, (int)c->offer->instance.len,
			 c->offer->instance.p, c->usd);
		break;
	case PLAN_C_RECORD_COSTS:
		snprintf(out, n, "%s", _("record what each run cost (price paid, hours, problems met) so the next "
					 "estimate is your own"));
		break;
	default:
		snprintf(out, n, "?");
		break;
	}
}

void plan_word_cost_note(const struct plan_cost *c, char *out, size_t n)
{
	switch (c->note) {
	case PLAN_NOTE_ROUNDED:
		snprintf(out, n, _("%s: %.2f h billed for %.2f h used"), c->profile, c->hours_billed,
			 c->hours_used);
		return;
	case PLAN_NOTE_SPOT:
		snprintf(out, n, _("%s: %.1f interruptions expected"), c->profile, c->interruptions);
		return;
	case PLAN_NOTE_BILLING:
		break;
	}
	snprintf(out, n, _("%s billing"), c->profile);
}
