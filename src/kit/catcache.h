/*
 * catcache.h - the catalogs `gpurent catalog update` fetched: where they
 * are ($XDG_CACHE_HOME/gpurent/catalogs, else ~/.cache/gpurent/catalogs),
 * the record kept beside each (FILE.meta: where it came from, when, the
 * server's ETag and Last-Modified) and the clock prices are aged by
 * (docs/offers.md "Fetched catalogs").
 */
#ifndef GPURENT_KIT_CATCACHE_H
#define GPURENT_KIT_CATCACHE_H

#include <stddef.h>

/* The cache folder into buf; 0, or -1 when neither XDG_CACHE_HOME nor
 * HOME is set. The folder need not exist. */
int catcache_dir(char *buf, size_t n);

/* What FILE.meta says of FILE. */
struct catcache_meta {
	char url[1024];            /* the URL asked for (no query: keys never go in one) */
	double fetched;            /* when its bytes arrived (seconds since 1970) */
	double checked;            /* when the source last confirmed it (a 200 or a 304) */
	char etag[256], last_modified[128];
	long rows;                 /* data rows it had when stored */
};

/* Read path's record (path + ".meta"); 0, or -1 when there is none or it
 * does not read as one (then m is zeroed). */
int catcache_meta_read(const char *path, struct catcache_meta *m);

/* Write path's record through a temporary file and a rename. 0 or -1 (errno). */
int catcache_meta_write(const char *path, const struct catcache_meta *m);

/*
 * Now, for ageing prices: GPURENT_NOW when set (YYYY-MM-DD, midnight UTC,
 * or seconds since 1970: the tests fix the clock so that a plan's text
 * stays the same from day to day), else the system clock.
 */
double catcache_now(void);

/* "YYYY-MM-DD" or "YYYY-MM" (the first of the month) at the start of s
 * (len bytes) as seconds since 1970 UTC; -1 when it is neither. */
double catcache_date(const char *s, size_t len);

/* "YYYY-MM-DD" (UTC) of t into buf (n bytes); "-" when t < 0. Returns buf. */
const char *catcache_day(double t, char *buf, size_t n);

/* An age in days, for people: "today" is under one day. */
long catcache_days(double from, double now);

#endif
