/*
 * plan_advice.c - the planner's advice (plan_int.h): the order of
 * magnitude, the user class, each supply type's fit, the billing, what
 * would have to change when nothing fits and the checklist, as codes and
 * facts. Formulas: docs/formulas.md "Plan" and "Order of magnitude".
 */
#include "core/plan/plan_int.h"

#include <math.h>
#include <string.h>

#include "core/model/workload.h"

/* ---- checkpoints by the kind of interruption (docs/formulas.md "Plan: checkpoints") ---- */

/* On-demand: the seed's rule (000 §3.3: no more than the loss one tolerates,
 * 15-30 min), the upper end, unless the write would cost more than 5% of it. */
double plan_regular_interval(double write_s)
{
	double t = 30 * 60;

	return 20 * write_s > t ? 20 * write_s : t;
}

void plan_slurm_in(const struct plan_choice *c, struct slurm_gen_in *in)
{
	const struct offer *o = c->offer;

	memset(in, 0, sizeof(*in));
	in->nodes = c->nodes > 1 ? (long)c->nodes : 1;
	in->gpus_per_node = o->gpus >= 1 ? (long)o->gpus : 1;
	in->wall_s = round(c->compute_s);
	in->limit_s = round(o->max_runtime);
	in->ckpt_write_s = round(c->ckpt_write_s);
	/* the offer's CPUs per instance, one task per node (SJTU's a100: 16 a GPU) */
	if (o->vcpus >= 1 && o->gpus >= 1)
		in->cpus_per_task = (long)round(o->vcpus / o->gpus) * in->gpus_per_node;
}

/* The lead time a scheduler's warning signal needs to write a checkpoint:
 * the lead the Slurm script asks for (slurm_gen_plan(): twice the write, at
 * least 2 minutes, half a short job at most), so that checklist and script
 * agree (docs/slurm.md "Lead time"). */
static double plan_signal_lead(const struct plan_choice *c)
{
	struct slurm_gen_in in;
	struct slurm_gen g;
	char err[160];

	plan_slurm_in(c, &in);
	return slurm_gen_plan(&in, &g, err, sizeof(err)) ? SLURM_GEN_LEAD_S : g.lead_s;
}

/* ---- advice (formulas.md "Plan": the five dimensions) ---- */

static void add_check(struct plan_result *r, struct plan_check c)
{
	if (r->nchecklist < PLAN_MAX_CHECKS)
		r->checklist[r->nchecklist++] = c;
}

static void add_change(struct plan_result *r, enum plan_change_code code, double a, double b)
{
	if (r->nchanges < PLAN_MAX_CHANGES)
		r->changes[r->nchanges++] = (struct plan_change){.code = code, .a = a, .b = b};
}

/* The PLAN_FIX_* a job does not have yet (plan.h). */
static unsigned memory_fixes(const struct workload *w)
{
	unsigned f = PLAN_FIX_SEQ;
	bool train = w->task != TASK_INFER;

	if (w->task == TASK_TRAIN && w->zero < 3)
		f |= PLAN_FIX_ZERO;
	if (w->task == TASK_TRAIN)
		f |= PLAN_FIX_LORA;
	if (w->task == TASK_LORA && w->quant_bits >= 16)
		f |= PLAN_FIX_QLORA;
	if (train && !w->grad_checkpointing)
		f |= PLAN_FIX_CKPT;
	if (w->micro_batch > 1)
		f |= PLAN_FIX_MICRO;
	return f;
}

void plan_advise(const struct workload *w, const struct plan_opts *opts, const struct plan_seen *seen,
		 struct plan_result *r)
{
	const struct plan_choice *best = r->n ? &r->ranked[0] : NULL;
	double run_s = best ? best->compute_s : seen->min_compute_s;
	double hours = run_s / 3600;
	char cls;

	r->class_run_s = run_s;
	if (w->task == TASK_INFER) {
		r->user_class = 'C';
		r->class_why = PLAN_CLASS_SERVICE;
	} else if (hours > 8) {
		r->user_class = 'B';
		r->class_why = PLAN_CLASS_LONG_RUN;
	} else {
		r->user_class = 'A';
		r->class_why = PLAN_CLASS_OCCASIONAL;
	}
	cls = r->user_class;

	/* a type fits when something of it was feasible and the job's class suits it */
#define FIT(t, yes, code) \
	(r->supply_fits[t] = r->supply[t].feasible > 0 && (yes), r->supply_advice[t] = (code))
	FIT(SUPPLY_AI_CLOUD, true,
	    cls == 'A' ? PLAN_A_AI_CLOUD_SHORT : cls == 'B' ? PLAN_A_AI_CLOUD_LONG : PLAN_A_AI_CLOUD_SERVICE);
	FIT(SUPPLY_MARKETPLACE, w->resumable || cls == 'A',
	    w->resumable ? PLAN_A_MARKET_RESUMABLE : PLAN_A_MARKET_VOLATILE);
	FIT(SUPPLY_CAMPUS_HPC, cls == 'B' && w->resumable,
	    cls == 'B' ? (w->resumable ? PLAN_A_CAMPUS_CHAINED : PLAN_A_CAMPUS_NEEDS_RESUME) :
	    cls == 'A' ? PLAN_A_CAMPUS_QUEUE : PLAN_A_CAMPUS_NO_SERVICE);
	FIT(SUPPLY_SERVERLESS, cls == 'C' || hours < 1,
	    cls == 'C' ? PLAN_A_SERVERLESS_SPIKY : hours < 1 ? PLAN_A_SERVERLESS_SHORT : PLAN_A_SERVERLESS_LONG);
	FIT(SUPPLY_HYPERSCALER, cls != 'A' || w->data_size > 500e9,
	    w->data_size > 500e9 ? PLAN_A_HYPER_LARGE_DATA : cls == 'A' ? PLAN_A_HYPER_SHORT : PLAN_A_HYPER_STEADY);
#undef FIT

	r->billing_advice = cls == 'A' ? PLAN_A_BILL_PER_SECOND :
			    cls == 'B' ? (w->resumable ? PLAN_A_BILL_SPOT : PLAN_A_BILL_ON_DEMAND) :
			    PLAN_A_BILL_SERVICE;

	/* nothing fits: what would have to change */
	if (!best && !r->considered)
		add_change(r, PLAN_CH_NO_OFFERS, 0, 0);
	if (!best) {
		/* memory only when no card on offer holds the job: when one does,
		 * memory is not what excluded the rest (issue 29) */
		if (r->excluded[EX_MEMORY] + r->excluded[EX_SLICE] && seen->min_mem_needed > 0 &&
		    seen->min_mem_needed > seen->max_mem_offered) {
			add_change(r, PLAN_CH_MEMORY, seen->min_mem_needed, seen->max_mem_offered);
			r->changes[r->nchanges - 1].fixes = memory_fixes(w);
			if (seen->zero3_gpus > 0 && w->task == TASK_TRAIN && w->zero < 3)
				add_change(r, PLAN_CH_ZERO3, seen->zero3_gpus, 0);
		}
		if (r->excluded[EX_DEADLINE] && seen->min_deadline_wall > 0) {
			double dl = opts->deadline_s > 0 ? opts->deadline_s : w->deadline;
			add_change(r, PLAN_CH_DEADLINE, seen->min_deadline_wall, dl);
		}
		if (r->excluded[EX_BUDGET] && seen->min_budget_total > 0)
			add_change(r, PLAN_CH_BUDGET, seen->min_budget_total, opts->budget_usd);
		if (r->excluded[EX_TIME_LIMIT] && !w->resumable)
			add_change(r, PLAN_CH_RESUMABLE, (double)r->excluded[EX_TIME_LIMIT], 0);
		if (r->excluded[EX_ACCESS])
			add_change(r, PLAN_CH_ACCESS, (double)r->excluded[EX_ACCESS], 0);
	}

	if (best) {
		const struct offer *o = best->offer;
		struct plan_check st = {.code = PLAN_C_AUTO_STOP, .seconds = best->wall_s * 1.2};
		if (opts->budget_usd > 0) {
			st.usd = opts->budget_usd;
			st.budget_given = true;
		} else {
			st.multiple = opts->stop_multiple;
			st.usd = best->cost.total * opts->stop_multiple;   /* 0: a free offer, no stop */
		}
		add_check(r, st);
		if (o->max_runtime > 0 && best->mode != PLAN_SPOT && (w->resumable || best->chunks > 1))
			add_check(r, (struct plan_check){.code = PLAN_C_CKPT_TIME_LIMIT,
							 .seconds = o->max_runtime - opts->setup_s,
							 .write_s = best->ckpt_write_s,
							 .lead_s = plan_signal_lead(best),
							 .regular_s = plan_regular_interval(best->ckpt_write_s)});
		else if (best->mode == PLAN_SPOT && best->ckpt_interval_s > 0)
			add_check(r, (struct plan_check){.code = PLAN_C_CKPT_INTERVAL,
							 .seconds = best->ckpt_interval_s,
							 .write_s = best->ckpt_write_s,
							 .mtbf_s = best->cost.interruptions > 0 ?
								   best->cost.busy_wall_s / best->cost.interruptions : 0});
		else if (cls == 'B' || w->resumable)
			add_check(r, (struct plan_check){.code = PLAN_C_CKPT_REGULAR,
							 .seconds = plan_regular_interval(best->ckpt_write_s),
							 .write_s = best->ckpt_write_s});
	}
	if (w->data_size <= 0)
		add_check(r, (struct plan_check){.code = PLAN_C_DATA_UNKNOWN});
	else if (w->data_size < 10e9)
		add_check(r, (struct plan_check){.code = PLAN_C_DATA_RSYNC, .bytes = w->data_size});
	else if (w->data_size < 1e12)
		add_check(r, (struct plan_check){.code = PLAN_C_DATA_OBJECT_STORE, .bytes = w->data_size,
						 .seconds = w->data_size / opts->upload_bw,
						 .bw = opts->upload_bw});
	else
		add_check(r, (struct plan_check){.code = PLAN_C_DATA_MOUNT, .bytes = w->data_size});
	if (r->n > 1) {
		const struct plan_choice *cheap = &r->ranked[0];
		for (size_t i = 1; i < r->n; i++)
			if (plan_hourly(r->ranked[i].offer) < plan_hourly(cheap->offer))
				cheap = &r->ranked[i];
		add_check(r, (struct plan_check){.code = PLAN_C_DEBUG_CHEAPEST, .offer = cheap->offer,
						 .usd = plan_hourly(cheap->offer)});
	}
	add_check(r, (struct plan_check){.code = PLAN_C_RECORD_COSTS});
}

/* The order of magnitude (formulas.md "Order of magnitude"): the seed's
 * 000 §3.5 check that a plan is in range before comparing prices. */
void plan_magnitude(const struct workload *w, const struct plan_opts *opts, const struct plan_seen *seen,
		    const struct estimate *e, struct plan_result *r)
{
	struct plan_magnitude *m = &r->magnitude;
	double finish = 0, limit = 0, total = -1, ratio = 0;

	memset(m, 0, sizeof(*m));
	if (seen->have_cheapest) {
		total = seen->cheapest.cost.total;
		if (seen->fastest_wall > PLAN_ABSURD_RUN_S) {
			m->code = PLAN_M_SLOW_ALL;
			finish = seen->fastest_wall;
			limit = PLAN_ABSURD_RUN_S;
		} else if (opts->budget_usd > 0 && total > PLAN_BUDGET_FACTOR * opts->budget_usd) {
			m->code = PLAN_M_OVER_BUDGET;
		} else if (seen->cheapest.wall_s > PLAN_LONG_RUN_S) {
			m->code = PLAN_M_SLOW_CHEAPEST;
			finish = seen->cheapest.wall_s;
			limit = PLAN_LONG_RUN_S;
		}
	} else if (r->excluded[EX_BUDGET] && seen->min_budget_total > PLAN_BUDGET_FACTOR * opts->budget_usd) {
		m->code = PLAN_M_OVER_BUDGET;
		total = seen->min_budget_total;
	} else if (r->excluded[EX_DEADLINE] && seen->min_deadline_wall > PLAN_ABSURD_RUN_S) {
		m->code = PLAN_M_SLOW_ALL;
		finish = seen->min_deadline_wall;
		limit = PLAN_ABSURD_RUN_S;
	} else if (seen->min_compute_s > PLAN_ABSURD_RUN_S) {
		m->code = PLAN_M_SLOW_ALL;   /* timed on the fastest GPU seen, or the reference GPU */
		finish = seen->min_compute_s;
		limit = PLAN_ABSURD_RUN_S;
	}
	if (m->code == PLAN_M_NONE)
		return;
	m->finish_s = finish;
	m->limit_s = limit;
	m->total_usd = total > 0 ? total : 0;
	m->budget_usd = opts->budget_usd;
	m->work = e->work > 0 ? e->work : (w->tokens > 0 ? w->tokens : w->samples);
	m->work_is_samples = e->work_is_samples;
	m->from_samples = !workload_is_set(w, "tokens") && workload_is_set(w, "samples") && !e->work_is_samples;
	m->samples = w->samples;
	m->seq = (double)w->seq;
	m->epochs = w->epochs;
	/* compute scales with the work; set-up and upload do not, so this is
	 * a bound from above on what fits */
	if (m->code == PLAN_M_OVER_BUDGET)
		ratio = total > 0 ? opts->budget_usd / total : 0;
	else
		ratio = finish > 0 ? limit / finish : 0;
	m->work_in_range = m->work * ratio;
}
