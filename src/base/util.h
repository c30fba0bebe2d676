/*
 * util.h - the few helpers every layer needs, in one place: ARRAY_SIZE,
 * growing a dynamic array with an overflow check, a calendar date's check
 * and the two clocks.
 * Header-only (static inline) so that src/core, the unit tests (which link
 * the core alone) and the test programs can use it without another object.
 * The core uses ARRAY_SIZE and util_grow only: reading a clock is the
 * command layer's business (src/core has no I/O and no time of day).
 */
#ifndef GPURENT_UTIL_H
#define GPURENT_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* Number of elements of an array (not a pointer: the division would lie). */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Make *p hold at least `need` elements of `elem` bytes: when *cap is
 * smaller, realloc to max(need, 2 * *cap, 8) elements and update *cap.
 * Returns 0, or -1 (nothing changed: *p and *cap stay valid and owned by
 * the caller) when memory runs out or need * elem would exceed
 * PTRDIFF_MAX (the largest object C allows), or elem is 0.
 * *p is owned by the caller before and after (free() it).
 */
static inline int util_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap, max;
	void *np;

	if (need <= *cap)
		return 0;
	if (!elem)
		return -1;
	/* no object may exceed PTRDIFF_MAX bytes (pointer differences must fit) */
	max = (size_t)PTRDIFF_MAX / elem;
	if (need > max)
		return -1;
	ncap = *cap > max / 2 ? max : 2 * *cap;
	if (ncap < 8)
		ncap = 8 < max ? 8 : max;
	if (ncap < need)
		ncap = need;
	if (!(np = realloc(*p, ncap * elem)))
		return -1;
	*p = np;
	*cap = ncap;
	return 0;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
 * days_from_civil, http://howardhinnant.github.io/date_algorithms.html). */
static inline long util_days_from_civil(long y, long m, long d)
{
	long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/*
 * Is s exactly a calendar date YYYY-MM-DD (ten characters, digits and two
 * dashes, a real day of its month, leap years counted, year 1900-9999)?
 */
static inline int util_iso_date(const char *s)
{
	static const unsigned char mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int y = 0, m, d;

	for (int i = 0; i < 10; i++)
		if (i == 4 || i == 7 ? s[i] != '-' : (s[i] < '0' || s[i] > '9'))
			return 0;
	if (s[10])
		return 0;
	for (int i = 0; i < 4; i++)
		y = y * 10 + (s[i] - '0');
	m = (s[5] - '0') * 10 + (s[6] - '0');
	d = (s[8] - '0') * 10 + (s[9] - '0');
	if (y < 1900 || m < 1 || m > 12 || d < 1 || d > mdays[m - 1])
		return 0;
	return !(m == 2 && d == 29 && (y % 4 || (y % 100 == 0 && y % 400)));
}

/* Seconds on CLOCK_MONOTONIC: for durations and deadlines, never for dates. */
static inline double util_now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Seconds since the Unix epoch (CLOCK_REALTIME): for timestamps written down. */
static inline double util_now_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif
