/*
 * units.h - parse and format the quantities gpurent reads from users:
 * counts ("7e9", "7B"), byte sizes ("24GB", "1.5GiB"), bandwidths
 * ("20GB/s", "100Gb/s"), durations ("90s", "30m", "6h", "2d") and
 * fractions ("10%", "0.1"). One parser per kind, used everywhere.
 */
#ifndef GPURENT_UNITS_H
#define GPURENT_UNITS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Each parser returns 0 and stores the value in *out, or returns -1 and
 * writes what was expected into err (errlen bytes, always terminated;
 * the value is quoted with quote_value(), control bytes as \xNN).
 * Numbers are plain decimals (512, 1.5, 7e9): no sign (negatives, -0
 * included, are refused), no hex (0x2d), no inf, infinity or nan, no
 * trailing garbage. After the suffix is applied the value must lie in
 * the kind's finite range below (docs/formulas.md, "Units"); a value
 * above 0 but below the kind's smallest is refused as well.
 */
#define UNITS_COUNT_MAX      1e18     /* counts: at most 1e18 */
#define UNITS_COUNT_MIN      1e-6     /* ... and 0 or at least 1e-6 */
#define UNITS_BYTES_MAX      1e18     /* sizes: at most 1 EB */
#define UNITS_BYTES_MIN      1.0      /* ... and 0 or at least 1 byte */
#define UNITS_BANDWIDTH_MAX  1e15     /* bandwidths: at most 1 PB/s */
#define UNITS_BANDWIDTH_MIN  1.0      /* ... and at least 1 B/s */
#define UNITS_DURATION_MAX   3155760000.0  /* durations: at most 100 years (365.25 d) */
#define UNITS_DURATION_MIN   1e-6     /* ... and 0 or at least 1 microsecond (tests/cli/run.sh uses 0.4ms) */
#define UNITS_FRACTION_MIN   1e-9     /* fractions: 0 or from 1e-9 to 1 */
#define UNITS_MONEY_MAX      1e12     /* money: at most 1e12 */
#define UNITS_MONEY_MIN      1e-9     /* ... and 0 or at least 1e-9 */

/* Plain or suffixed count: 512, 7e9, 32K, 7B (=7e9), 1.5T, 3M. */
int units_parse_count(const char *s, double *out, char *err, size_t errlen);

/* Byte size: 512 (bytes), 24GB/24G (1e9), 1.5GiB (2^30), 512MiB, 2TB. */
int units_parse_bytes(const char *s, double *out, char *err, size_t errlen);

/* Bandwidth in bytes per second: 20GB/s, 900GB/s, 100Gb/s (bits), 25Gbit/s. */
int units_parse_bandwidth(const char *s, double *out, char *err, size_t errlen);

/* Duration in seconds: 500ms, 90s, 30m, 6h, 2d, 1w, 1.5h. A bare number
 * is refused ("3": seconds or days?) with "expected a duration with a
 * unit, e.g. 3d ..."; only "0" needs no unit. */
int units_parse_duration(const char *s, double *out, char *err, size_t errlen);

/* Fraction in [0,1]: 0.4, 40%. */
int units_parse_fraction(const char *s, double *out, char *err, size_t errlen);

/* Whole number in [min,max]: 512, or with a count suffix 4k, 1.5M, 2B
 * (k = 1000) when the product is whole. Digits too many for a long are
 * refused, never saturated. A '-' is accepted only when min < 0. */
int units_parse_int(const char *s, long min, long max, long *out,
		    char *err, size_t errlen);

/* As units_parse_int(); flags UNITS_INT_K1024 reads the suffixes the
 * model-card way for token lengths: 4k = 4096, 128k = 131072, 1M = 2^20. */
#define UNITS_INT_K1024 1u
int units_parse_int_ex(const char *s, long min, long max, unsigned flags, long *out,
		       char *err, size_t errlen);

/* Money: 300, $300, 300USD, 300 CNY, ¥2000. code gets the ISO code ("USD"
 * when none is written; "CNY" for ¥). */
int units_parse_money(const char *s, double *amount, char code[8], char *err, size_t errlen);
/* Whether a money value names its currency ("$5", "¥5", "5CNY"), or is a
 * bare amount ("5") that takes the answer's display currency. */
bool units_money_has_code(const char *s);

/* A plain decimal number with an optional '-' (data files): no hex, inf,
 * nan or suffix, finite. Returns 0 and stores it, or -1. */
int units_scan_number(const char *s, double *out);

/* Sample lengths "MEAN+-SD" (digits first, a mean of 1 to 1e9, an sd of 0
 * to 1e9): 0 and both stored, or -1. */
int units_parse_spread(const char *s, double *mean, double *sd);

/* Boolean: true/false, yes/no, on/off, 1/0. */
int units_parse_bool(const char *s, int *out, char *err, size_t errlen);

/* Formatters write into buf (n bytes) and return buf. They never print
 * inf or nan ("-" instead) nor a negative zero ("-0.00" prints as 0.00). */
char *units_fmt_bytes(double bytes, char *buf, size_t n);     /* "13.48 GB" */
char *units_fmt_count(double count, char *buf, size_t n);     /* "6.74B" */
char *units_fmt_duration(double sec, char *buf, size_t n);    /* "14.6 d" */
char *units_fmt_duration_short(double sec, char *buf, size_t n); /* "9.2 d" */
char *units_fmt_flops(double flops, char *buf, size_t n);     /* "1.26e20" */

/* Drop the '-' of a formatted number that rounded to zero ("-0.00 GB"),
 * in place; buf is any snprintf result starting with the number. */
void units_fmt_fix(char *buf);

#endif
