/*
 * units.h - parse and format the quantities gpurent reads from users:
 * counts ("7e9", "7B"), byte sizes ("24GB", "1.5GiB"), bandwidths
 * ("20GB/s", "100Gb/s"), durations ("90s", "30m", "6h", "2d") and
 * fractions ("10%", "0.1"). One parser per kind, used everywhere.
 */
#ifndef GPURENT_UNITS_H
#define GPURENT_UNITS_H

#include <stddef.h>

/*
 * Each parser returns 0 and stores the value in *out, or returns -1 and
 * writes what was expected into err (errlen bytes, always terminated).
 * Parsers reject NaN, infinity, negative values and trailing garbage.
 */

/* Plain or suffixed count: 512, 7e9, 32K, 7B (=7e9), 1.5T, 3M. */
int units_parse_count(const char *s, double *out, char *err, size_t errlen);

/* Byte size: 512 (bytes), 24GB/24G (1e9), 1.5GiB (2^30), 512MiB, 2TB. */
int units_parse_bytes(const char *s, double *out, char *err, size_t errlen);

/* Bandwidth in bytes per second: 20GB/s, 900GB/s, 100Gb/s (bits), 25Gbit/s. */
int units_parse_bandwidth(const char *s, double *out, char *err, size_t errlen);

/* Duration in seconds: 90 (seconds), 90s, 30m, 6h, 2d, 1w, 1.5h. */
int units_parse_duration(const char *s, double *out, char *err, size_t errlen);

/* Fraction in [0,1]: 0.4, 40%. */
int units_parse_fraction(const char *s, double *out, char *err, size_t errlen);

/* Whole number in [min,max]. */
int units_parse_int(const char *s, long min, long max, long *out,
		    char *err, size_t errlen);

/* Money: 300, $300, 300USD, 300 CNY, ¥2000. code gets the ISO code ("USD"
 * when none is written; "CNY" for ¥). */
int units_parse_money(const char *s, double *amount, char code[8], char *err, size_t errlen);

/* Boolean: true/false, yes/no, on/off, 1/0. */
int units_parse_bool(const char *s, int *out, char *err, size_t errlen);

/* Formatters write into buf (n bytes) and return buf. */
char *units_fmt_bytes(double bytes, char *buf, size_t n);     /* "13.48 GB" */
char *units_fmt_count(double count, char *buf, size_t n);     /* "6.74B" */
char *units_fmt_duration(double sec, char *buf, size_t n);    /* "14.6 d" */
char *units_fmt_duration_short(double sec, char *buf, size_t n); /* "9.2 d" */
char *units_fmt_flops(double flops, char *buf, size_t n);     /* "1.26e20" */

#endif
