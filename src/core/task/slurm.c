/*
 * slurm.c - sbatch scripts as facts (slurm.h): the options table, the script
 * parser, the lint rules and the generator's decisions. Pure. Rules and
 * their sources: docs/slurm.md.
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text/csv.h"
#include "core/text/names.h"
#include "core/task/slurm.h"
#include "base/i18n.h"

/* ---- the options table ---- */

static int opt_row(const struct csv *c, const struct csv_row *r, const char *fname, void *record,
		   char *err, size_t errlen)
{
	static const char *const args[] = {"none", "required", "optional"};
	static const char *const kinds[] = {"text", "flag", "time", "count", "range", "mem", "signal",
					    "open-mode", "gres", "gpus", "path", "array"};
	struct slurm_opt *o = record;
	char shortname[8], arg[16], kind[16], src[512];
	size_t k;

	if (csv_field_str(c, r, "option", true, fname, o->name, sizeof(o->name), err, errlen) ||
	    csv_field_str(c, r, "short", false, fname, shortname, sizeof(shortname), err, errlen) ||
	    csv_field_str(c, r, "arg", true, fname, arg, sizeof(arg), err, errlen) ||
	    csv_field_str(c, r, "kind", true, fname, kind, sizeof(kind), err, errlen) ||
	    csv_field_str(c, r, "source", true, fname, src, sizeof(src), err, errlen))
		return -1;
	for (const char *p = o->name; *p; p++)
		if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '-')) {
			snprintf(err, errlen, _("%s:%zu: option: expected lower-case letters, digits and '-', got '%s'"),
				 fname, r->line, o->name);
			return -1;
		}
	if (strlen(shortname) > 1 || (shortname[0] && !isalpha((unsigned char)shortname[0]))) {
		snprintf(err, errlen, _("%s:%zu: short: expected one letter or nothing, got '%s'"), fname, r->line,
			 shortname);
		return -1;
	}
	o->shortname = shortname[0];
	for (k = 0; k < 3 && strcmp(arg, args[k]); k++)
		;
	if (k == 3) {
		snprintf(err, errlen, _("%s:%zu: arg: expected none, required or optional, got '%s'"), fname, r->line, arg);
		return -1;
	}
	o->arg = (enum slurm_arg)k;
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]) && strcmp(kind, kinds[k]); k++)
		;
	if (k == sizeof(kinds) / sizeof(kinds[0])) {
		snprintf(err, errlen, _("%s:%zu: kind: expected text, flag, time, count, range, mem, signal, "
			 "open-mode, gres, gpus, path or array, got '%s'"), fname, r->line, kind);
		return -1;
	}
	o->kind = (enum slurm_kind)k;
	return 0;
}

static int opt_cmp(const void *a, const void *b)
{
	return strcmp(((const struct slurm_opt *)a)->name, ((const struct slurm_opt *)b)->name);
}

int slurm_optdb_load(const char *buf, size_t len, const char *fname, struct slurm_optdb *db,
		     char *err, size_t errlen)
{
	void *v = NULL;
	size_t n = 0;

	db->opts = NULL;
	db->n = 0;
	if (csv_load_table(buf, len, fname, sizeof(struct slurm_opt), opt_row, &v, &n, err, errlen))
		return -1;
	qsort(v, n, sizeof(struct slurm_opt), opt_cmp);
	for (size_t i = 1; i < n; i++)
		if (!strcmp(((struct slurm_opt *)v)[i].name, ((struct slurm_opt *)v)[i - 1].name)) {
			snprintf(err, errlen, _("%s: option: '%s' is listed twice"), fname, ((struct slurm_opt *)v)[i].name);
			free(v);
			return -1;
		}
	db->opts = v;
	db->n = n;
	return 0;
}

void slurm_optdb_free(struct slurm_optdb *db)
{
	free(db->opts);
	db->opts = NULL;
	db->n = 0;
}

const struct slurm_opt *slurm_opt_find(const struct slurm_optdb *db, const char *name)
{
	struct slurm_opt key = {0};

	if (strlen(name) >= sizeof(key.name) || !db->n)
		return NULL;
	memcpy(key.name, name, strlen(name));
	return bsearch(&key, db->opts, db->n, sizeof(key), opt_cmp);
}

const struct slurm_opt *slurm_opt_short(const struct slurm_optdb *db, char c)
{
	for (size_t i = 0; i < db->n; i++)
		if (c && db->opts[i].shortname == c)
			return &db->opts[i];
	return NULL;
}

/* ---- durations ---- */

/* Up to 4 unsigned numbers separated by ':' from p; -1 when not that. */
static int colon_fields(const char *p, const char *end, long v[4])
{
	int n = 0;

	while (p < end) {
		long x = 0;
		int digits = 0;
		while (p < end && isdigit((unsigned char)*p)) {
			if (x > 100000000L)
				return -1;
			x = x * 10 + (*p++ - '0');
			digits++;
		}
		if (!digits || n == 4)
			return -1;
		v[n++] = x;
		if (p < end) {
			if (*p != ':')
				return -1;
			if (++p == end)
				return -1;
		}
	}
	return n;
}

int slurm_parse_time(const char *v, double *s)
{
	const char *dash = strchr(v, '-'), *end = v + strlen(v);
	long f[4], days = 0;
	int n;

	if (!strcasecmp(v, "UNLIMITED") || !strcasecmp(v, "INFINITE")) {
		*s = -1;
		return 0;
	}
	if (dash) {
		long d[4];
		if (colon_fields(v, dash, d) != 1)
			return -1;
		days = d[0];
		if ((n = colon_fields(dash + 1, end, f)) < 1 || n > 3)
			return -1;
		/* days-hours, days-hours:minutes, days-hours:minutes:seconds */
		*s = days * 86400.0 + f[0] * 3600.0 + (n > 1 ? f[1] * 60.0 : 0) + (n > 2 ? (double)f[2] : 0);
	} else {
		if ((n = colon_fields(v, end, f)) < 1 || n > 3)
			return -1;
		/* minutes, minutes:seconds, hours:minutes:seconds */
		if (n == 1)
			*s = f[0] * 60.0;
		else if (n == 2)
			*s = f[0] * 60.0 + (double)f[1];
		else
			*s = f[0] * 3600.0 + f[1] * 60.0 + (double)f[2];
	}
	/* sbatch(1) --time: "A time limit of zero requests that no time limit
	 * be imposed", in the days forms too (0-00:00) */
	if (*s == 0)
		*s = -1;
	return 0;
}

void slurm_format_time(double s, char *buf, size_t n)
{
	double m = ceil(s / 60 - 1e-9);
	long long mins;

	/* no limit (slurm_parse_time()'s -1), not a duration, or beyond any
	 * day count Slurm prints: as sbatch writes no limit */
	if (isnan(s) || s < 0 || m >= 1e15) {
		snprintf(buf, n, "UNLIMITED");
		return;
	}
	mins = m > 0 ? (long long)m : 1;
	long long d = mins / 1440, h = mins % 1440 / 60, mm = mins % 60;

	if (d)
		snprintf(buf, n, "%lld-%02lld:%02lld:00", d, h, mm);
	else
		snprintf(buf, n, "%02lld:%02lld:00", h, mm);
}

/* ---- the parser ---- */

static void copy_n(char *dst, size_t cap, const char *src, size_t len)
{
	if (len >= cap)
		len = cap - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

/* isspace() in the C locale, which sbatch's reader calls. */
static bool sb_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

int slurm_sbatch_arg(const char *p, size_t len, size_t *pos, char *out, size_t cap, size_t *outlen)
{
	size_t i = *pos, w = 0;
	bool esc = false, any = false;
	char q = 0;

	if (cap)
		out[0] = '\0';
	*outlen = 0;
	/* the line is a C string to sbatch: it ends at a NUL byte */
	len = i + strnlen(p + i, len - i);
	while (i < len && sb_space(p[i]))
		i++;
	/* a "hetjob"/"packjob" word is blanked, which ends the line's reading */
	if ((len - i >= 6 && !strncasecmp(p + i, "hetjob", 6) && (len - i == 6 || sb_space(p[i + 6]))) ||
	    (len - i >= 7 && !strncasecmp(p + i, "packjob", 7) && (len - i == 7 || sb_space(p[i + 7])))) {
		*pos = len;
		return SLURM_SBARG_END;
	}
	if (i < len && p[i] == ':') {
		*pos = i;
		return SLURM_SBARG_COLON;
	}
	while (i < len && (q || !sb_space(p[i]))) {
		char c = p[i];
		if (esc) {
			esc = false;
		} else if (c == '\\') {
			/* Slurm 24.05: "\ " is a space of the word (before it, the
			 * escape is dropped and the space ends the word) */
			if (++i < len && p[i] == ' ') {
				c = ' ';
			} else {
				esc = true;
				continue;
			}
		} else if (q) {
			if (c == q) {
				q = 0;
				i++;
				continue;
			}
		} else if (c == '"' || c == '\'') {
			q = c;
			i++;
			continue;
		} else if (c == '#') {
			break;   /* an unescaped '#': the rest of the line is a comment */
		}
		if (w + 1 < cap)
			out[w] = c;
		w++;
		any = true;
		i++;
	}
	*pos = i;
	if (q)
		return SLURM_SBARG_UNMATCHED;
	if (cap)
		out[w < cap ? w : cap - 1] = '\0';
	*outlen = w;
	/* sbatch's reader returns no argument for a word that copied nothing
	 * ('' alone, or a '#'), and the line ends there */
	return any ? SLURM_SBARG_WORD : SLURM_SBARG_END;
}

/* Split line (len bytes) into words with slurm_sbatch_arg(). Returns the
 * count; *status: 0, or the SLURM_SBARG_* that made sbatch stop. */
#define MAX_WORDS 32
static size_t split_words(const char *p, size_t len, char words[MAX_WORDS][256], int *status)
{
	size_t n = 0, pos = 0, wl;
	int rc;

	*status = 0;
	while (n < MAX_WORDS && (rc = slurm_sbatch_arg(p, len, &pos, words[n], 256, &wl)) == SLURM_SBARG_WORD)
		n++;
	if (n < MAX_WORDS && rc < 0)
		*status = rc;
	return n;
}

/* Whether a near-directive's options ask for GPUs. */
static bool asks_gpus(const char *rest)
{
	return strstr(rest, "--gres=gpu") || strstr(rest, "--gres gpu") || strstr(rest, "--gpus") ||
	       strstr(rest, "-G ");
}

/* The directive words of one #SBATCH line into s. */
static void add_directives(struct slurm_script *s, size_t line, const char *p, size_t len, bool non_ascii)
{
	char words[MAX_WORDS][256];
	int status;
	size_t n = split_words(p, len, words, &status);

	if (status && !s->sbatch_stop_line && !s->first_command) {
		s->sbatch_stop_line = line;
		s->sbatch_stop = status;
	}

	for (size_t i = 0; i < n && s->ndir < SLURM_MAX_DIRECTIVES; i++) {
		struct slurm_directive *d = &s->dir[s->ndir++];
		const char *w = words[i], *eq;

		memset(d, 0, sizeof(*d));
		d->line = line;
		d->after_command = s->first_command > 0;
		d->non_ascii = non_ascii;
		if (w[0] == '-' && w[1] == '-') {
			eq = strchr(w, '=');
			copy_n(d->word, sizeof(d->word), w, eq ? (size_t)(eq - w) : strlen(w));
			if (eq) {
				copy_n(d->value, sizeof(d->value), eq + 1, strlen(eq + 1));
				d->has_value = true;
			} else if (i + 1 < n && words[i + 1][0] != '-') {
				/* "--time 10": the next word is the value (getopt's way) */
				copy_n(d->value, sizeof(d->value), words[i + 1], strlen(words[i + 1]));
				d->has_value = true;
				i++;
			}
			copy_n(d->name, sizeof(d->name), d->word + 2, strlen(d->word + 2));
		} else if (w[0] == '-' && w[1]) {
			copy_n(d->word, sizeof(d->word), w, 2);
			if (w[2]) {
				copy_n(d->value, sizeof(d->value), w[2] == '=' ? w + 3 : w + 2,
				       strlen(w[2] == '=' ? w + 3 : w + 2));
				d->has_value = true;
			} else if (i + 1 < n && words[i + 1][0] != '-') {
				copy_n(d->value, sizeof(d->value), words[i + 1], strlen(words[i + 1]));
				d->has_value = true;
				i++;
			}
			d->name[0] = '\0';   /* resolved against the table by lint */
		} else {
			copy_n(d->word, sizeof(d->word), w, strlen(w));
		}
	}
}

/* The program a command line runs, among those that want a GPU; "" none. */
static void gpu_program(const char *p, size_t len, char *out, size_t n)
{
	static const char *const progs[] = {"python", "python3", "torchrun", "accelerate", "deepspeed"};
	char words[MAX_WORDS][256];
	int status;
	size_t nw = split_words(p, len, words, &status);

	out[0] = '\0';
	for (size_t i = 0; i < nw; i++) {
		const char *b = strrchr(words[i], '/');
		b = b ? b + 1 : words[i];
		for (size_t k = 0; k < sizeof(progs) / sizeof(progs[0]); k++) {
			size_t pl = strlen(progs[k]);
			/* python3.11 counts as python3 */
			if (!strncmp(b, progs[k], pl) && (!b[pl] || (b[pl] == '.' && isdigit((unsigned char)b[pl + 1])))) {
				copy_n(out, n, b, strlen(b));
				return;
			}
		}
	}
}

static bool has_ci(const char *p, size_t len, const char *needle)
{
	size_t nl = strlen(needle);

	for (size_t i = 0; i + nl <= len; i++)
		if (!strncasecmp(p + i, needle, nl))
			return true;
	return false;
}

int slurm_script_parse(const char *buf, size_t len, const char *fname, const struct slurm_optdb *db,
		       struct slurm_script *s, char *err, size_t errlen)
{
	size_t pos = 0, line = 0;

	memset(s, 0, sizeof(*s));
	if (!len) {
		snprintf(err, errlen, _("%s:1: script: expected an sbatch script, got an empty file"), fname);
		return -1;
	}
	while (pos < len) {
		const char *p = buf + pos, *nl = memchr(p, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - p) : len - pos, k = 0;
		bool non_ascii = false;

		pos += n + (nl ? 1 : 0);
		line++;
		if (n && p[n - 1] == '\r') {
			if (!s->crlf_line)
				s->crlf_line = line;
			n--;
		}
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)p[i] >= 0x80)
				non_ascii = true;
		if (n >= 2 && p[0] == '#' && p[1] == '!') {
			if (!s->shebang_line)
				s->shebang_line = line;
			continue;
		}
		if (n >= 7 && !memcmp(p, "#SBATCH", 7) && (n == 7 || p[7] == ' ' || p[7] == '\t' || p[7] == '-')) {
			add_directives(s, line, p + 7, n - 7, non_ascii);
			continue;
		}
		/* sbatch: a line that is blank or whose first non-blank is '#' is no command */
		while (k < n && sb_space(p[k]))
			k++;
		if (k == n)
			continue;
		if (p[k] == '#') {
			/* "## SBATCH", "# SBATCH", "#sbatch", "#SBATCH" indented: comments to sbatch */
			size_t j = k;
			while (j < n && (p[j] == '#' || p[j] == ' ' || p[j] == '\t'))
				j++;
			if (j + 6 <= n && !strncasecmp(p + j, "sbatch", 6) &&
			    (j + 6 == n || p[j + 6] == ' ' || p[j + 6] == '\t') && s->nnear < SLURM_MAX_NEAR) {
				struct slurm_near *nr = &s->near[s->nnear++];
				size_t rs = j + 6;
				nr->line = line;
				copy_n(nr->text, sizeof(nr->text), p + k, j + 6 - k);
				while (rs < n && (p[rs] == ' ' || p[rs] == '\t'))
					rs++;
				copy_n(nr->rest, sizeof(nr->rest), p + rs, n - rs);
				nr->gpu = asks_gpus(nr->rest);
			}
			continue;
		}
		/* a command */
		if (!s->first_command)
			s->first_command = line;
		if (!s->gpu_cmd_line) {
			gpu_program(p + k, n - k, s->gpu_cmd, sizeof(s->gpu_cmd));
			if (s->gpu_cmd[0])
				s->gpu_cmd_line = line;
		}
		if (has_ci(p + k, n - k, "conda.sh") || has_ci(p + k, n - k, "conda shell.") ||
		    has_ci(p + k, n - k, "mamba shell"))
			s->conda_hook = !s->conda_line || s->conda_hook;
		if (!s->conda_line && (has_ci(p + k, n - k, "conda activate") || has_ci(p + k, n - k, "mamba activate")))
			s->conda_line = line;
		if (has_ci(p + k, n - k, "--ckpt-dir") || has_ci(p + k, n - k, "GPURENT_RESUME") ||
		    has_ci(p + k, n - k, "checkpoint") || has_ci(p + k, n - k, "resume"))
			s->checkpoints = true;
	}
	s->lines = line;
	/* the words against the table: a short alias gets its long name, an unknown word none */
	for (size_t i = 0; db && i < s->ndir; i++) {
		struct slurm_directive *d = &s->dir[i];
		const struct slurm_opt *o = NULL;
		if (d->word[0] == '-' && d->word[1] == '-')
			o = slurm_opt_find(db, d->word + 2);
		else if (d->word[0] == '-' && d->word[1])
			o = slurm_opt_short(db, d->word[1]);
		if (o)
			snprintf(d->name, sizeof(d->name), "%s", o->name);
		else
			d->name[0] = '\0';
	}
	return 0;
}

const struct slurm_directive *slurm_script_get(const struct slurm_script *s, const char *name)
{
	const struct slurm_directive *found = NULL;

	for (size_t i = 0; i < s->ndir; i++)
		if (!s->dir[i].after_command && !strcmp(s->dir[i].name, name))
			found = &s->dir[i];
	return found;
}

static bool gres_has_gpu(const char *v)
{
	const char *p = v;

	while (p && *p) {
		if (!strncmp(p, "gpu", 3) && (!p[3] || p[3] == ':' || p[3] == ','))
			return true;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return false;
}

bool slurm_script_gpus(const struct slurm_script *s)
{
	for (size_t i = 0; i < s->ndir; i++) {
		const struct slurm_directive *d = &s->dir[i];
		if (d->after_command)
			continue;
		if ((!strcmp(d->name, "gres") && gres_has_gpu(d->value)) || !strcmp(d->name, "gpus") ||
		    !strncmp(d->name, "gpus-per-", 9))
			return true;
	}
	return false;
}

/* ---- value checks ---- */

static bool all_digits(const char *p, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)p[i]))
			return false;
	return true;
}

static bool count_ok(const char *v)
{
	return all_digits(v, strlen(v)) && strlen(v) < 9 && atol(v) > 0;
}

static bool mem_ok(const char *v)
{
	size_t n = strlen(v);

	if (n && strchr("KMGTkmgt", v[n - 1]))
		n--;
	return all_digits(v, n) && n < 12;
}

static bool range_ok(const char *v)
{
	const char *dash = strchr(v, '-');

	if (!dash)
		return count_ok(v);
	return all_digits(v, (size_t)(dash - v)) && all_digits(dash + 1, strlen(dash + 1));
}

static bool signal_ok(const char *v)
{
	static const char *const sigs[] = {"HUP", "INT", "QUIT", "ABRT", "KILL", "ALRM", "TERM",
					   "USR1", "USR2", "URG", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "XCPU"};
	const char *at = strchr(v, '@'), *p = v;
	char name[16];
	size_t n;

	if ((p[0] == 'B' || p[0] == 'R') && p[1] == ':')
		p += 2;
	else if (p[0] == 'R' && p[1] == 'B' && p[2] == ':')
		p += 3;
	n = at ? (size_t)(at - p) : strlen(p);
	if (!n || n >= sizeof(name))
		return false;
	memcpy(name, p, n);
	name[n] = '\0';
	if (at && !(all_digits(at + 1, strlen(at + 1)) && atol(at + 1) <= 65535))
		return false;
	if (all_digits(name, n))
		return atol(name) > 0 && atol(name) < 65;
	if (!strncasecmp(name, "SIG", 3))
		memmove(name, name + 3, strlen(name + 3) + 1);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!strcasecmp(name, sigs[i]))
			return true;
	return false;
}

/* [type:]count for --gpus*, count >= 1. */
static bool gpus_ok(const char *v)
{
	const char *c = strrchr(v, ':');

	return count_ok(c ? c + 1 : v) && (!c || c > v);
}

/* name[[:type]:count][,...] */
static bool gres_ok(const char *v)
{
	const char *p = v;

	if (!*v)
		return false;
	while (*p) {
		const char *e = strchr(p, ','), *end = e ? e : p + strlen(p), *c1 = memchr(p, ':', (size_t)(end - p));
		if (end == p || c1 == p)
			return false;
		if (c1) {
			const char *c2 = memchr(c1 + 1, ':', (size_t)(end - c1 - 1)), *cnt = c2 ? c2 + 1 : c1 + 1;
			/* gpu:2, gpu:a100:2, gpu:a100 (count 1) */
			if (c2 && !all_digits(cnt, (size_t)(end - cnt)))
				return false;
			if (!c2 && end == c1 + 1)
				return false;
		}
		if (!e)
			break;
		p = e + 1;
	}
	return true;
}

static bool array_ok(const char *v)
{
	if (!*v)
		return false;
	for (const char *p = v; *p; p++)
		if (!isdigit((unsigned char)*p) && !strchr(",-:%", *p))
			return false;
	return isdigit((unsigned char)v[0]);
}

static bool value_ok(enum slurm_kind k, const char *v)
{
	double t;

	switch (k) {
	case SLURM_K_TIME: return !slurm_parse_time(v, &t);
	case SLURM_K_COUNT: return count_ok(v);
	case SLURM_K_RANGE: return range_ok(v);
	case SLURM_K_MEM: return mem_ok(v);
	case SLURM_K_SIGNAL: return signal_ok(v);
	case SLURM_K_OPEN_MODE: return !strcmp(v, "append") || !strcmp(v, "truncate");
	case SLURM_K_GRES: return gres_ok(v);
	case SLURM_K_GPUS: return gpus_ok(v);
	case SLURM_K_PATH: return *v != '\0';
	case SLURM_K_ARRAY: return array_ok(v);
	default: return true;
	}
}

void slurm_output_dir(const char *pattern, char *buf, size_t n)
{
	const char *slash = strrchr(pattern, '/');

	if (!slash) {
		buf[0] = '\0';
		return;
	}
	if (slash == pattern) {
		copy_n(buf, n, "/", 1);
		return;
	}
	copy_n(buf, n, pattern, (size_t)(slash - pattern));
}

/* ---- lint ---- */

struct sink {
	struct slurm_finding *out;
	size_t max, n;
	struct slurm_finding spare;   /* where findings past max are written, then dropped */
};

static struct slurm_finding *add(struct sink *k, enum slurm_finding_code code, size_t line)
{
	struct slurm_finding *f = k->n < k->max ? &k->out[k->n] : &k->spare;

	k->n++;
	memset(f, 0, sizeof(*f));
	f->code = code;
	f->line = line;
	return f;
}

/* The closest documented option to a word (names.h's rule), "" when none is
 * close; those sharing its first letter are offered first, so win a tie. */
static void suggest(const struct slurm_optdb *db, const char *word, char *out, size_t n)
{
	struct names_suggest sg;

	names_suggest_init(&sg, word);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < db->n; i++)
			if ((db->opts[i].name[0] == word[0]) == (pass == 0))
				names_suggest_add(&sg, db->opts[i].name);
	out[0] = '\0';
	if (sg.best[0])
		snprintf(out, n, "--%.40s", sg.best);
}

static int finding_cmp(const void *a, const void *b)
{
	const struct slurm_finding *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return (int)x->code - (int)y->code;
}

size_t slurm_lint(const struct slurm_script *s, const struct slurm_optdb *db,
		  const struct slurm_lint_env *env, struct slurm_finding *out, size_t max)
{
	struct sink k = {.out = out, .max = max};
	const struct slurm_directive *mem = NULL, *mem_cpu = NULL, *gres_gpu = NULL, *gpus = NULL;
	const struct slurm_directive *time = NULL, *array = NULL, *signal = NULL, *requeue = NULL;
	struct slurm_finding *f;
	size_t non_ascii_line = 0;

	if (s->crlf_line)
		add(&k, SLF_CRLF, s->crlf_line);
	if (s->sbatch_stop_line) {
		f = add(&k, SLF_SBATCH_STOP, s->sbatch_stop_line);
		f->num = s->sbatch_stop;
	}
	if (s->shebang_line != 1) {
		if (s->shebang_line)
			add(&k, SLF_SHEBANG_MISPLACED, s->shebang_line);
		else
			add(&k, SLF_NO_SHEBANG, 1);
	}
	for (size_t i = 0; i < s->nnear; i++) {
		f = add(&k, SLF_NEAR_DIRECTIVE, s->near[i].line);
		snprintf(f->arg, sizeof(f->arg), "%s", s->near[i].text);
		snprintf(f->value, sizeof(f->value), "%s", s->near[i].rest);
		f->num = s->near[i].gpu;
	}
	for (size_t i = 0; i < s->ndir; i++) {
		const struct slurm_directive *d = &s->dir[i];
		const struct slurm_opt *o = d->name[0] ? slurm_opt_find(db, d->name) : NULL;

		if (d->non_ascii && d->line != non_ascii_line) {
			add(&k, SLF_NON_ASCII, d->line);
			non_ascii_line = d->line;
		}
		if (!o) {
			f = add(&k, SLF_UNKNOWN_OPTION, d->line);
			snprintf(f->arg, sizeof(f->arg), "%s", d->word);
			if (d->word[0] == '-' && d->word[1] == '-')
				suggest(db, d->word + 2, f->suggest, sizeof(f->suggest));
			continue;
		}
		if (d->after_command) {
			f = add(&k, SLF_AFTER_COMMAND, d->line);
			snprintf(f->arg, sizeof(f->arg), "--%s", o->name);
			f->num = (double)s->first_command;
			continue;
		}
		if (o->arg == SLURM_ARG_REQUIRED && !d->has_value) {
			f = add(&k, SLF_MISSING_VALUE, d->line);
			snprintf(f->arg, sizeof(f->arg), "--%s", o->name);
			continue;
		}
		if (o->arg == SLURM_ARG_NONE && d->has_value && strchr(d->word, '-') && d->word[1] == '-' &&
		    !strchr(d->value, ' ')) {
			/* "--requeue=yes": sbatch refuses it */
			f = add(&k, SLF_UNEXPECTED_VALUE, d->line);
			snprintf(f->arg, sizeof(f->arg), "--%s", o->name);
			snprintf(f->value, sizeof(f->value), "%s", d->value);
			continue;
		}
		if (d->has_value && o->arg != SLURM_ARG_NONE && !value_ok(o->kind, d->value)) {
			f = add(&k, SLF_BAD_VALUE, d->line);
			snprintf(f->arg, sizeof(f->arg), "--%s", o->name);
			snprintf(f->value, sizeof(f->value), "%s", d->value);
			f->kind = o->kind;
			continue;
		}
		if (!strcmp(o->name, "mem"))
			mem = d;
		else if (!strcmp(o->name, "mem-per-cpu"))
			mem_cpu = d;
		else if (!strcmp(o->name, "gres") && gres_has_gpu(d->value))
			gres_gpu = d;
		else if (!strcmp(o->name, "gpus") || !strncmp(o->name, "gpus-per-", 9))
			gpus = d;
		else if (!strcmp(o->name, "time"))
			time = d;
		else if (!strcmp(o->name, "array"))
			array = d;
		else if (!strcmp(o->name, "signal"))
			signal = d;
		else if (!strcmp(o->name, "requeue"))
			requeue = d;
	}
	/* the pairs sbatch refuses or that do not mean what they say */
	if (mem && mem_cpu) {
		const struct slurm_directive *second = mem->line > mem_cpu->line ? mem : mem_cpu;
		f = add(&k, SLF_MEM_BOTH, second->line);
		snprintf(f->arg, sizeof(f->arg), "--%s", second->name);
		snprintf(f->value, sizeof(f->value), "--%s", second == mem ? mem_cpu->name : mem->name);
	}
	if (gres_gpu && gpus) {
		const struct slurm_directive *second = gres_gpu->line > gpus->line ? gres_gpu : gpus;
		f = add(&k, SLF_GRES_AND_GPUS, second->line);
		snprintf(f->arg, sizeof(f->arg), "--%s", second->name);
		snprintf(f->value, sizeof(f->value), "--%s", second == gpus ? gres_gpu->name : gpus->name);
	}
	if (s->gpu_cmd_line && !gres_gpu && !gpus) {
		f = add(&k, SLF_NO_GPU, s->gpu_cmd_line);
		snprintf(f->arg, sizeof(f->arg), "%s", s->gpu_cmd);
	}
	if (time && env && env->max_time_s > 0) {
		double t = 0;
		slurm_parse_time(time->value, &t);
		if (t < 0 || t > env->max_time_s) {
			f = add(&k, SLF_TIME_OVER_LIMIT, time->line);
			f->num = t;
			f->num2 = env->max_time_s;
			if (!signal && !requeue && !s->checkpoints) {
				f = add(&k, SLF_NO_RESUME, time->line);
				f->num = t;
				f->num2 = env->max_time_s;
			}
		}
	}
	for (size_t i = 0; i < s->ndir; i++) {
		const struct slurm_directive *d = &s->dir[i];
		char dir[256];
		if (d->after_command || (strcmp(d->name, "output") && strcmp(d->name, "error")) || !d->has_value)
			continue;
		slurm_output_dir(d->value, dir, sizeof(dir));
		if (dir[0] && !strchr(dir, '%') && env && env->dir_exists && !env->dir_exists(dir, env->ctx)) {
			f = add(&k, SLF_OUTPUT_DIR, d->line);
			snprintf(f->arg, sizeof(f->arg), "--%s", d->name);
			snprintf(f->value, sizeof(f->value), "%s", dir);
		}
		/* each task its own file: %a (the index) or %j (each task's own job
		 * id) does it; /dev/null is one file on purpose */
		if (array && !strstr(d->value, "%a") && !strstr(d->value, "%j") && strcmp(d->value, "/dev/null")) {
			f = add(&k, SLF_ARRAY_OUTPUT, d->line);
			snprintf(f->arg, sizeof(f->arg), "--%s", d->name);
			snprintf(f->value, sizeof(f->value), "%s", d->value);
		}
	}
	if (s->conda_line && !s->conda_hook)
		add(&k, SLF_CONDA_NO_HOOK, s->conda_line);
	qsort(out, k.n < max ? k.n : max, sizeof(*out), finding_cmp);
	return k.n;
}

/* ---- the generator's facts ---- */

int slurm_gen_plan(const struct slurm_gen_in *in, struct slurm_gen *out, char *err, size_t errlen)
{
	long gpn = in->gpus_per_node > 0 ? in->gpus_per_node : 1;
	double lead, want, usable;

	memset(out, 0, sizeof(*out));
	/* docs/slurm.md "Lead time": twice one checkpoint write, at least 2 minutes */
	lead = in->ckpt_write_s > 0 ? 2 * in->ckpt_write_s : SLURM_GEN_LEAD_S;
	if (lead < SLURM_GEN_LEAD_S)
		lead = SLURM_GEN_LEAD_S;
	lead = ceil(lead / 10) * 10;
	if (lead > 65535)
		lead = 65535;   /* sbatch(1) --signal: sig_time at most 65535 s */
	if (in->time_s > 0) {
		want = in->time_s;
	} else if (in->wall_s > 0) {
		/* docs/slurm.md "Time": the estimate, plus 20 % (at least 10 minutes), plus the lead */
		double margin = in->wall_s * SLURM_GEN_MARGIN;
		want = in->wall_s + (margin > SLURM_GEN_MARGIN_MIN_S ? margin : SLURM_GEN_MARGIN_MIN_S) + lead;
	} else if (in->limit_s > 0) {
		want = in->limit_s;
	} else {
		snprintf(err, errlen, _("no time to ask for: give --time, a workload with its work, or the partition's limit"));
		return -1;
	}
	out->time_s = ceil(want / 60 - 1e-9) * 60;
	out->jobs = 1;
	if (in->limit_s > 0 && out->time_s > in->limit_s) {
		out->time_s = floor(in->limit_s / 60) * 60;
		if (out->time_s < 60)
			out->time_s = 60;
		out->chained = true;
	}
	if (lead * 2 > out->time_s)
		lead = floor(out->time_s / 2 / 10) * 10;   /* a short job: half its time at most */
	if (in->wall_s > 0 && in->wall_s > out->time_s - lead)
		out->chained = true;   /* the work does not fit in one job, whatever its --time */
	if (out->chained) {
		/* each job computes until the lead, then checkpoints (docs/slurm.md "Chained jobs") */
		usable = out->time_s - lead;
		double work = in->wall_s > 0 ? in->wall_s : want;
		out->jobs = usable > 0 ? (long)ceil(work / usable - 1e-9) : 1;
		if (out->jobs < 2)
			out->jobs = 2;
	}
	out->lead_s = lead;
	out->cpus_per_task = in->cpus_per_task > 0 ? in->cpus_per_task : gpn * SLURM_GEN_CPUS_PER_GPU;
	out->mem_bytes = in->mem_bytes > 0 ? in->mem_bytes : (double)gpn * SLURM_GEN_MEM_PER_GPU;
	out->tasks_per_node = 1;
	return 0;
}
