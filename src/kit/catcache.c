/*
 * catcache.c - where fetched catalogs live and what is recorded of each
 * (catcache.h).
 */
#include "kit/catcache.h"

#include "base/util.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int catcache_dir(char *buf, size_t n)
{
	const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (x && *x)
		return snprintf(buf, n, "%s/gpurent/catalogs", x) < (int)n ? 0 : -1;
	if (home && *home)
		return snprintf(buf, n, "%s/.cache/gpurent/catalogs", home) < (int)n ? 0 : -1;
	return -1;
}

static int digits(const char *s, size_t len, size_t at, size_t n, long *v)
{
	*v = 0;
	if (at + n > len)
		return -1;
	for (size_t i = at; i < at + n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		*v = *v * 10 + (s[i] - '0');
	}
	return 0;
}

double catcache_date(const char *s, size_t len)
{
	long y, m, d = 1;

	if (!s || digits(s, len, 0, 4, &y) || len < 7 || s[4] != '-' || digits(s, len, 5, 2, &m) || m < 1 || m > 12)
		return -1;
	if (len >= 10 && s[7] == '-' && !digits(s, len, 8, 2, &d)) {
		if (d < 1 || d > 31)
			return -1;
	} else if (len > 7 && s[7] >= '0' && s[7] <= '9') {
		return -1;
	}
	return (double)util_days_from_civil(y, m, d) * 86400.0;
}

double catcache_now(void)
{
	const char *v = getenv("GPURENT_NOW");
	char *end;
	double t;

	if (v && *v) {
		if ((t = catcache_date(v, strlen(v))) >= 0 && strlen(v) == 10)
			return t;
		errno = 0;
		t = strtod(v, &end);
		if (!*end && !errno && t >= 0)
			return t;
	}
	return (double)time(NULL);
}

const char *catcache_day(double t, char *buf, size_t n)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (t < 0 || !gmtime_r(&tt, &tm))
		snprintf(buf, n, "-");
	else
		strftime(buf, n, "%Y-%m-%d", &tm);
	return buf;
}

long catcache_days(double from, double now)
{
	double d = (now - from) / 86400.0;

	return d > 0 ? (long)d : 0;
}

int catcache_meta_read(const char *path, struct catcache_meta *m)
{
	char mp[4200], line[1400];
	FILE *f;
	bool any = false;

	memset(m, 0, sizeof(*m));
	if (snprintf(mp, sizeof(mp), "%s.meta", path) >= (int)sizeof(mp) || !(f = fopen(mp, "r")))
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ' ');
		if (!v)
			continue;
		*v++ = '\0';
		v[strcspn(v, "\r\n")] = '\0';
		if (!strcmp(line, "url"))
			snprintf(m->url, sizeof(m->url), "%s", v);
		else if (!strcmp(line, "fetched"))
			m->fetched = strtod(v, NULL);
		else if (!strcmp(line, "checked"))
			m->checked = strtod(v, NULL);
		else if (!strcmp(line, "etag"))
			snprintf(m->etag, sizeof(m->etag), "%s", v);
		else if (!strcmp(line, "last_modified"))
			snprintf(m->last_modified, sizeof(m->last_modified), "%s", v);
		else if (!strcmp(line, "rows"))
			m->rows = strtol(v, NULL, 10);
		else
			continue;
		any = true;
	}
	fclose(f);
	if (!any || !(m->checked > 0)) {
		memset(m, 0, sizeof(*m));
		return -1;
	}
	return 0;
}

int catcache_meta_write(const char *path, const struct catcache_meta *m)
{
	char mp[4200], tmp[4300];
	FILE *f;
	int bad;

	if (snprintf(mp, sizeof(mp), "%s.meta", path) >= (int)sizeof(mp) ||
	    snprintf(tmp, sizeof(tmp), "%s.meta.tmp.%ld", path, (long)getpid()) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (!(f = fopen(tmp, "w")))
		return -1;
	fprintf(f, "url %s\nfetched %.0f\nchecked %.0f\n", m->url, m->fetched, m->checked);
	if (m->etag[0])
		fprintf(f, "etag %s\n", m->etag);
	if (m->last_modified[0])
		fprintf(f, "last_modified %s\n", m->last_modified);
	fprintf(f, "rows %ld\n", m->rows);
	bad = fflush(f) || fsync(fileno(f));
	bad |= fclose(f);
	if (bad || rename(tmp, mp)) {
		int e = errno;
		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}
