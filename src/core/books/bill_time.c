/*
 * bill_time.c - the times and time units of billing exports (bill.h):
 * ISO 8601 as each provider writes it, Azure's and the FOCUS examples'
 * month/day/year, unix seconds; "Hrs", "1 Hour", "seconds".
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/books/bill.h"
#include "base/util.h"

static int digits(const char **p, int n, long *out)
{
	long v = 0;

	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*p)[i]))
			return -1;
		v = v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	*out = v;
	return 0;
}

/* one or up to max digits */
static int digits_upto(const char **p, int max, long *out)
{
	int n = 0;

	while (n < max && isdigit((unsigned char)(*p)[n]))
		n++;
	return n ? digits(p, n, out) : -1;
}

static bool valid_date(long y, long m, long d)
{
	static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

	if (y < 1970 || y > 9999 || m < 1 || m > 12 || d < 1 || d > mdays[m - 1])
		return false;
	return !(m == 2 && d == 29 && (y % 4 || (y % 100 == 0 && y % 400)));
}

int bill_parse_time(const char *s, double *out)
{
	const char *p = s;
	long y, mo, d, h = 0, mi = 0, se = 0, zh, zm = 0;
	double frac = 0, off = 0;
	size_t n = strlen(s);

	if (n >= 9 && strspn(s, "0123456789") == n && n <= 11) {
		*out = strtod(s, NULL);
		return 0;
	}
	if (strchr(s, '/') && strchr(s, '/') - s <= 2) {
		/* Azure: MM/DD/YYYY, M/D/YYYY; the FOCUS examples' M/D/YY (20YY) */
		if (digits_upto(&p, 2, &mo) || *p++ != '/' || digits_upto(&p, 2, &d) || *p++ != '/')
			return -1;
		if (!digits(&p, 4, &y))
			;
		else if (!digits(&p, 2, &y))
			y += 2000;
		else
			return -1;
	} else if (digits(&p, 4, &y) || *p++ != '-' || digits(&p, 2, &mo) || *p++ != '-' ||
		   digits(&p, 2, &d)) {
		return -1;
	}
	if (!valid_date(y, mo, d))
		return -1;
	if (*p == 'T' || (*p == ' ' && isdigit((unsigned char)p[1]))) {
		p++;
		if (digits(&p, 2, &h) || *p++ != ':' || digits(&p, 2, &mi))
			return -1;
		if (*p == ':') {
			p++;
			if (digits(&p, 2, &se))
				return -1;
			if (*p == '.') {
				double scale = 0.1;
				p++;
				if (!isdigit((unsigned char)*p))
					return -1;
				for (; isdigit((unsigned char)*p); p++, scale /= 10)
					frac += (*p - '0') * scale;
			}
		}
		if (h > 23 || mi > 59 || se > 60)
			return -1;
	}
	if (*p == 'Z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int sign = *p++ == '-' ? -1 : 1;
		if (digits(&p, 2, &zh))
			return -1;
		if (*p == ':')
			p++;
		if (*p && digits(&p, 2, &zm))
			return -1;
		if (zh > 14 || zm > 59)
			return -1;
		off = sign * (zh * 3600.0 + zm * 60.0);
	} else if (!strcmp(p, " UTC")) {
		p += 4;
	}
	if (*p)
		return -1;
	*out = (double)util_days_from_civil(y, mo, d) * 86400.0 + (double)(h * 3600 + mi * 60 + se)
	       + frac - off;
	return 0;
}

double bill_unit_seconds(const char *unit)
{
	static const struct {
		const char *name;
		double s;
	} units[] = {
		{"s", 1}, {"sec", 1}, {"secs", 1}, {"second", 1}, {"seconds", 1},
		{"min", 60}, {"mins", 60}, {"minute", 60}, {"minutes", 60},
		{"h", 3600}, {"hr", 3600}, {"hrs", 3600}, {"hour", 3600}, {"hours", 3600},
		{"day", 86400}, {"days", 86400},
	};
	const char *p = unit;
	double mult = 1;
	char *end;

	while (*p == ' ')
		p++;
	if (isdigit((unsigned char)*p)) {   /* Azure: "1 Hour", "10 Hours" */
		mult = strtod(p, &end);
		if (!(mult > 0 && mult <= 1e6))
			return 0;
		p = end;
		while (*p == ' ')
			p++;
	}
	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcasecmp(p, units[i].name))
			return mult * units[i].s;
	return 0;
}

