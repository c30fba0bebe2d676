/*
 * config.c - the defaults file: a flat YAML mapping read event by event
 * with the YAML reader (core/text/yaml.h), and edited as text (config.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/text/config.h"
#include "core/text/yaml.h"
#include "core/text/names.h"
#include "base/i18n.h"
#include "base/quote.h"

static void entry_free(struct config_entry *e)
{
	for (size_t i = 0; i < e->nvals; i++)
		free(e->vals[i]);
	e->nvals = 0;
}

void config_free(struct config *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		entry_free(&c->v[i]);
	free(c->v);
	c->v = NULL;
	c->n = 0;
}

const struct config_entry *config_find(const struct config *c, const char *key)
{
	for (size_t i = 0; c && i < c->n; i++)
		if (!strcmp(c->v[i].key, key))
			return &c->v[i];
	return NULL;
}

/* A scalar's bytes as a value: no control bytes, at most CONFIG_MAX_VALUE. */
static int take_value(struct config_entry *e, const yaml_event_t *ev, const char *fname, char *err,
		      size_t errlen)
{
	const unsigned char *s = ev->data.scalar.value;
	size_t n = ev->data.scalar.length;

	if (n > CONFIG_MAX_VALUE) {
		snprintf(err, errlen, _("%s:%zu: %s: expected a value of at most %d bytes"), fname,
			 yt_line(&ev->start_mark), e->key, CONFIG_MAX_VALUE);
		return -1;
	}
	if (quote_has_control((const char *)s, n)) {
		snprintf(err, errlen, _("%s:%zu: %s: expected text without control characters"),
			 fname, yt_line(&ev->start_mark), e->key);
		return -1;
	}
	if (!n) {
		snprintf(err, errlen, _("%s:%zu: %s: expected a value (use `gpurent config unset %s` to "
			 "drop it)"), fname, yt_line(&ev->start_mark), e->key, e->key);
		return -1;
	}
	if (e->nvals >= CONFIG_MAX_VALUES) {
		snprintf(err, errlen, _("%s:%zu: %s: expected at most %d values"), fname,
			 yt_line(&ev->start_mark), e->key, CONFIG_MAX_VALUES);
		return -1;
	}
	if (!(e->vals[e->nvals] = malloc(n + 1))) {
		snprintf(err, errlen, _("%s: out of memory"), fname);
		return -1;
	}
	memcpy(e->vals[e->nvals], s, n);
	e->vals[e->nvals++][n] = '\0';
	/* the last line the value is on: a block scalar (| or >) ends at the
	 * start of the next line */
	size_t last = ev->end_mark.column == 0 && ev->end_mark.line > ev->start_mark.line ?
		      (size_t)ev->end_mark.line : yt_line(&ev->end_mark);
	if (last > e->end_line)
		e->end_line = last;
	return 0;
}

static int known_key(const char *key, const char *const *keys, const char *fname, size_t line,
		     char *err, size_t errlen)
{
	struct names_suggest sg;

	for (size_t i = 0; keys[i]; i++)
		if (!strcmp(key, keys[i]))
			return 0;
	names_suggest_init(&sg, key);
	for (size_t i = 0; keys[i]; i++)
		names_suggest_add(&sg, keys[i]);
	if (sg.best[0])
		snprintf(err, errlen, _("%s:%zu: %.64s: not a setting (did you mean '%s'?)"), fname, line, key,
			 sg.best);
	else
		snprintf(err, errlen, _("%s:%zu: %.64s: not a setting (see 'gpurent help config')"), fname, line,
			 key);
	return -1;
}

static int syntax(yaml_parser_t *p, const char *fname, char *err, size_t errlen)
{
	snprintf(err, errlen, _("%s:%zu: YAML syntax error: %s"), fname, (size_t)p->problem_mark.line + 1,
		 p->problem ? p->problem : "?");
	return -1;
}

int config_parse(const char *buf, size_t len, const char *fname, const char *const *keys,
		 struct config *c, char *err, size_t errlen)
{
	struct yt_rd r;
	yaml_event_t ev;
	int rc = -1, depth = 0;
	bool have_ev = false;
	struct config_entry *cur = NULL;
	enum { WANT_KEY, WANT_VALUE, IN_LIST } st = WANT_KEY;

	c->v = NULL;
	c->n = 0;
	c->flow = false;
	if (yt_open(&r, buf, len, fname, err, errlen))
		return -1;
	for (;;) {
		if (!yaml_parser_parse(&r.p, &ev)) {
			syntax(&r.p, fname, err, errlen);
			goto out;
		}
		have_ev = true;
		size_t line = yt_line(&ev.start_mark);
		switch (ev.type) {
		case YAML_STREAM_START_EVENT:
		case YAML_STREAM_END_EVENT:
		case YAML_DOCUMENT_START_EVENT:
		case YAML_DOCUMENT_END_EVENT:
			break;
		case YAML_ALIAS_EVENT:
			snprintf(err, errlen, _("%s:%zu: %s: expected a plain value, not an alias"), fname, line,
				 cur ? cur->key : "config");
			goto out;
		case YAML_MAPPING_START_EVENT:
			if (!depth && ev.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE)
				c->flow = true;
			if (depth++ || st != WANT_KEY) {
				snprintf(err, errlen, _("%s:%zu: %s: expected a value or a list of values, "
					 "not a mapping"), fname, line, cur ? cur->key : "config");
				goto out;
			}
			break;
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		case YAML_SEQUENCE_START_EVENT:
			if (st != WANT_VALUE) {
				snprintf(err, errlen, _("%s:%zu: %s: expected a mapping of setting: value"),
					 fname, line, cur ? cur->key : "config");
				goto out;
			}
			cur->is_list = true;
			st = IN_LIST;
			break;
		case YAML_SEQUENCE_END_EVENT:
			if (!cur->nvals) {
				snprintf(err, errlen, _("%s:%zu: %s: expected a non-empty list"), fname, cur->line,
					 cur->key);
				goto out;
			}
			st = WANT_KEY;
			cur = NULL;
			break;
		case YAML_SCALAR_EVENT:
			if (!depth) {
				snprintf(err, errlen, _("%s:%zu: config: expected a mapping of setting: value"),
					 fname, line);
				goto out;
			}
			if (st == WANT_KEY) {
				const char *k = (const char *)ev.data.scalar.value;
				struct config_entry *nv;
				if (ev.data.scalar.length >= sizeof(cur->key) || strlen(k) != ev.data.scalar.length) {
					snprintf(err, errlen, _("%s:%zu: config: expected a setting name"), fname, line);
					goto out;
				}
				if (known_key(k, keys, fname, line, err, errlen))
					goto out;
				if (config_find(c, k)) {
					snprintf(err, errlen, _("%s:%zu: %s: given twice (line %zu)"), fname, line, k,
						 config_find(c, k)->line);
					goto out;
				}
				if (!(nv = realloc(c->v, (c->n + 1) * sizeof(*nv)))) {
					snprintf(err, errlen, _("%s: out of memory"), fname);
					goto out;
				}
				c->v = nv;
				cur = &c->v[c->n++];
				memset(cur, 0, sizeof(*cur));
				snprintf(cur->key, sizeof(cur->key), "%s", k);
				cur->line = cur->end_line = line;
				st = WANT_VALUE;
			} else {
				if (take_value(cur, &ev, fname, err, errlen))
					goto out;
				if (st == WANT_VALUE) {
					st = WANT_KEY;
					cur = NULL;
				}
			}
			break;
		case YAML_NO_EVENT:
			break;
		}
		bool end = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
		have_ev = false;
		if (end)
			break;
	}
	rc = 0;
out:
	if (have_ev)
		yaml_event_delete(&ev);
	yt_close(&r);
	if (rc)
		config_free(c);
	return rc;
}

/* The line breaks YAML knows beyond \n and \r (NEL, LS, PS): their
 * length in bytes at p, or 0. */
static size_t yaml_break(const char *p)
{
	const unsigned char *u = (const unsigned char *)p;

	if (u[0] == 0xc2 && u[1] == 0x85)
		return 2;
	if (u[0] == 0xe2 && u[1] == 0x80 && (u[2] == 0xa8 || u[2] == 0xa9))
		return 3;
	return 0;
}

/* Does YAML read s back as the same plain string? Only a conservative
 * set of bytes stays plain (letters, digits, . _ / = + - and UTF-8 text;
 * a space inside a single value); anything else is double-quoted. */
static bool plain_ok(const char *s, bool in_list)
{
	static const char *const words[] = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", NULL};

	if (!*s || s[0] == '-' || s[0] == ' ' || s[strlen(s) - 1] == ' ')
		return false;
	for (const char *const *w = words; *w; w++)
		if (!strcasecmp(s, *w))
			return false;
	for (const char *p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (yaml_break(p))
			return false;
		if (c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    strchr("._/=+-", c))
			continue;
		if (c == ' ' && !in_list && p[1] != ' ')
			continue;
		return false;
	}
	return true;
}

static int put(char *out, size_t outlen, size_t *at, const char *s, size_t n)
{
	if (*at + n + 1 > outlen)
		return -1;
	memcpy(out + *at, s, n);
	*at += n;
	out[*at] = '\0';
	return 0;
}

static int put_value(char *out, size_t outlen, size_t *at, const char *v, bool in_list)
{
	if (plain_ok(v, in_list))
		return put(out, outlen, at, v, strlen(v));
	if (put(out, outlen, at, "\"", 1))
		return -1;
	for (const char *p = v; *p; p++) {
		char esc[8];
		size_t n = 1, br = yaml_break(p);
		if (br) {
			/* YAML's own escapes: raw, a quoted scalar would fold them */
			esc[0] = '\\';
			esc[1] = br == 2 ? 'N' : p[2] == (char)0xa8 ? 'L' : 'P';
			n = 2;
			p += br - 1;
		} else if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = *p;
			n = 2;
		} else if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			n = (size_t)snprintf(esc, sizeof(esc), "\\x%02x", (unsigned char)*p);
		} else {
			esc[0] = *p;
		}
		if (put(out, outlen, at, esc, n))
			return -1;
	}
	return put(out, outlen, at, "\"", 1);
}

int config_render(const char *key, const char *const *vals, size_t nvals, bool is_list, char *out,
		  size_t outlen)
{
	size_t at = 0;

	if (!outlen)
		return -1;
	out[0] = '\0';
	if (put(out, outlen, &at, key, strlen(key)) || put(out, outlen, &at, ": ", 2))
		return -1;
	if (is_list && put(out, outlen, &at, "[", 1))
		return -1;
	for (size_t i = 0; i < nvals; i++) {
		if (i && put(out, outlen, &at, ", ", 2))
			return -1;
		if (put_value(out, outlen, &at, vals[i], is_list))
			return -1;
	}
	if (is_list && put(out, outlen, &at, "]", 1))
		return -1;
	return put(out, outlen, &at, "\n", 1);
}

/* Byte offset of the start of 1-based line n (len when past the end). */
static size_t line_start(const char *buf, size_t len, size_t n)
{
	size_t at = 0;

	for (size_t l = 1; l < n && at < len; l++) {
		const char *nl = memchr(buf + at, '\n', len - at);
		if (!nl)
			return len;
		at = (size_t)(nl - buf) + 1;
	}
	return at;
}

int config_edit(const char *buf, size_t len, const struct config *c, const char *key, const char *line,
		char **out, size_t *outlen)
{
	const struct config_entry *e = config_find(c, key);
	size_t from = len, to = len, ln = line ? strlen(line) : 0;
	bool need_nl = false;

	*out = NULL;
	*outlen = 0;
	if (c->flow)
		return -2;

	if (e) {
		from = line_start(buf, len, e->line);
		to = line_start(buf, len, e->end_line + 1);
	} else if (len && buf[len - 1] != '\n') {
		need_nl = true;
	}
	*out = malloc(len - (to - from) + ln + 2);
	if (!*out)
		return -1;
	memcpy(*out, buf, from);
	*outlen = from;
	if (need_nl)
		(*out)[(*outlen)++] = '\n';
	memcpy(*out + *outlen, line ? line : "", ln);
	*outlen += ln;
	memcpy(*out + *outlen, buf + to, len - to);
	*outlen += len - to;
	(*out)[*outlen] = '\0';
	return 0;
}

/* Whether entries a and b hold the same values. */
static bool same_values(const struct config_entry *a, const struct config_entry *b)
{
	if (a->nvals != b->nvals || a->is_list != b->is_list)
		return false;
	for (size_t i = 0; i < a->nvals; i++)
		if (strcmp(a->vals[i], b->vals[i]))
			return false;
	return true;
}

int config_edit_checked(const char *buf, size_t len, const char *fname, const char *const *keys,
			const struct config *c, const char *key, const char *line, char **out, size_t *outlen)
{
	struct config after, want;
	char err[512];
	int rc = config_edit(buf, len, c, key, line, out, outlen);
	bool ok;

	if (rc)
		return rc;
	memset(&want, 0, sizeof(want));
	if (config_parse(*out, *outlen, fname, keys, &after, err, sizeof(err))) {
		ok = false;
	} else if (line && config_parse(line, strlen(line), fname, keys, &want, err, sizeof(err))) {
		ok = false;
		config_free(&after);
	} else {
		const struct config_entry *e = config_find(&after, key);
		ok = line ? e && want.n == 1 && same_values(e, &want.v[0]) : !e;
		/* every other setting as it was, and no other one */
		for (size_t i = 0; ok && i < c->n; i++)
			if (strcmp(c->v[i].key, key)) {
				const struct config_entry *a = config_find(&after, c->v[i].key);
				ok = a && same_values(a, &c->v[i]);
			}
		ok = ok && after.n == c->n - (config_find(c, key) != NULL) + (line != NULL);
		config_free(&after);
		if (line)
			config_free(&want);
	}
	if (!ok) {
		free(*out);
		*out = NULL;
		*outlen = 0;
		return -3;
	}
	return 0;
}

int config_remove_text(const char *buf, size_t len, const char *key, char **out, size_t *outlen)
{
	size_t kl = strlen(key), at = 0, o = 0;
	bool in = false, found = false;

	*out = malloc(len + 1);
	*outlen = 0;
	if (!*out)
		return -1;
	while (at < len) {
		const char *s = buf + at, *nl = memchr(s, '\n', len - at);
		size_t n = nl ? (size_t)(nl - s) + 1 : len - at;
		/* a line at column 0 starts a setting; '-' items and indented
		 * lines continue the one above */
		if (n && s[0] != ' ' && s[0] != '\t' && s[0] != '-' && s[0] != '\n' && s[0] != '\r')
			in = n > kl && !memcmp(s, key, kl) && (s[kl] == ':' || s[kl] == ' ');
		found |= in;
		if (!in) {
			memcpy(*out + o, s, n);
			o += n;
		}
		at += n;
	}
	(*out)[o] = '\0';
	*outlen = o;
	if (!found) {
		free(*out);
		*out = NULL;
		*outlen = 0;
		return -2;
	}
	return 0;
}
