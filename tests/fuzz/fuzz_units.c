/*
 * fuzz_units.c - every units_parse_* (src/core/text/units.h) on the input as one
 * string, and every formatter on what was parsed.
 */
#include <limits.h>
#include <math.h>

#include "core/text/units.h"
#include "fuzz.h"
#include "base/util.h"

/* "Parsers reject NaN, infinity, negative values" (units.h); the
 * infinity half is a known bug (overflowing suffixes), hence strict. */
static void check_value(double v)
{
	FUZZ_CHECK(!isnan(v));
	FUZZ_CHECK(v >= 0);
	FUZZ_STRICT_CHECK(isfinite(v));
}

static void check_err(int rc, const char *err)
{
	FUZZ_CHECK(rc == 0 || rc == -1);
	if (rc)
		FUZZ_CHECK(err[0] != '\0');   /* "writes what was expected into err" */
}

/* A formatted quantity: terminated within the buffer, never inf or nan
 * (it was parsed, so it is finite). */
static void check_fmt(char *(*fmt)(double, char *, size_t), double v)
{
	char buf[64], small[5];

	if (!isfinite(v))
		return;   /* FUZZ_STRICT reports it in check_value */
	memset(buf, 'x', sizeof(buf));
	FUZZ_CHECK(fmt(v, buf, sizeof(buf)) == buf);
	FUZZ_CHECK(memchr(buf, '\0', sizeof(buf)) != NULL);
	FUZZ_CHECK(!strstr(buf, "inf") && !strstr(buf, "nan"));
	memset(small, 'x', sizeof(small));
	fmt(v, small, sizeof(small));
	FUZZ_CHECK(memchr(small, '\0', sizeof(small)) != NULL);
}

static void check_fmt_all(double v)
{
	check_fmt(units_fmt_bytes, v);
	check_fmt(units_fmt_count, v);
	check_fmt(units_fmt_duration, v);
	check_fmt(units_fmt_duration_short, v);
	check_fmt(units_fmt_flops, v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int (*const parsers[])(const char *, double *, char *, size_t) = {
		units_parse_count, units_parse_bytes, units_parse_bandwidth, units_parse_duration,
	};
	char *s = fuzz_cstr(data, size);
	char err[160], code[8];
	double v;
	long l;
	int b, rc;

	for (size_t i = 0; i < ARRAY_SIZE(parsers); i++) {
		err[0] = '\0';
		rc = parsers[i](s, &v, err, sizeof(err));
		check_err(rc, err);
		if (rc == 0) {
			check_value(v);
			check_fmt_all(v);
		}
	}
	err[0] = '\0';
	rc = units_parse_fraction(s, &v, err, sizeof(err));
	check_err(rc, err);
	if (rc == 0) {
		check_value(v);
		FUZZ_CHECK(v <= 1);   /* "Fraction in [0,1]" */
		check_fmt_all(v);
	}
	{
		static const long bounds[][2] = {{0, 100}, {-5, 5}, {1, LONG_MAX}, {LONG_MIN, LONG_MAX}};
		for (size_t i = 0; i < ARRAY_SIZE(bounds); i++) {
			err[0] = '\0';
			rc = units_parse_int(s, bounds[i][0], bounds[i][1], &l, err, sizeof(err));
			check_err(rc, err);
			if (rc == 0)
				FUZZ_CHECK(l >= bounds[i][0] && l <= bounds[i][1]);
		}
	}
	err[0] = '\0';
	memset(code, 'x', sizeof(code));
	rc = units_parse_money(s, &v, code, err, sizeof(err));
	check_err(rc, err);
	if (rc == 0) {
		check_value(v);
		FUZZ_CHECK(memchr(code, '\0', sizeof(code)) != NULL);
		FUZZ_CHECK(code[0] != '\0');   /* an ISO code, "USD" when none is written */
		check_fmt_all(v);
	}
	err[0] = '\0';
	rc = units_parse_bool(s, &b, err, sizeof(err));
	check_err(rc, err);
	if (rc == 0)
		FUZZ_CHECK(b == 0 || b == 1);
	/* a tiny message buffer is still terminated */
	if (units_parse_bytes(s, &v, err, 3))
		FUZZ_CHECK(memchr(err, '\0', 3) != NULL);
	free(s);
	return 0;
}
