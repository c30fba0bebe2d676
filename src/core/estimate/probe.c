/*
 * probe.c - step times and memory readings of a job's first steps, read
 * from its lines and samples (probe.h, docs/probe.md); probe_figures.c makes
 * them figures and diagnoses. Pure: lines, times and readings come from the
 * command layer.
 *
 * The built-in step formats, each as its project writes it:
 *   hf         Hugging Face Trainer, ProgressCallback.on_log
 *              (src/transformers/trainer_callback.py): training_bar.write(str(logs)),
 *              "{'loss': 1.2345, 'grad_norm': 0.5, 'learning_rate': 2e-05, 'epoch': 0.05}".
 *              The dict carries no step: each line counts one (lines are
 *              logging_steps apart).
 *   tqdm       tqdm's default bar, r_bar = "| {n_fmt}/{total_fmt} [{elapsed}<{remaining},
 *              {rate_fmt}{postfix}]" (tqdm/std.py format_meter): "12/100 [00:05<00:40,
 *              2.31it/s]" or "... 1.52s/it]"; the numerator is the step. A bar at 0
 *              is the start, no step.
 *   torchtune  recipes/lora_finetune_single_device.py and the other recipes: pbar.set_description(f"{curr_epoch + 1}|
 *              {self.global_step}|Loss: {loss_to_log}"): "1|12|Loss: 1.2345"; the
 *              second field is the step.
 *   litgpt     litgpt/pretrain.py and litgpt/finetune/ (lora.py, full.py): fabric.print(f"Epoch {epoch+1} | iter
 *              {iter} step {step} | loss train: {loss:.3f}, val: {val_loss} | iter time:
 *              {iter_time * 1000:.2f} ms{' (step)' ...}"); older lit-gpt: f"iter {iter_num}
 *              step {step_count}: loss {loss:.4f}, iter time: {(t1 - iter_t0) * 1000:.2f}ms".
 *              The iteration is the step and "iter time" its own time (one
 *              micro-batch per GPU: with gradient accumulation a step of the
 *              estimate is accumulation iterations).
 *   llmc       karpathy/llm.c train_gpt2.cu: printf0("step %4d/%d | loss %7.6f (%+.2fz)|
 *              norm %6.4f (%+.2fz)| lr %.2e | %.2f ms | %.1f%% bf16 MFU | %.0f tok/s\n",
 *              step + 1, ...) (older: "| train loss %f |"): the step and its own ms.
 *   deepspeed  deepspeed/runtime/engine.py _report_progress: log_dist(f"step={step},
 *              skipped={self.skipped_steps}, lr={lr}, mom={mom}", ranks=[0]), which
 *              log_dist prefixes with "[Rank 0] ".
 *   step       "step 12", "Step 12", "iteration 12", "iter 12" (also "step: 12",
 *              "step=12"): the word, then an integer, word boundaries around.
 * Lines are read after removing ANSI escapes and keeping the last
 * '\r'-separated refresh (a tqdm bar rewrites itself on one line).
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/estimate/probe.h"
#include "base/i18n.h"

const char *probe_logger_name(enum probe_logger l)
{
	static const char *const names[] = {
		"none", "hf", "tqdm", "torchtune", "litgpt", "llmc", "deepspeed", "step",
		"regex", "progress",
	};

	return (unsigned)l < sizeof(names) / sizeof(names[0]) ? names[l] : "?";
}

const char *probe_diag_name(enum probe_code c)
{
	static const char *const names[] = {
		"warmup", "data_starved", "slowing", "mem_growing", "sliced", "no_steps",
		"no_gpu_memory", "impossible",
	};

	return (unsigned)c < sizeof(names) / sizeof(names[0]) ? names[c] : "?";
}

/*
 * What compiling pat would cost, roughly, in nodes: glibc's regcomp copies
 * an atom for each "+" and for each count of "{m,n}", so that "a++++..."
 * or "((a{99}){99}){99}" grow exponentially (found by fuzz_probe). Each
 * atom is 1, a group the sum of its atoms, a repetition multiplies its
 * atom by the copies made. The optional copies ("a{,n}", "a{m,n}", "a?")
 * cost more: regcomp's epsilon closures grow with the square of the
 * optional nodes a match may skip (a{,3000} takes 71 MB, a{,6000} 278 MB;
 * fuzz_probe ran x{,15015} out of memory), so their sum is capped too.
 * -1 for a back-reference (which regexec would
 * backtrack on), -2 for a repetition of a repetition ("a+*", undefined in
 * POSIX ERE).
 */
static const char *parse_long(const char *s, long *v);

#define PROBE_REGEX_MAX_LEN 256
#define PROBE_REGEX_MAX_COST 20000.0
#define PROBE_REGEX_MAX_OPTIONAL 2000.0   /* optional nodes in all: about 32 MB of closures */

static double regex_cost(const char *pat)
{
	double level[PROBE_REGEX_MAX_LEN + 2] = {0}, last = 0, optional = 0;
	int depth = 0, rep = 0;

	for (const char *c = pat; *c; c++) {
		double copies = 0, opt = 0;
		int was_rep = rep;

		rep = 0;

		switch (*c) {
		case '\\':
			if (isdigit((unsigned char)c[1]))
				return -1;
			if (c[1])
				c++;
			last = 1;
			level[depth] += 1;
			continue;
		case '[':
			c++;
			if (*c == '^')
				c++;
			if (*c == ']')
				c++;
			while (*c && *c != ']')
				c++;
			if (!*c)
				return 0;   /* regcomp reports it */
			last = 1;
			level[depth] += 1;
			continue;
		case '(':
			if (depth >= PROBE_REGEX_MAX_LEN)
				return PROBE_REGEX_MAX_COST * 2;
			level[++depth] = 0;
			last = 0;
			continue;
		case ')':
			if (!depth) {
				/* glibc's ERE takes an unmatched ')' as itself */
				last = 1;
				level[depth] += 1;
				continue;
			}
			last = level[depth--] + 1;
			level[depth] += last;
			continue;
		case '*':
		case '?':
			copies = 1;
			opt = 1;
			break;
		case '+':
			copies = 2;
			break;
		case '{': {
			long m = 0, n = 0;
			/* "{,n}" is glibc's {0,n} (found by fuzz_probe: "x{,30031}") */
			const char *e = c[1] == ',' ? c + 1 : parse_long(c + 1, &m);

			if (e) {
				n = m;
				if (*e == ',') {
					const char *f = parse_long(e + 1, &n);

					e = f ? f : e + 1;
					if (!f)
						n = m;
				}
			}
			if (!e || *e != '}') {
				/* not an interval: glibc's ERE may take the '{' as
				 * itself, an atom the next repetition copies */
				last = 1;
				level[depth] += 1;
				continue;
			}
			copies = (double)(m > n ? m : n) + 1;
			opt = n > m ? (double)(n - m) : 0;
			c = e;
			break;
		}
		default:
			last = 1;
			level[depth] += 1;
			continue;
		}
		/* a repetition (of a repetition: undefined in POSIX, and slow
		 * in glibc) */
		if (was_rep)
			return -2;
		rep = 1;
		optional += last * opt;
		if (optional > PROBE_REGEX_MAX_OPTIONAL)
			return PROBE_REGEX_MAX_COST * 2;
		level[depth] += last * (copies - 1);
		last *= copies;
		if (level[depth] > PROBE_REGEX_MAX_COST)
			return level[depth];
	}
	return level[0];
}

int probe_init(struct probe *p, const char *step_regex, double t0, char *err, size_t errlen)
{
	regex_t *re = NULL;
	int rc;

	*p = (struct probe){0};
	p->last_step = -1;
	p->t0 = isfinite(t0) ? t0 : 0;
	if (errlen)
		err[0] = '\0';
	if (!step_regex)
		return 0;
	if (strlen(step_regex) > PROBE_REGEX_MAX_LEN) {
		snprintf(err, errlen, _("--step-regex: expected at most %d characters"), PROBE_REGEX_MAX_LEN);
		return -1;
	}
	{
		double cost = regex_cost(step_regex);

		if (cost == -2) {
			snprintf(err, errlen, _("--step-regex: a repetition of a repetition (such as \"a+*\") is undefined"));
			return -1;
		}
		if (cost < 0) {
			snprintf(err, errlen, _("--step-regex: back-references (\\1) are not supported"));
			return -1;
		}
		if (cost > PROBE_REGEX_MAX_COST) {
			snprintf(err, errlen, _("--step-regex: the pattern repeats too much (nested + or {n})"));
			return -1;
		}
	}
	re = malloc(sizeof(*re));
	if (!re) {
		snprintf(err, errlen, _("--step-regex: out of memory"));
		return -1;
	}
	rc = regcomp(re, step_regex, REG_EXTENDED);
	if (rc) {
		char msg[160];

		regerror(rc, re, msg, sizeof(msg));
		snprintf(err, errlen, _("--step-regex: %s"), msg);
		free(re);
		return -1;
	}
	if (re->re_nsub < 1) {
		snprintf(err, errlen, _("--step-regex: expected a pattern with one (group) for the step number"));
		regfree(re);
		free(re);
		return -1;
	}
	p->regex = re;
	return 0;
}

void probe_free(struct probe *p)
{
	if (p->regex) {
		regfree(p->regex);
		free(p->regex);
	}
	free(p->step);
	free(p->t);
	free(p->reported_s);
	free(p->st);
	free(p->mem);
	free(p->util);
	free(p->cpu);
	*p = (struct probe){0};
	p->last_step = -1;
}

/* ---- growing arrays: the capacity is the next power of two from 16 ---- */

static int grow(void **a, size_t n, size_t elem)
{
	void *q;

	if (n && (n < 16 || (n & (n - 1))))
		return 0;   /* room left below the next power of two */
	q = realloc(*a, (n ? n * 2 : 16) * elem);
	if (!q)
		return -1;
	*a = q;
	return 0;
}

/* ---- lines ---- */

/* An unsigned integer at s (digits only) into *v; its end, or NULL. */
static const char *parse_long(const char *s, long *v)
{
	long x = 0;

	if (!isdigit((unsigned char)*s))
		return NULL;
	for (; isdigit((unsigned char)*s); s++) {
		if (x > (LONG_MAX - 9) / 10)
			return NULL;
		x = x * 10 + (*s - '0');
	}
	*v = x;
	return s;
}

/* A plain decimal number (digits, one '.', digits) into *v; its end or NULL. */
static const char *parse_num(const char *s, double *v)
{
	const char *b = s;
	char buf[48];
	size_t n;

	while (isdigit((unsigned char)*s))
		s++;
	if (*s == '.')
		for (s++; isdigit((unsigned char)*s); s++)
			;
	n = (size_t)(s - b);
	if (!n || n >= sizeof(buf) || !isdigit((unsigned char)*b))
		return NULL;
	memcpy(buf, b, n);
	buf[n] = '\0';
	*v = strtod(buf, NULL);
	return isfinite(*v) ? s : NULL;
}

static int is_word(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static const char *skip_sp(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/*
 * The line as the terminal would end up showing it: ANSI escapes (CSI
 * "ESC [ ... final", OSC "ESC ] ... BEL|ESC \", two-byte escapes) removed,
 * and of the '\r'- (or '\n'-) separated refreshes the last with a
 * non-blank character. A new string, or NULL (no memory).
 */
static char *clean_line(const char *line)
{
	size_t len = strlen(line), o = 0, i = 0;
	char *s = malloc(len + 1), *start, *best = NULL;

	if (!s)
		return NULL;
	while (i < len) {
		unsigned char c = (unsigned char)line[i];

		if (c != 0x1b) {
			s[o++] = (char)c;
			i++;
			continue;
		}
		i++;
		if (i >= len)
			break;
		if (line[i] == '[') {
			for (i++; i < len && !((unsigned char)line[i] >= 0x40 && (unsigned char)line[i] <= 0x7e); i++)
				;
			if (i < len)
				i++;
		} else if (line[i] == ']') {
			for (i++; i < len; i++) {
				if (line[i] == '\a') {
					i++;
					break;
				}
				if (line[i] == 0x1b && i + 1 < len && line[i + 1] == '\\') {
					i += 2;
					break;
				}
			}
		} else {
			i++;
		}
	}
	s[o] = '\0';
	start = s;
	for (char *q = s;; q++) {
		if (*q == '\r' || *q == '\n' || !*q) {
			int end = !*q;

			*q = '\0';
			for (char *c = start; *c; c++)
				if (!isspace((unsigned char)*c)) {
					best = start;
					break;
				}
			if (end)
				break;
			start = q + 1;
		}
	}
	if (!best) {
		s[0] = '\0';
		return s;
	}
	memmove(s, best, strlen(best) + 1);
	return s;
}

/* HF Trainer: "{'loss': 1.23, ..., 'epoch': 0.05}" (a JSON dict also). */
static int match_hf(const char *s)
{
	size_t n;

	s = skip_sp(s);
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n < 2 || s[0] != '{' || s[n - 1] != '}')
		return 0;
	if (!strstr(s, "'epoch'") && !strstr(s, "\"epoch\""))
		return 0;
	for (const char *k = s; (k = strpbrk(k, "'\"")); k++) {
		char q = *k;
		const char *before = k - 1;

		if (strncmp(k + 1, "loss", 4) || k[5] != q || k[6] != ':')
			continue;
		while (before > s && *before == ' ')
			before--;
		if (*before == '{' || *before == ',')
			return 1;
	}
	return 0;
}

/* tqdm: "N/M [elapsed<remaining, rate]" with the rate in it/s or s/it. */
static long match_tqdm(const char *s)
{
	for (const char *sl = s; (sl = strchr(sl, '/')); sl++) {
		const char *b = sl, *a = sl + 1, *close;
		long n;

		while (b > s && isdigit((unsigned char)b[-1]))
			b--;
		if (b == sl || (b > s && b[-1] != ' ' && b[-1] != '|' && b[-1] != '\t'))
			continue;
		if (*a == '?')
			a++;
		else
			while (isdigit((unsigned char)*a))
				a++;
		if (a == sl + 1)
			continue;
		a = skip_sp(a);
		if (*a != '[')
			continue;
		close = strchr(a, ']');
		if (!close)
			continue;
		{
			size_t len = (size_t)(close - a);
			int rate = 0, lt = 0;

			for (size_t i = 0; i + 1 < len; i++) {
				if (a[i] == '<')
					lt = 1;
				if (a[i] == '/' && a[i + 1] == 's')
					rate = 1;
				if (a[i] == 's' && a[i + 1] == '/')
					rate = 1;
			}
			if (!rate || !lt)
				continue;
		}
		if (!parse_long(b, &n))
			continue;
		return n;
	}
	return -1;
}

/* torchtune: "E|S|Loss: x" (its tqdm description). */
static long match_torchtune(const char *s)
{
	for (const char *k = s; (k = strstr(k, "|Loss:")); k++) {
		const char *b = k, *e;
		long step, epoch;

		while (b > s && isdigit((unsigned char)b[-1]))
			b--;
		if (b == k || b == s || b[-1] != '|')
			continue;
		e = b - 1;
		while (e > s && isdigit((unsigned char)e[-1]))
			e--;
		if (e == b - 1 || (e > s && isalnum((unsigned char)e[-1])))
			continue;
		if (!parse_long(e, &epoch) || !parse_long(b, &step))
			continue;
		return step;
	}
	return -1;
}

/* "word <sep> N" where word is kw (case-insensitive) at a word boundary;
 * seps are the separator characters allowed between (at least one). */
static long match_word_num(const char *s, const char *kw, const char *seps)
{
	size_t kl = strlen(kw);

	for (const char *k = s; *k; k++) {
		const char *a, *end;
		long v;

		if (strncasecmp(k, kw, kl) || (k > s && is_word(k[-1])))
			continue;
		a = k + kl;
		if (!*a || !strchr(seps, *a))
			continue;
		while (*a && strchr(seps, *a))
			a++;
		end = parse_long(a, &v);
		if (!end || is_word(*end) || (*end == '.' && isdigit((unsigned char)end[1])))
			continue;
		return v;
	}
	return -1;
}

/* LitGPT: "iter 12 ... iter time: 345.67 ms" (or "...ms", or " s"). */
static long match_litgpt(const char *s, double *rep)
{
	const char *k = strstr(s, "iter time:");
	double v;
	long it;

	if (!k)
		return -1;
	k = parse_num(skip_sp(k + 10), &v);
	if (!k)
		return -1;
	k = skip_sp(k);
	if (k[0] == 'm' && k[1] == 's' && !is_word(k[2]))
		v /= 1000;
	else if (!(k[0] == 's' && !is_word(k[1])))
		return -1;
	it = match_word_num(s, "iter", " ");
	if (it < 0)
		return -1;
	*rep = v;
	return it;
}

/* llm.c: "step N/M | ... | 345.67 ms | ..." (older "(345.67 ms, ...)"). */
static long match_llmc(const char *s, double *rep)
{
	const char *a = skip_sp(s), *e;
	long n, total;

	if (strncmp(a, "step", 4) || (a[4] != ' '))
		return -1;
	a = skip_sp(a + 4);
	e = parse_long(a, &n);
	if (!e || *e != '/' || !(e = parse_long(e + 1, &total)))
		return -1;
	for (const char *m = e; (m = strstr(m, " ms")); m++) {
		const char *b = m;
		double v;

		if (is_word(m[3]))
			continue;
		while (b > e && (isdigit((unsigned char)b[-1]) || b[-1] == '.'))
			b--;
		if (b == m || b == e || (b[-1] != ' ' && b[-1] != '('))
			continue;
		if (parse_num(b, &v) != m)
			continue;
		*rep = v / 1000;
		return n;
	}
	return -1;
}

/* DeepSpeed: "step=N, skipped=K" (after log_dist's "[Rank 0] "). */
static long match_deepspeed(const char *s)
{
	for (const char *k = s; (k = strstr(k, "step=")); k++) {
		const char *e;
		long v;

		if (k > s && is_word(k[-1]))
			continue;
		e = parse_long(k + 5, &v);
		if (e && !strncmp(e, ", skipped=", 10))
			return v;
	}
	return -1;
}

static long match_plain(const char *s)
{
	static const char *const kws[] = {"iteration", "iter", "step"};
	long best = -1;
	const char *where = NULL;

	/* the first keyword in the line wins */
	for (size_t i = 0; i < sizeof(kws) / sizeof(kws[0]); i++) {
		size_t kl = strlen(kws[i]);

		for (const char *k = s; *k; k++) {
			const char *a, *end;
			long v;

			if (where && k >= where)
				break;
			if (strncasecmp(k, kws[i], kl) || (k > s && is_word(k[-1])))
				continue;
			a = k + kl;
			if (!*a || !strchr(" :=#\t", *a))
				continue;
			while (*a && strchr(" :=#\t", *a))
				a++;
			end = parse_long(a, &v);
			if (!end || is_word(*end) || (*end == '.' && isdigit((unsigned char)end[1])))
				continue;
			best = v;
			where = k;
			break;
		}
	}
	return best;
}

/* The step of s in format f (-1 none), its own step time in *rep (0 none). */
static long match_format(enum probe_logger f, const char *s, double *rep)
{
	*rep = 0;
	switch (f) {
	case PROBE_LOG_HF:
		return match_hf(s) ? 0 : -1;   /* counted by the caller */
	case PROBE_LOG_TQDM:
		return match_tqdm(s);
	case PROBE_LOG_TORCHTUNE:
		return match_torchtune(s);
	case PROBE_LOG_LIGHTNING:
		return match_litgpt(s, rep);
	case PROBE_LOG_LLMC:
		return match_llmc(s, rep);
	case PROBE_LOG_DEEPSPEED:
		return match_deepspeed(s);
	case PROBE_LOG_STEP:
		return match_plain(s);
	default:
		return -1;
	}
}

/* Record step (at time t, own time rep) unless it repeats the last one. */
static long record(struct probe *p, long step, double t, double rep)
{
	double prev = p->nsteps ? p->t[p->nsteps - 1] : p->t0;

	if (step < 0 || step == p->last_step || p->nsteps >= PROBE_MAX_STEPS)
		return -1;
	if (grow((void **)&p->step, p->nsteps, sizeof(*p->step)) ||
	    grow((void **)&p->t, p->nsteps, sizeof(*p->t)) ||
	    grow((void **)&p->reported_s, p->nsteps, sizeof(*p->reported_s)))
		return -1;
	if (!isfinite(t) || t < prev)
		t = prev;   /* arrival times never go back */
	if (!isfinite(rep) || rep < 0)
		rep = 0;
	p->step[p->nsteps] = step;
	p->t[p->nsteps] = t;
	p->reported_s[p->nsteps] = rep;
	p->nsteps++;
	p->last_step = step;   /* a step that goes back (a restart) counts from there */
	return step;
}

long probe_line(struct probe *p, const char *line, double t)
{
	/* tried in this order: a torchtune line holds a tqdm bar, an llm.c or
	 * LitGPT line holds "step N" */
	static const enum probe_logger order[] = {
		PROBE_LOG_TORCHTUNE, PROBE_LOG_LLMC, PROBE_LOG_LIGHTNING, PROBE_LOG_DEEPSPEED,
		PROBE_LOG_TQDM, PROBE_LOG_HF, PROBE_LOG_STEP,
	};
	enum probe_logger f = PROBE_LOG_NONE;
	double rep = 0;
	long step = -1, r;
	char *s;

	if (!line || p->logger == PROBE_LOG_PROGRESS)
		return -1;
	s = clean_line(line);
	if (!s)
		return -1;
	if (p->regex) {
		regmatch_t m[2];

		if (!regexec(p->regex, s, 2, m, 0) && m[1].rm_so >= 0) {
			const char *a = s + m[1].rm_so, *end;
			long v;

			a = skip_sp(a);
			end = parse_long(a, &v);
			if (end && end <= s + m[1].rm_eo)
				step = v, f = PROBE_LOG_REGEX;
		}
	} else if (p->logger != PROBE_LOG_NONE) {
		f = p->logger;
		step = match_format(f, s, &rep);
	} else {
		for (size_t i = 0; i < sizeof(order) / sizeof(order[0]) && step < 0; i++) {
			f = order[i];
			step = match_format(f, s, &rep);
		}
	}
	free(s);
	if (step < 0)
		return -1;
	if (f == PROBE_LOG_TQDM && step == 0) {
		p->logger = f;   /* the bar at 0 is the start, no step yet */
		return -1;
	}
	if (f == PROBE_LOG_HF)
		step = p->last_step < 0 ? 1 : p->last_step + 1;
	r = record(p, step, t, rep);
	if (r >= 0)
		p->logger = f;
	return r;
}

long probe_progress(struct probe *p, const char *content, double t)
{
	const char *s = content;
	long step;

	if (!s)
		return -1;
	while (*s && !isdigit((unsigned char)*s))
		s++;
	if (!parse_long(s, &step))
		return -1;
	if (p->logger != PROBE_LOG_PROGRESS) {
		/* the progress file is what the user named: it replaces steps read
		 * from the output */
		p->nsteps = 0;
		p->last_step = -1;
		p->logger = PROBE_LOG_PROGRESS;
	}
	return record(p, step, t, 0);
}

void probe_sample(struct probe *p, double t, double mem, double util, double cpu)
{
	size_t n = p->nsamples;

	if (n >= PROBE_MAX_SAMPLES || !isfinite(t))
		return;
	if (grow((void **)&p->st, n, sizeof(double)) || grow((void **)&p->mem, n, sizeof(double)) ||
	    grow((void **)&p->util, n, sizeof(double)) || grow((void **)&p->cpu, n, sizeof(double)))
		return;
	p->st[n] = t;
	p->mem[n] = isfinite(mem) && mem >= 0 ? mem : -1;
	p->util[n] = isfinite(util) && util >= 0 ? util : -1;
	p->cpu[n] = isfinite(cpu) && cpu >= 0 ? cpu : -1;
	p->nsamples++;
}
