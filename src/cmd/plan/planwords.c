/*
 * planwords.c - the sentences of `gpurent plan` from the codes and facts
 * of src/core/plan/plan.c (planwords.h). Every format string is marked with
 * _() or N_() for translation; the text is exactly what `gpurent plan`
 * has always printed (tests/cli/plan.sh).
 */
#include "cmd/plan/planwords.h"

#include "base/out.h"

#include <stdio.h>
#include <string.h>

#include "core/text/units.h"
#include "base/i18n.h"

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
		N_("needs a membership you did not name (--access NAME if you have one)"),
		N_("left out by --exclude / --only"),
		N_("suspect price: spot at or above on-demand, the columns may be swapped (--trust-catalog to rank it)"),
		N_("a preferred resources choice earlier in `ordered` has a feasible offer"),
	};
	return (unsigned)e < EX_NREASONS ? _(t[e]) : "?";
}

const char *plan_advice_word(enum plan_advice a)
{
	static const char *const t[PLAN_A_COUNT] = {
		[PLAN_A_NONE] = "",
		[PLAN_A_AI_CLOUD_SHORT] = N_("suits short runs: per-second or hourly container billing, ready images, stop and go"),
		[PLAN_A_AI_CLOUD_LONG] = N_("suits long runs with persistent storage and checkpoints; compare a weekly/monthly package"),
		[PLAN_A_AI_CLOUD_SERVICE] = N_("suits a small service on a monthly package"),
		[PLAN_A_MARKET_RESUMABLE] = N_("cheapest per hour; hosts vanish, so keep checkpoints off the box"),
		[PLAN_A_MARKET_VOLATILE] = N_("cheapest per hour, but hosts can vanish: only for short runs or a resumable job"),
		[PLAN_A_CAMPUS_CHAINED] = N_("suits this job with an account: free or subsidised, jobs chained across the time "
					     "limit; queue waits count against the deadline"),
		[PLAN_A_CAMPUS_NEEDS_RESUME] = N_("needs a resumable job: partitions cap a job at 24-168 h"),
		[PLAN_A_CAMPUS_QUEUE] = N_("queue waits cost more than short runs save"),
		[PLAN_A_CAMPUS_NO_SERVICE] = N_("not for a 24x7 service"),
		[PLAN_A_SERVERLESS_SPIKY] = N_("suits spiky inference: per-second, scales to zero when idle"),
		[PLAN_A_SERVERLESS_SHORT] = N_("suits runs under an hour: per-second, nothing to stop"),
		[PLAN_A_SERVERLESS_LONG] = N_("per-second premium and no persistent box: poor for long training"),
		[PLAN_A_HYPER_LARGE_DATA] = N_("suits large data next to its object storage; reserved/committed prices for long use"),
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

/* An offer's text field as the words show it: control bytes escaped
 * (out.h), cut to the buffer (n - 1 bytes). Returns buf. */
static const char *field(const struct cat_str *s, char *buf, size_t n)
{
	return out_safe(s->p, s->len, buf, n);
}

/* "provider instance", escaped, cut to 24 and 40 bytes. */
static const char *offer_name(const struct offer *o, char *buf, size_t n)
{
	char p[25], i[41];

	snprintf(buf, n, "%s %s", field(&o->provider, p, sizeof(p)), field(&o->instance, i, sizeof(i)));
	return buf;
}

void plan_word_offer(const struct offer *o, const char *detail, char *out, size_t n)
{
	char p[25], i[41], g[25];

	/* TRANSLATORS: provider, instance, (GPU as the catalog names it): what it showed */
	snprintf(out, n, _("%s %s (%s): %s"), field(&o->provider, p, sizeof(p)), field(&o->instance, i, sizeof(i)),
		 field(&o->gpu_name, g, sizeof(g)), detail);
}

static const struct plan_fx usd_fx = {"USD", 1};

static double money(const struct plan_fx *fx, double usd)
{
	double v = usd / (fx && fx->usd_per_unit > 0 ? fx->usd_per_unit : 1);

	return v == 0 ? 0 : v;   /* never -0 */
}

static const char *code_of(const struct plan_fx *fx)
{
	return (fx ? fx : &usd_fx)->code;
}

void plan_word_example(const struct plan_example *x, const struct plan_fx *fx, char *out, size_t n)
{
	const struct offer *o = x->offer;
	char d[128], acc[49];

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
		/* TRANSLATORS: the job's cost and currency, the budget and currency */
		snprintf(d, sizeof(d), _("%.0f %s, budget %.0f %s"), money(fx, x->a), code_of(fx), money(fx, x->b),
			 code_of(fx));
		break;
	case PLAN_D_MAX_PRICE:
		snprintf(d, sizeof(d), _("%.2f %s/h, cap %.2f %s/h"), money(fx, x->a), code_of(fx), money(fx, x->b),
			 code_of(fx));
		break;
	case PLAN_D_ACCESS:
		snprintf(d, sizeof(d), _("needs an account: --access %s if you have one"),
			 field(&o->access, acc, sizeof(acc)));
		break;
	case PLAN_D_USER_FILTER:
		snprintf(d, sizeof(d), _("%s, left out as asked"), supply_type_name(o->supply));
		break;
	case PLAN_D_SUSPECT:
		snprintf(d, sizeof(d), _("spot %.2f %s/h at or above on-demand %.2f %s/h"), money(fx, x->a),
			 code_of(fx), money(fx, x->b), code_of(fx));
		break;
	case PLAN_D_ORDERED:
		snprintf(d, sizeof(d), _("choice %.0f in order, choice %.0f has a feasible offer"), x->a, x->b);
		break;
	default:
		snprintf(d, sizeof(d), "?");
		break;
	}
	plan_word_offer(o, d, out, n);
}

void plan_word_why(const struct plan_choice *c, char *out, size_t n)
{
	const struct offer *o = c->offer;
	/* a slice runs on its share of one card (docs/offers.md "Slices") */
	double g = o->gpus > 0 && o->gpus < 1 ? o->gpus * (c->nodes > 1 ? c->nodes : 1) : c->gpus;
	char t[48];

	units_fmt_duration(c->compute_s, t, sizeof(t));
	switch (c->why) {
	case PLAN_WHY_SPOT:
		/* TRANSLATORS: memory used, GPU memory, compute time, GPUs, GPU, billing mode */
		snprintf(out, n, _("%.0f%% of %.0f GB per GPU used; %s on %g x %s; %s (expected, with restarts)"),
			 c->mem_used * 100, o->gpu_mem / 1e9, t, g, o->gpu->name, plan_mode_word(c->mode));
		break;
	case PLAN_WHY_QUEUE:
		if (c->chunks > 1)
			snprintf(out, n, _("%.0f%% of %.0f GB per GPU used; %s on %g x %s; %s, %.0f jobs chained "
					   "across the %.0f h limit, queue %.0f h in all"),
				 c->mem_used * 100, o->gpu_mem / 1e9, t, g, o->gpu->name, plan_mode_word(c->mode),
				 c->chunks, o->max_runtime / 3600, c->queue_s / 3600);
		else
			snprintf(out, n, _("%.0f%% of %.0f GB per GPU used; %s on %g x %s; %s, queue %.0f h"),
				 c->mem_used * 100, o->gpu_mem / 1e9, t, g, o->gpu->name, plan_mode_word(c->mode),
				 c->queue_s / 3600);
		break;
	default:
		snprintf(out, n, _("%.0f%% of %.0f GB per GPU used; %s on %g x %s; %s"),
			 c->mem_used * 100, o->gpu_mem / 1e9, t, g, o->gpu->name, plan_mode_word(c->mode));
		break;
	}
	if (c->gpus > 1 && c->comm_share >= 0.005) {
		size_t len = strlen(out);
		if (len < n)
			snprintf(out + len, n - len, _("; communication %.0f%% of each step"), c->comm_share * 100);
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

void plan_word_check(const struct plan_check *c, const struct plan_fx *fx, char *out, size_t n)
{
	char a[64], b[64], m[64], d[64], on[72];

	switch (c->code) {
	case PLAN_C_AUTO_STOP:
		if (c->budget_given)
			snprintf(out, n, _("auto-stop: stop the instance when the job ends, idles or stalls, with a max "
					   "runtime of %s (1.2x the estimate) and a budget stop at your budget, %.0f %s"),
				 units_fmt_duration(c->seconds, a, sizeof(a)), money(fx, c->usd), code_of(fx));
		else if (c->usd > 0)
			snprintf(out, n, _("auto-stop: stop the instance when the job ends, idles or stalls, with a max "
					   "runtime of %s (1.2x the estimate) and a budget stop at %.0f %s (%.1fx the "
					   "expected cost; give budget to set your own)"),
				 units_fmt_duration(c->seconds, a, sizeof(a)), money(fx, c->usd), code_of(fx),
				 c->multiple);
		else
			snprintf(out, n, _("auto-stop: stop the job when it ends, idles or stalls, with a max runtime of "
					   "%s (1.2x the estimate); it is billed nothing here, so no budget stop (give "
					   "budget if the cluster charges card-hours)"),
				 units_fmt_duration(c->seconds, a, sizeof(a)));
		break;
	case PLAN_C_CKPT_INTERVAL:
		if (c->mtbf_s > 0)
			snprintf(out, n, _("checkpoint every %s: spot or marketplace interruptions come at random, so "
					   "Young/Daly for a %s write and a mean %s between interruptions; atomically: "
					   "temp file, fsync, rename"),
				 units_fmt_duration(c->seconds, a, sizeof(a)), units_fmt_duration(c->write_s, b, sizeof(b)),
				 units_fmt_duration(c->mtbf_s, m, sizeof(m)));
		else
			snprintf(out, n, _("checkpoint every %s (Young/Daly for a %s write and the expected interruption "
					   "rate), atomically: temp file, fsync, rename"),
				 units_fmt_duration(c->seconds, a, sizeof(a)), units_fmt_duration(c->write_s, b, sizeof(b)));
		break;
	case PLAN_C_CKPT_REGULAR:
		snprintf(out, n, _("checkpoint every %s (on-demand: the loss you can tolerate, 15-30 min, and at "
				   "least 20x the %s write), atomically, to persistent storage"),
			 units_fmt_duration(c->seconds, a, sizeof(a)), units_fmt_duration(c->write_s, b, sizeof(b)));
		break;
	case PLAN_C_CKPT_TIME_LIMIT:
		snprintf(out, n, _("the queue ends each job after %s: checkpoint before the limit, on the scheduler's "
				   "warning signal %s ahead (Slurm: --signal=B:USR1@%.0f), resume in the next job; "
				   "within a job every %s (%s write)"),
			 units_fmt_duration(c->seconds, a, sizeof(a)), units_fmt_duration(c->lead_s, b, sizeof(b)),
			 c->lead_s, units_fmt_duration(c->regular_s, m, sizeof(m)),
			 units_fmt_duration(c->write_s, d, sizeof(d)));
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
				   "(%s at %.2f %s/h)"),
			 offer_name(c->offer, on, sizeof(on)), money(fx, c->usd), code_of(fx));
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

void plan_word_magnitude(const struct plan_magnitude *m, const struct plan_fx *fx, char *out, size_t n)
{
	char a[64], b[64], w[64], work[160];
	const char *unit = m->work_is_samples ? _("samples") : _("tokens");

	if (!n)
		return;
	out[0] = '\0';
	if (m->code == PLAN_M_NONE)
		return;
	/* the input that drives it: tokens, or samples x seq x epochs */
	if (m->from_samples)
		snprintf(work, sizeof(work), _("%s tokens = %s samples x %.0f tokens x %g epochs"),
			 units_fmt_flops(m->work, a, sizeof(a)), units_fmt_flops(m->samples, b, sizeof(b)), m->seq,
			 m->epochs);
	else
		snprintf(work, sizeof(work), "%s %s", units_fmt_flops(m->work, a, sizeof(a)), unit);
	units_fmt_flops(m->work_in_range, w, sizeof(w));
	switch (m->code) {
	case PLAN_M_SLOW_ALL:
		snprintf(out, n, _("Order of magnitude: even the fastest offer needs %s, more than %s: the work "
				   "(%s) is out of range; about %s %s would finish within %s. Go back to the "
				   "requirement (fewer samples, epochs or tokens per sample) before comparing prices."),
			 units_fmt_duration_short(m->finish_s, a, sizeof(a)), units_fmt_duration_short(m->limit_s, b, sizeof(b)),
			 work, w, unit, units_fmt_duration_short(m->limit_s, b, sizeof(b)));
		break;
	case PLAN_M_SLOW_CHEAPEST:
		snprintf(out, n, _("Order of magnitude: the cheapest plan runs %s, more than %s: check the work "
				   "(%s) before renting; about %s %s would finish it within %s (seed 000 §3.5: for LoRA "
				   "fewer, better samples and 1-2 epochs often suffice)."),
			 units_fmt_duration_short(m->finish_s, a, sizeof(a)), units_fmt_duration_short(m->limit_s, b, sizeof(b)),
			 work, w, unit, units_fmt_duration_short(m->limit_s, b, sizeof(b)));
		break;
	case PLAN_M_OVER_BUDGET:
		snprintf(out, n, _("Order of magnitude: the cheapest plan costs %.0f %s, more than %.0fx the budget "
				   "of %.0f %s: the work (%s) is out of range; about %s %s would fit the budget."),
			 money(fx, m->total_usd), code_of(fx), PLAN_BUDGET_FACTOR, money(fx, m->budget_usd),
			 code_of(fx), work, w, unit);
		break;
	default:
		break;
	}
}

void plan_word_change(const struct plan_change *c, const struct plan_fx *fx, const char *access_names,
		      char *out, size_t n)
{
	char a[64], b[64], an[256];

	switch (c->code) {
	case PLAN_CH_MEMORY:
	{
		/* only what the job does not have yet (plan.h PLAN_FIX_*) */
		static const struct { unsigned bit; const char *words; } fx_words[] = {
			{PLAN_FIX_ZERO, N_("more GPUs with ZeRO/FSDP")},
			{PLAN_FIX_LORA, N_("LoRA or QLoRA")},
			{PLAN_FIX_QLORA, N_("QLoRA (a 4-bit base)")},
			{PLAN_FIX_CKPT, N_("gradient checkpointing (grad_checkpointing: true)")},
			{PLAN_FIX_MICRO, N_("a smaller micro_batch")},
			{PLAN_FIX_SEQ, N_("a shorter seq")},
		};
		char list[512] = "";
		size_t k = 0;
		for (size_t i = 0; i < sizeof(fx_words) / sizeof(fx_words[0]); i++)
			if (c->fixes & fx_words[i].bit)
				k += (size_t)snprintf(list + k, k < sizeof(list) ? sizeof(list) - k : 0, "%s%s",
						      k ? _(", ") : "", _(fx_words[i].words));
		snprintf(out, n, _("memory: the job needs %.1f GB per GPU, the largest on offer holds %.1f GB "
				   "(with headroom): a card with more memory, or %s"),
			 c->a / 1e9, c->b / 1e9, list);
	}
		break;
	case PLAN_CH_ZERO3:
		snprintf(out, n, _("--zero 3 fits 80 GB cards with %.0f GPUs"), c->a);
		break;
	case PLAN_CH_DEADLINE:
		snprintf(out, n, _("deadline: the soonest finish is %s, the deadline %s: a later deadline or less work"),
			 units_fmt_duration(c->a, a, sizeof(a)), units_fmt_duration(c->b, b, sizeof(b)));
		break;
	case PLAN_CH_BUDGET:
		snprintf(out, n, _("budget: the cheapest plan costs %.2f %s, the budget is %.2f %s: a larger budget "
				   "or less work"),
			 money(fx, c->a), code_of(fx), money(fx, c->b), code_of(fx));
		break;
	case PLAN_CH_ACCESS:
		snprintf(out, n, _("access: %.0f offers need a membership (%s): --access NAME if you have one"),
			 c->a, access_names && access_names[0] ?
			 out_safe(access_names, strlen(access_names), an, sizeof(an)) : "?");
		break;
	case PLAN_CH_RESUMABLE:
		snprintf(out, n, _("resumable: %.0f offers cap a job below its run time: make the job resume from "
				   "checkpoints (resumable: true)"), c->a);
		break;
	case PLAN_CH_NO_OFFERS:
		snprintf(out, n, "%s", _("offers: no catalog held an offer; give catalogs with --catalog (a SkyPilot "
					 "catalog folder or a gpurent offers CSV)"));
		break;
	case PLAN_CH_WORK:
		snprintf(out, n, _("work: about %s would fit"), units_fmt_flops(c->a, a, sizeof(a)));
		break;
	default:
		snprintf(out, n, "?");
		break;
	}
}

void plan_word_spot(const struct plan_spot_note *s, const struct plan_fx *fx, char *out, size_t n)
{
	char sp[72], od[72];

	if (!n)
		return;
	out[0] = '\0';
	if (s->code == PLAN_SPOT_NONE || !s->on_demand)
		return;
	offer_name(s->on_demand, od, sizeof(od));
	if (!s->spot) {
		if (s->code == PLAN_SPOT_ONLY_EXCLUDED)
			snprintf(out, n, _("use_spot: true left out on-demand offers, and no spot offer fits; the "
					   "cheapest on-demand plan would cost %.2f %s (%s)"),
				 money(fx, s->on_demand_total), code_of(fx), od);
		return;
	}
	offer_name(s->spot, sp, sizeof(sp));
	if (s->code == PLAN_SPOT_ONLY_EXCLUDED)
		snprintf(out, n, _("use_spot: true costs more here: the cheapest spot plan is %.2f %s (%s), "
				   "an on-demand plan %.2f %s (%s)"),
			 money(fx, s->spot_total), code_of(fx), sp, money(fx, s->on_demand_total), code_of(fx), od);
	else
		snprintf(out, n, _("spot is not the saving here: the cheapest spot plan, with its expected restarts, "
				   "is %.2f %s (%s); on-demand %.2f %s (%s)"),
			 money(fx, s->spot_total), code_of(fx), sp, money(fx, s->on_demand_total), code_of(fx), od);
}

void plan_word_supply(const struct plan_supply *s, const struct plan_fx *fx, char *out, size_t n)
{
	char a[64];

	if (s->feasible)
		snprintf(out, n, _("%zu feasible, best %.2f %s, done in %s"), s->feasible, money(fx, s->best_total),
			 code_of(fx), units_fmt_duration_short(s->best_finish_s, a, sizeof(a)));
	else if (s->need_access)
		snprintf(out, n, _("none feasible (%zu need an account: --access)"), s->need_access);
	else
		snprintf(out, n, "%s", _("none feasible"));
}

void plan_word_fastest(const struct plan_choice *fast, const struct plan_choice *cheapest, double margin,
		       const struct plan_fx *fx, char *out, size_t n)
{
	char a[64], b[64], on[72];
	double more = cheapest->cost.total > 0 ? (fast->cost.total / cheapest->cost.total - 1) * 100 : 0;

	/* TRANSLATORS: the margin, provider and instance, GPUs, finish, total, currency, percent more,
	 * the cheapest's finish */
	snprintf(out, n, _("Within %.0f%% of the cheapest: %s (%g x %s) finishes in %s for %.2f %s, "
			   "%.0f%% more than the cheapest, which takes %s"),
		 margin * 100, offer_name(fast->offer, on, sizeof(on)), fast->gpus,
		 fast->offer->gpu ? fast->offer->gpu->name : "?",
		 units_fmt_duration_short(fast->wall_s, a, sizeof(a)), money(fx, fast->cost.total), code_of(fx),
		 more < 0 ? 0 : more, units_fmt_duration_short(cheapest->wall_s, b, sizeof(b)));
}
