/*
 * units.c - the one set of quantity parsers and formatters (see units.h).
 * Decimal prefixes for GB/MB (1e9, 1e6), binary for GiB/MiB, as the
 * datasheets and nvidia-smi use them respectively.
 */
#include "units.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct suffix {
	const char *name;
	double mult;
};

/* Split "  1.5GiB " into a number and a suffix; 0 on success. */
static int split_number(const char *s, double *num, const char **suf)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	if (!*s || *s == '-' || *s == '+')
		return -1;
	if (!isdigit((unsigned char)*s) && *s != '.')
		return -1;
	*num = strtod(s, &end);
	if (end == s || !isfinite(*num) || *num < 0)
		return -1;
	while (isspace((unsigned char)*end))
		end++;
	*suf = end;
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
	snprintf(err, errlen, "expected %s, got '%s'", what, s);
	return -1;
}

int units_parse_count(const char *s, double *out, char *err, size_t errlen)
{
	static const struct suffix tab[] = {
		{"", 1}, {"K", 1e3}, {"k", 1e3}, {"M", 1e6},
		{"B", 1e9}, {"G", 1e9}, {"b", 1e9}, {"T", 1e12},
	};
	double v, m;
	const char *suf;
	const char *what = "a count such as 512, 7e9, 32K, 7B";

	if (split_number(s, &v, &suf) ||
	    match_suffix(suf, tab, sizeof(tab) / sizeof(tab[0]), 1, &m))
		return fail(err, errlen, what, s);
	*out = v * m;
	return 0;
}

static const struct suffix byte_tab[] = {
	{"", 1}, {"B", 1},
	{"K", 1e3}, {"KB", 1e3}, {"M", 1e6}, {"MB", 1e6},
	{"G", 1e9}, {"GB", 1e9}, {"T", 1e12}, {"TB", 1e12},
	{"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0},
	{"TiB", 1099511627776.0},
};

int units_parse_bytes(const char *s, double *out, char *err, size_t errlen)
{
	double v, m;
	const char *suf;
	const char *what = "a size such as 24GB, 1.5GiB or 512MiB";

	if (split_number(s, &v, &suf) ||
	    match_suffix(suf, byte_tab, sizeof(byte_tab) / sizeof(byte_tab[0]),
			 0, &m))
		return fail(err, errlen, what, s);
	*out = v * m;
	return 0;
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
	double v, m;
	const char *suf;
	const char *what = "a bandwidth such as 20GB/s or 100Gb/s";

	/* Case matters: Gb/s is bits, GB/s is bytes. */
	if (split_number(s, &v, &suf) ||
	    match_suffix(suf, tab, sizeof(tab) / sizeof(tab[0]), 1, &m) ||
	    v <= 0)
		return fail(err, errlen, what, s);
	*out = v * m;
	return 0;
}

int units_parse_duration(const char *s, double *out, char *err, size_t errlen)
{
	static const struct suffix tab[] = {
		{"", 1}, {"s", 1}, {"sec", 1}, {"m", 60}, {"min", 60},
		{"h", 3600}, {"hr", 3600}, {"d", 86400}, {"w", 604800},
	};
	double v, m;
	const char *suf;
	const char *what = "a duration such as 90s, 30m, 6h or 2d";

	if (split_number(s, &v, &suf) ||
	    match_suffix(suf, tab, sizeof(tab) / sizeof(tab[0]), 1, &m))
		return fail(err, errlen, what, s);
	*out = v * m;
	return 0;
}

int units_parse_fraction(const char *s, double *out, char *err, size_t errlen)
{
	double v;
	const char *suf;
	const char *what = "a fraction such as 0.4 or 40%";

	if (split_number(s, &v, &suf))
		return fail(err, errlen, what, s);
	if (*suf == '%' && !suf[1 + strspn(suf + 1, " \t")])
		v /= 100.0;
	else if (*suf)
		return fail(err, errlen, what, s);
	if (v > 1.0)
		return fail(err, errlen, "a fraction between 0 and 1 (or 0-100%)", s);
	*out = v;
	return 0;
}

int units_parse_int(const char *s, long min, long max, long *out,
		    char *err, size_t errlen)
{
	char *end;
	long v;
	const char *p = s;

	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		goto bad;
	v = strtol(p, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (*end || end == p || v < min || v > max)
		goto bad;
	*out = v;
	return 0;
bad:
	if (min == 1)
		snprintf(err, errlen, "expected a positive whole number, got '%s' (at most %ld)", s, max);
	else
		snprintf(err, errlen, "expected a whole number from %ld to %ld, got '%s'",
			 min, max, s);
	return -1;
}

int units_parse_money(const char *s, double *amount, char code[8], char *err, size_t errlen)
{
	const char *p = s;
	double v;
	size_t n = 0;
	char *end;

	while (isspace((unsigned char)*p))
		p++;
	snprintf(code, 8, "USD");
	if (*p == '$') {
		p++;
	} else if (!strncmp(p, "\xC2\xA5", 2)) {   /* ¥ */
		snprintf(code, 8, "CNY");
		p += 2;
	}
	if (!isdigit((unsigned char)*p) && *p != '.')
		goto bad;
	v = strtod(p, &end);
	if (end == p || !isfinite(v) || v < 0)
		goto bad;
	p = end;
	while (isspace((unsigned char)*p))
		p++;
	if (*p) {
		while (isalpha((unsigned char)p[n]) && n < 7)
			n++;
		if (n < 3 || p[n])
			goto bad;
		for (size_t i = 0; i < n; i++)
			code[i] = (char)toupper((unsigned char)p[i]);
		code[n] = '\0';
	}
	*amount = v;
	return 0;
bad:
	snprintf(err, errlen, "expected an amount such as 300, $300 or 2000CNY, got '%s'", s);
	return -1;
}

int units_parse_bool(const char *s, int *out, char *err, size_t errlen)
{
	static const char *yes[] = {"true", "yes", "on", "1", "y"};
	static const char *no[] = {"false", "no", "off", "0", "n"};

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = 1;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = 0;
			return 0;
		}
	}
	return fail(err, errlen, "true or false", s);
}

char *units_fmt_bytes(double b, char *buf, size_t n)
{
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
	return buf;
}

char *units_fmt_count(double c, char *buf, size_t n)
{
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
	return buf;
}

char *units_fmt_duration(double s, char *buf, size_t n)
{
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
	return buf;
}

char *units_fmt_duration_short(double s, char *buf, size_t n)
{
	if (s >= 2 * 86400)
		snprintf(buf, n, "%.1f d", s / 86400);
	else if (s >= 3600)
		snprintf(buf, n, "%.1f h", s / 3600);
	else
		snprintf(buf, n, "%.0f min", s / 60);
	return buf;
}

char *units_fmt_flops(double f, char *buf, size_t n)
{
	snprintf(buf, n, "%.3g", f);
	return buf;
}
