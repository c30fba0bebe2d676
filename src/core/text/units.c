/*
 * units.c - the one set of quantity parsers and formatters (see units.h).
 * Decimal prefixes for GB/MB (1e9, 1e6), binary for GiB/MiB, as the
 * datasheets and nvidia-smi use them respectively.
 */
#include "core/text/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/text/currency.h"
#include "base/quote.h"
#include "base/util.h"
#include "base/i18n.h"

struct suffix {
	const char *name;
	double mult;
};

/* One kind of quantity: its suffixes and its finite documented range
 * (units.h). min_pos: a value above 0 but below it is refused too. */
struct kind {
	const char *what;        /* "a count such as ..." */
	const char *noun;        /* "a count", for range messages */
	const struct suffix *tab;
	size_t ntab;
	int exact_case;
	double max;
	const char *max_text;    /* "1e18" */
	double min_pos;
	const char *min_text;    /* "1 ms (below a millisecond)" */
};

/*
 * Scan a plain decimal number at p: digits, an optional fraction and an
 * optional exponent, and nothing else (no sign, hex, inf or nan, which
 * strtod would take). Returns its length, or 0 when p holds none.
 */
static size_t scan_decimal(const char *p)
{
	size_t i = 0, digits = 0;

	while (isdigit((unsigned char)p[i]))
		i++, digits++;
	if (p[i] == '.') {
		i++;
		while (isdigit((unsigned char)p[i]))
			i++, digits++;
	}
	if (!digits)
		return 0;
	if (p[i] == 'e' || p[i] == 'E') {
		size_t j = i + 1;
		if (p[j] == '+' || p[j] == '-')
			j++;
		if (isdigit((unsigned char)p[j])) {
			while (isdigit((unsigned char)p[j]))
				j++;
			i = j;
		}
	}
	return i;
}

/* strtod of the n-byte decimal at p, read from a copy so that strtod
 * cannot look past what scan_decimal() accepted. -1 if too long. */
static int decimal_value(const char *p, size_t n, double *v)
{
	char buf[512];

	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	*v = strtod(buf, NULL);
	return 0;
}

/*
 * Split "  1.5GiB " into a number and a suffix. Returns 0, or -1 for no
 * number at all, -2 for a sign (negatives, -0 included, are refused
 * everywhere), -3 for a number too large for a double.
 */
static int split_number(const char *s, double *num, const char **suf)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	if (*s == '-')
		return -2;
	n = scan_decimal(s);
	if (!n || decimal_value(s, n, num))
		return -1;
	if (!isfinite(*num))
		return -3;
	s += n;
	while (isspace((unsigned char)*s))
		s++;
	*suf = s;
	return 0;
}

int units_scan_number(const char *s, double *out)
{
	const char *p = s;
	int neg = 0;
	size_t n;
	double v;

	while (isspace((unsigned char)*p))
		p++;
	if (*p == '-') {
		neg = 1;
		p++;
	}
	n = scan_decimal(p);
	if (!n || decimal_value(p, n, &v) || !isfinite(v))
		return -1;
	p += n;
	while (isspace((unsigned char)*p))
		p++;
	if (*p)
		return -1;
	*out = neg ? -v : v;
	return 0;
}

/* Match suffix (case-insensitive unless exact_case) ignoring trailing spaces. */
static int match_suffix(const char *suf, const struct suffix *tab, size_t n,
			int exact_case, double *mult)
{
	size_t len = strlen(suf);

	while (len && isspace((unsigned char)suf[len - 1]))
		len--;
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(tab[i].name);
		if (l != len)
			continue;
		if (exact_case ? !strncmp(suf, tab[i].name, l)
			       : !strncasecmp(suf, tab[i].name, l)) {
			*mult = tab[i].mult;
			return 0;
		}
	}
	return -1;
}

static int fail(char *err, size_t errlen, const char *what, const char *s)
{
	char q[QUOTE_KEEP * 4 + 8];

	snprintf(err, errlen, _("expected %s, got '%s'"), what, quote_value(s, q, sizeof(q)));
	return -1;
}

static int fail_range(char *err, size_t errlen, const struct kind *k, const char *s, int low)
{
	char q[QUOTE_KEEP * 4 + 8];

	quote_value(s, q, sizeof(q));
	if (low)
		snprintf(err, errlen, _("expected %s of 0 or at least %s, got '%s'"), _(k->noun), _(k->min_text), q);
	else
		snprintf(err, errlen, _("expected %s of at most %s, got '%s'"), _(k->noun), _(k->max_text), q);
	return -1;
}

/* The shared body: number, suffix, then the kind's range. */
static int parse_kind(const char *s, const struct kind *k, double *out,
		      const char **suf_out, char *err, size_t errlen)
{
	double v, m, x;
	const char *suf;
	int rc = split_number(s, &v, &suf);

	if (rc == -2) {
		char what[160];
		snprintf(what, sizeof(what), _("%s (not negative)"), _(k->what));
		return fail(err, errlen, what, s);
	}
	if (rc == -3)
		return fail_range(err, errlen, k, s, 0);
	if (rc || match_suffix(suf, k->tab, k->ntab, k->exact_case, &m))
		return fail(err, errlen, _(k->what), s);
	x = v * m;
	if (!isfinite(x) || x > k->max)
		return fail_range(err, errlen, k, s, 0);
	if (x > 0 && x < k->min_pos)
		return fail_range(err, errlen, k, s, 1);
	if (suf_out)
		*suf_out = suf;
	*out = x;
	return 0;
}

#define NTAB(t) ARRAY_SIZE(t)

static const struct suffix count_tab[] = {
	{"", 1}, {"K", 1e3}, {"k", 1e3}, {"M", 1e6},
	{"B", 1e9}, {"G", 1e9}, {"b", 1e9}, {"T", 1e12},
};

int units_parse_count(const char *s, double *out, char *err, size_t errlen)
{
	static const struct kind k = {
		N_("a count such as 512, 7e9, 32K, 7B"), N_("a count"), count_tab, NTAB(count_tab), 1,
		UNITS_COUNT_MAX, "1e18", UNITS_COUNT_MIN, "1e-6",
	};

	return parse_kind(s, &k, out, NULL, err, errlen);
}

static const struct suffix byte_tab[] = {
	{"", 1}, {"B", 1},
	{"K", 1e3}, {"KB", 1e3}, {"M", 1e6}, {"MB", 1e6},
	{"G", 1e9}, {"GB", 1e9}, {"T", 1e12}, {"TB", 1e12},
	{"PB", 1e15}, {"EB", 1e18},
	{"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0},
	{"TiB", 1099511627776.0}, {"PiB", 1125899906842624.0},
};

int units_parse_bytes(const char *s, double *out, char *err, size_t errlen)
{
	static const struct kind k = {
		N_("a size such as 24GB, 1.5GiB or 512MiB"), N_("a size"), byte_tab, NTAB(byte_tab), 0,
		UNITS_BYTES_MAX, N_("1e18 bytes (1 EB)"), UNITS_BYTES_MIN, N_("1 byte"),
	};

	return parse_kind(s, &k, out, NULL, err, errlen);
}

int units_parse_bandwidth(const char *s, double *out, char *err, size_t errlen)
{
	static const struct suffix tab[] = {
		{"B/s", 1}, {"KB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9},
		{"TB/s", 1e12}, {"MiB/s", 1048576.0}, {"GiB/s", 1073741824.0},
		{"bit/s", 0.125}, {"b/s", 0.125}, {"Kb/s", 125.0},
		{"Mb/s", 1.25e5}, {"Gb/s", 1.25e8}, {"Tb/s", 1.25e11},
		{"Kbit/s", 125.0}, {"Mbit/s", 1.25e5}, {"Gbit/s", 1.25e8},
		{"Gbps", 1.25e8}, {"Mbps", 1.25e5}, {"GBps", 1e9},
	};
	/* Case matters: Gb/s is bits, GB/s is bytes. */
	static const struct kind k = {
		N_("a bandwidth such as 20GB/s or 100Gb/s"), N_("a bandwidth"), tab, NTAB(tab), 1,
		UNITS_BANDWIDTH_MAX, N_("1e15 B/s (1 PB/s)"), UNITS_BANDWIDTH_MIN, N_("1 B/s"),
	};
	double v;

	if (parse_kind(s, &k, &v, NULL, err, errlen))
		return -1;
	if (v <= 0)
		return fail(err, errlen, _("a bandwidth above 0 such as 20GB/s or 100Gb/s"), s);
	*out = v;
	return 0;
}

int units_parse_duration(const char *s, double *out, char *err, size_t errlen)
{
	static const struct suffix tab[] = {
		{"", 1}, {"ms", 1e-3}, {"s", 1}, {"sec", 1}, {"m", 60}, {"min", 60},
		{"h", 3600}, {"hr", 3600}, {"d", 86400}, {"w", 604800},
	};
	static const struct kind k = {
		N_("a duration such as 90s, 30m, 6h or 2d"), N_("a duration"), tab, NTAB(tab), 1,
		UNITS_DURATION_MAX, N_("100 years"), UNITS_DURATION_MIN, N_("1e-6s (below a microsecond)"),
	};
	const char *suf;
	double v;

	if (parse_kind(s, &k, &v, &suf, err, errlen))
		return -1;
	/* A bare number is no duration ("3": seconds? days?); zero needs no unit. */
	if (!*suf && v != 0) {
		char q[QUOTE_KEEP * 4 + 8];
		snprintf(err, errlen, _("expected a duration with a unit, e.g. 3d (ms, s, m, h, d, w), got '%s'"),
			 quote_value(s, q, sizeof(q)));
		return -1;
	}
	*out = v;
	return 0;
}

int units_parse_fraction(const char *s, double *out, char *err, size_t errlen)
{
	static const struct suffix tab[] = {{"", 1}, {"%", 0.01}};
	static const struct kind k = {
		N_("a fraction such as 0.4 or 40%"), N_("a fraction"), tab, NTAB(tab), 1,
		1.0, N_("1 (100%)"), UNITS_FRACTION_MIN, "1e-9",
	};

	return parse_kind(s, &k, out, NULL, err, errlen);
}

int units_parse_int_ex(const char *s, long min, long max, unsigned flags, long *out,
		       char *err, size_t errlen)
{
	static const struct suffix dec[] = {
		{"", 1}, {"K", 1e3}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"B", 1e9}, {"T", 1e12},
	};
	static const struct suffix bin[] = {
		{"", 1}, {"K", 1024.0}, {"k", 1024.0}, {"M", 1048576.0},
		{"G", 1073741824.0}, {"B", 1073741824.0}, {"T", 1099511627776.0},
	};
	const struct suffix *tab = flags & UNITS_INT_K1024 ? bin : dec;
	const char *p = s, *suf;
	char q[QUOTE_KEEP * 4 + 8];
	int neg = 0;
	size_t n;
	double m;
	long v;

	while (isspace((unsigned char)*p))
		p++;
	if (*p == '-' && min < 0) {
		neg = 1;
		p++;
	}
	n = scan_decimal(p);
	if (!n)
		goto bad;
	suf = p + n;
	while (isspace((unsigned char)*suf))
		suf++;
	if (match_suffix(suf, tab, NTAB(dec), 1, &m))
		goto bad;
	if (m == 1) {
		/* no suffix: digits only, read exactly (no ERANGE saturation) */
		char *end;
		if (strspn(p, "0123456789") != n)
			goto bad;
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno == ERANGE)
			goto bad;
	} else {
		/* 4k, 1.5M: the product must be whole and within range */
		double d;
		if (decimal_value(p, n, &d))
			goto bad;
		d *= m;
		if (!isfinite(d) || d > 9007199254740992.0 || d != floor(d))
			goto bad;
		v = (long)d;
	}
	if (neg)
		v = -v;
	if (v < min || v > max)
		goto bad;
	*out = v;
	return 0;
bad:
	quote_value(s, q, sizeof(q));
	if (min == 1)
		snprintf(err, errlen, _("expected a positive whole number, got '%s' (at most %ld)"), q, max);
	else
		snprintf(err, errlen, _("expected a whole number from %ld to %ld, got '%s'"),
			 min, max, q);
	return -1;
}

int units_parse_int(const char *s, long min, long max, long *out,
		    char *err, size_t errlen)
{
	return units_parse_int_ex(s, min, max, 0, out, err, errlen);
}

bool units_money_has_code(const char *v)
{
	char *end;

	v += strspn(v, " \t");
	if (*v == '$' || !strncmp(v, "\xC2\xA5", 2))
		return true;
	(void)strtod(v, &end);
	end += strspn(end, " \t");
	return *end != '\0';
}

int units_parse_money(const char *s, double *amount, char code[8], char *err, size_t errlen)
{
	const char *p = s;
	char q[QUOTE_KEEP * 4 + 8], pre[CURRENCY_CODE_MAX + 1], suf[CURRENCY_CODE_MAX + 1];
	double v;
	size_t n = 0;

	while (isspace((unsigned char)*p))
		p++;
	snprintf(code, 8, "USD");
	p += currency_symbol_prefix(p, pre);   /* $ ¥ ￥ 元 € (currency.h) */
	n = scan_decimal(p);
	if (!n || decimal_value(p, n, &v))
		goto bad;
	if (!isfinite(v) || v > UNITS_MONEY_MAX) {
		snprintf(err, errlen, _("expected an amount of at most 1e12, got '%s'"),
			 quote_value(s, q, sizeof(q)));
		return -1;
	}
	if (v > 0 && v < UNITS_MONEY_MIN) {
		snprintf(err, errlen, _("expected an amount of 0 or at least 1e-9, got '%s'"),
			 quote_value(s, q, sizeof(q)));
		return -1;
	}
	p += n;
	while (isspace((unsigned char)*p))
		p++;
	if (*p) {
		/* a code (CNY, rmb) or a symbol after the number (300¥): the one
		 * alias table of currency.c makes it canonical */
		if (currency_canonical(p, suf) || (pre[0] && strcmp(pre, suf)))
			goto bad;
		snprintf(code, 8, "%s", suf);
	} else if (pre[0]) {
		snprintf(code, 8, "%s", pre);
	}
	*amount = v;
	return 0;
bad:
	snprintf(err, errlen, _("expected an amount such as 300, $300, 300CNY or ¥300, got '%s'"),
		 quote_value(s, q, sizeof(q)));
	return -1;
}

/* formulas.md "The caching allocator's reserve": "MEAN+-SD" tokens. */
int units_parse_spread(const char *s, double *mean, double *sd)
{
	/* both plain decimals, as every number here (scan_decimal: no sign,
	 * hex, inf or nan) */
	size_t n = scan_decimal(s), k;
	double m, d;

	if (!n || strncmp(s + n, "+-", 2))
		return -1;
	k = scan_decimal(s + n + 2);
	if (!k || s[n + 2 + k] || decimal_value(s, n, &m) || decimal_value(s + n + 2, k, &d) ||
	    !isfinite(m) || !isfinite(d) || m < 1 || m > 1e9 || d > 1e9)
		return -1;
	*mean = m;
	*sd = d;
	return 0;
}

int units_parse_bool(const char *s, int *out, char *err, size_t errlen)
{
	static const char *yes[] = {"true", "yes", "on", "1", "y"};
	static const char *no[] = {"false", "no", "off", "0", "n"};

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = 1;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = 0;
			return 0;
		}
	}
	return fail(err, errlen, _("true or false"), s);
}

void units_fmt_fix(char *buf)
{
	const char *p;

	if (buf[0] != '-')
		return;
	/* "-0", "-0.00", "-0 B": a negative that rounds to zero prints as 0 */
	for (p = buf + 1; *p == '0' || *p == '.'; p++)
		;
	if (p > buf + 1 && !isdigit((unsigned char)*p))
		memmove(buf, buf + 1, strlen(buf));
}

/* Non-finite values print as "-": they should be impossible once the
 * parsers hold to their ranges, but a formatter never prints inf or nan. */
static int fmt_nonfinite(double x, char *buf, size_t n)
{
	if (isfinite(x))
		return 0;
	snprintf(buf, n, "-");
	return 1;
}

char *units_fmt_bytes(double b, char *buf, size_t n)
{
	if (fmt_nonfinite(b, buf, n))
		return buf;
	if (b >= 1e12)
		snprintf(buf, n, "%.2f TB", b / 1e12);
	else if (b >= 1e9)
		snprintf(buf, n, "%.2f GB", b / 1e9);
	else if (b >= 1e6)
		snprintf(buf, n, "%.1f MB", b / 1e6);
	else if (b >= 1e3)
		snprintf(buf, n, "%.1f KB", b / 1e3);
	else
		snprintf(buf, n, "%.0f B", b);
	units_fmt_fix(buf);
	return buf;
}

char *units_fmt_count(double c, char *buf, size_t n)
{
	if (fmt_nonfinite(c, buf, n))
		return buf;
	if (c >= 1e12)
		snprintf(buf, n, "%.2fT", c / 1e12);
	else if (c >= 1e9)
		snprintf(buf, n, "%.2fB", c / 1e9);
	else if (c >= 1e6)
		snprintf(buf, n, "%.2fM", c / 1e6);
	else if (c >= 1e3)
		snprintf(buf, n, "%.1fK", c / 1e3);
	else
		snprintf(buf, n, "%.0f", c);
	units_fmt_fix(buf);
	return buf;
}

char *units_fmt_duration(double s, char *buf, size_t n)
{
	if (fmt_nonfinite(s, buf, n))
		return buf;
	if (s >= 2 * 86400)
		snprintf(buf, n, "%.1f h (%.1f days)", s / 3600, s / 86400);
	else if (s >= 3600)
		snprintf(buf, n, "%.1f h", s / 3600);
	else if (s >= 60)
		snprintf(buf, n, "%.1f min", s / 60);
	else if (s >= 1)
		snprintf(buf, n, "%.2f s", s);
	else
		snprintf(buf, n, "%.0f ms", s * 1000);
	units_fmt_fix(buf);
	return buf;
}

char *units_fmt_duration_short(double s, char *buf, size_t n)
{
	if (fmt_nonfinite(s, buf, n))
		return buf;
	if (s >= 2 * 86400)
		snprintf(buf, n, "%.1f d", s / 86400);
	else if (s >= 3600)
		snprintf(buf, n, "%.1f h", s / 3600);
	else
		snprintf(buf, n, "%.0f min", s / 60);
	units_fmt_fix(buf);
	return buf;
}

char *units_fmt_flops(double f, char *buf, size_t n)
{
	if (fmt_nonfinite(f, buf, n))
		return buf;
	snprintf(buf, n, "%.3g", f);
	units_fmt_fix(buf);
	return buf;
}
