/*
 * offers_load.c - finding, mapping and loading price catalogs (offers_load.h).
 */
#include "cmd/plan/offers_load.h"
#include "os/progress.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/text/csv.h"
#include "kit/common.h"
#include "kit/config.h"
#include "kit/catcache.h"
#include "base/i18n.h"
#include "base/out.h"

static void print_bad(void *ctx, const char *msg)
{
	struct offers_ctx *c = ctx;

	c->bad_rows++;
	msg_error("%s", msg);   /* the message quotes catalog text: msg.h escapes it */
}

int offers_init(struct offers_ctx *c, const char *cmd)
{
	const char *buf, *path;
	char *owned, err[512];
	size_t len;
	int rc;

	memset(c, 0, sizeof(*c));
	c->cmd = cmd;
	offer_set_init(&c->set);
	if ((rc = common_load_data(&c->gdb, NULL)))
		return rc;
	if ((rc = common_data_file("currencies.csv", &buf, &len, &owned, &path)))
		goto out_fail;
	rc = currency_table_load(&c->currencies, buf, len, path, err, sizeof(err));
	free(owned);
	if (rc) {
		msg_error("%s", err);
		rc = EXIT_USAGE;
		goto out_fail;
	}
	return 0;
out_fail:
	gpu_db_free(&c->gdb);
	currency_table_free(&c->currencies);
	return rc;
}

int offers_set_rate(struct offers_ctx *c, const char *arg)
{
	char err[256];

	if (currency_set_rate(&c->currencies, arg, err, sizeof(err)))
		return msg_usage(_("--rate: %s"), err);
	return 0;
}

double offers_rate(const struct offers_ctx *c, const char *code)
{
	double r = currency_to_usd(&c->currencies, code);

	return r > 0 ? r : 0;
}

char *offers_rate_note(const struct currency *cu, char *buf, size_t n)
{
	if (!cu->line) {
		if (config_applied("rate"))
			return config_rate_note(buf, n);
		snprintf(buf, n, "--rate");
		return buf;
	}
	char file[4200], src[sizeof(cu->source) * 4 + 1], fesc[sizeof(file)];

	/* the file the row came from (--data-dir), escaped as the source text is */
	snprintf(file, sizeof(file), "%s/currencies.csv", common_data_dir ? common_data_dir : "data");
	out_safe(file, strlen(file), fesc, sizeof(fesc));
	/* the row's citation, not its own English words after it ("...(url): 7.1920
	 * yuan per USD on ..."): they restate the rate and the date the note
	 * already gives, in no reader's language; the file and line say where they are */
	{
		const char *cut = strstr(cu->source, "): ");
		size_t len = cut ? (size_t)(cut - cu->source) + 1 : strlen(cu->source);
		out_safe(cu->source, len, src, sizeof(src));
	}
	if (cu->date[0] && src[0])
		snprintf(buf, n, _("%s line %zu, %s, %s"), fesc, cu->line, cu->date, src);
	else if (cu->date[0] || src[0])
		snprintf(buf, n, _("%s line %zu, %s"), fesc, cu->line, cu->date[0] ? cu->date : src);
	else
		snprintf(buf, n, _("%s line %zu"), fesc, cu->line);
	return buf;
}

/* Map a file read-only; the mapping lives until offers_free(). */
static int map_file(struct offers_ctx *c, const char *path, const char **buf, size_t *len)
{
	struct stat st;
	char err[4200];
	void *m;
	void **nm;
	size_t *nl;
	int fd = common_open_regular(path, &st, err, sizeof(err));

	if (fd < 0) {
		msg_error(_("%s"), err);
		return EXIT_USAGE;
	}
	if (st.st_size == 0) {
		close(fd);
		*buf = "";
		*len = 0;
		return 0;
	}
#ifdef MAP_POPULATE
	/* map every page now, once: the loader's threads then never fault */
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
#else
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
#endif
	close(fd);
	if (m == MAP_FAILED) {
		msg_error(_("%s: cannot map: %s"), path, strerror(errno));
		return EXIT_RUNTIME;
	}
	madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
	nm = realloc(c->maps, (c->nmaps + 1) * sizeof(*nm));
	nl = realloc(c->map_len, (c->nmaps + 1) * sizeof(*nl));
	if (nm)
		c->maps = nm;
	if (nl)
		c->map_len = nl;
	if (!nm || !nl) {
		munmap(m, (size_t)st.st_size);
		msg_error(_("out of memory"));
		return EXIT_RUNTIME;
	}
	c->maps[c->nmaps] = m;
	c->map_len[c->nmaps++] = (size_t)st.st_size;
	*buf = m;
	*len = (size_t)st.st_size;
	return 0;
}

/* The provider a SkyPilot catalog is for: the folder holding vms.csv, or
 * the file's own name for other CSVs. Copied into out. */
static void provider_of(const char *path, char *out, size_t n)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;

	if (!strcmp(base, "vms.csv") && slash) {
		const char *p = slash;
		while (p > path && p[-1] != '/')
			p--;
		snprintf(out, n, "%.*s", (int)(slash - p), p);
	} else {
		snprintf(out, n, "%.*s", (int)strcspn(base, "."), base);
	}
}

/* Record where the catalogs load_path() just added came from. */
static void note_origins(struct offers_ctx *c, const char *path)
{
	struct offers_origin *no, org = {.kind = c->loading, .time = -1};
	struct catcache_meta m;
	struct stat st;

	if (c->norigins >= c->set.nreports)
		return;
	/* a fetched catalog keeps its record also when named (--catalog) */
	if (org.kind != ORIGIN_BUNDLED && !catcache_meta_read(path, &m)) {
		org.time = m.checked;
		snprintf(org.url, sizeof(org.url), "%s", m.url);
	} else if (org.kind != ORIGIN_BUNDLED && !stat(path, &st)) {
		org.time = (double)st.st_mtime;
	}
	if (!(no = realloc(c->origins, c->set.nreports * sizeof(*no))))
		return;
	c->origins = no;
	while (c->norigins < c->set.nreports)
		c->origins[c->norigins++] = org;
}

double offers_price_time(const struct offers_ctx *c, const struct offer *o)
{
	double t = o->date.len ? catcache_date(o->date.p, o->date.len) : -1;

	if (t >= 0)
		return t;
	return o->file < c->norigins ? c->origins[o->file].time : -1;
}

static int load_path(struct offers_ctx *c, const char *path, const char *buf, size_t len,
		     bool copy, catalog_keep_fn keep, catalog_keep_fn match, void *ctx)
{
	struct catalog_opts o;
	char err[512], prov[64];
	char *name;
	int rc;

	provider_of(path, prov, sizeof(prov));
	/* offers keep pointers to the provider and file names: give them a home */
	name = malloc(strlen(path) + strlen(prov) + 2);
	if (!name) {
		msg_error(_("out of memory"));
		return EXIT_RUNTIME;
	}
	strcpy(name, prov);
	strcpy(name + strlen(prov) + 1, path);
	memset(&o, 0, sizeof(o));
	o.gpus = &c->gdb;
	o.currencies = &c->currencies;
	o.bad_row = print_bad;
	o.bad_ctx = c;
	o.keep = keep;
	o.match = match;
	/* two threads for large catalogs; GPURENT_THREADS=1 turns it off
	 * (tests compare both ways) */
	o.threads = getenv("GPURENT_THREADS") ? atoi(getenv("GPURENT_THREADS")) : 2;
	o.ctx = ctx;
	o.provider = name;
	o.trust_catalog = c->trust_catalog;
	rc = catalog_load(&c->set, buf, len, copy, name + strlen(prov) + 1, &o, err, sizeof(err));
	note_origins(c, path);
	/* the name must outlive the set: park it in the set's arena list */
	{
		char **na = realloc(c->set.arena, (c->set.narena + 1) * sizeof(*na));
		if (na) {
			c->set.arena = na;
			c->set.arena[c->set.narena++] = name;
		} else {
			free(name);
		}
	}
	if (rc) {
		msg_error(_("%s"), err);
		return EXIT_USAGE;
	}
	return 0;
}

static bool is_csv(const char *name)
{
	size_t n = strlen(name);
	return n > 4 && !strcasecmp(name + n - 4, ".csv");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Load a file (any name: it was named), or the vms.csv files of a folder
 * and its subfolders (3 levels); *found counts the catalogs loaded. */
static int load_any(struct offers_ctx *c, const char *path, int depth, size_t *found,
		    catalog_keep_fn keep, catalog_keep_fn match, void *ctx)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;
	int rc = 0;

	if (stat(path, &st)) {
		msg_error(_("%s: cannot open: %s"), path, strerror(errno));
		return EXIT_USAGE;
	}
	if (!S_ISDIR(st.st_mode)) {
		const char *buf;
		size_t len;
		if ((rc = map_file(c, path, &buf, &len)))
			return rc;
		(*found)++;
		rc = load_path(c, path, buf, len, false, keep, match, ctx);
		if (c->pr)
			progress_add(c->pr, 1, len);
		return rc;
	}
	if (depth > 3)
		return 0;
	if (!(d = opendir(path))) {
		msg_error(_("%s: cannot read folder: %s"), path, strerror(errno));
		return EXIT_USAGE;
	}
	while ((e = readdir(d))) {
		char *full, **nn;
		struct stat es;
		bool vms = !strcmp(e->d_name, "vms.csv");
		if (e->d_name[0] == '.')
			continue;
		full = malloc(strlen(path) + strlen(e->d_name) + 2);
		if (!full)
			break;
		sprintf(full, "%s%s%s", path, path[strlen(path) - 1] == '/' ? "" : "/", e->d_name);
		if (stat(full, &es)) {
			free(full);
			continue;
		}
		if (!S_ISDIR(es.st_mode) && is_csv(e->d_name) && !vms) {
			/* SkyPilot's images.csv, metadata.csv, accelerators.csv,
			 * slurm/pricing.csv...: not catalogs, never opened */
			c->ignored_csv++;
			free(full);
			continue;
		}
		if (vms && !S_ISREG(es.st_mode) && !S_ISDIR(es.st_mode)) {
			/* a FIFO named like a catalog: never opened (it could block), said */
			c->skipped_special++;
			(*found)++;   /* the folder has its catalog, unreadable as it is */
			msg_note(_("note: %s: skipped: expected a regular file, got %s"), full,
				 common_file_kind(es.st_mode));
			free(full);
			continue;
		}
		if (!S_ISDIR(es.st_mode) && !vms) {
			free(full);   /* not a CSV at all (README.md ...) */
			continue;
		}
		nn = realloc(names, (n + 1) * sizeof(*nn));
		if (!nn) {
			free(full);
			break;
		}
		names = nn;
		names[n++] = full;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);   /* stable order: sorted */
	for (size_t i = 0; i < n; i++) {
		if (!rc)
			rc = load_any(c, names[i], depth + 1, found, keep, match, ctx);
		free(names[i]);
	}
	free(names);
	return rc;
}

/* SkyPilot's catalog schema version of a folder name: N of "vN" (digits
 * only, as sky/catalog/constants.py's CATALOG_SCHEMA_VERSION 'v7' and the
 * skypilot-catalog repository's catalogs/v8/), else -1. */
static long version_of(const char *name)
{
	char *end;
	long v;

	if (name[0] != 'v' || !(name[1] >= '0' && name[1] <= '9'))
		return -1;
	errno = 0;
	v = strtol(name + 1, &end, 10);
	return *end || errno ? -1 : v;
}

/* ~/.sky/catalogs/vN with the highest N (v10 > v9) when a SkyPilot user has it. */
static int sky_catalog_dir(char *out, size_t n)
{
	const char *home = getenv("HOME");
	char base[2048];
	DIR *d;
	struct dirent *e;
	char best[256] = "";
	long bestv = -1;

	if (!home)
		return -1;
	snprintf(base, sizeof(base), "%s/.sky/catalogs", home);
	if (!(d = opendir(base)))
		return -1;
	while ((e = readdir(d))) {
		long v = version_of(e->d_name);
		if (v > bestv) {
			bestv = v;
			snprintf(best, sizeof(best), "%s", e->d_name);
		}
	}
	closedir(d);
	if (!best[0])
		return -1;
	snprintf(out, n, "%s/%s", base, best);
	return 0;
}

/* A folder whose CSVs are none of them a vms.csv: noted, or, when nothing
 * at all loaded, the error (exit 2). */
static int no_catalog(const struct offers_ctx *c, const char *dir, bool fatal)
{
	if (fatal)
		return msg_usage(_("%s: no catalog: no vms.csv (SkyPilot) in this folder or its subfolders, "
				   "and no offer CSV named (%zu other CSV files ignored)"), dir, c->ignored_csv);
	msg_note(_("note: %s: no vms.csv (SkyPilot catalog) in this folder or its subfolders"), dir);
	return 0;
}

/* The bytes and files load_any() will read under path (the same rules:
 * a file as given, in folders only vms.csv, three levels down), for the
 * progress line's total. */
static void catalog_size(const char *path, int depth, bool top, uint64_t *bytes, uint64_t *files)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	if (stat(path, &st))
		return;
	if (!S_ISDIR(st.st_mode)) {
		if (S_ISREG(st.st_mode) && (top || !strcmp(base, "vms.csv"))) {
			*bytes += (uint64_t)st.st_size;
			(*files)++;
		}
		return;
	}
	if (depth > 3 || !(d = opendir(path)))
		return;
	while ((e = readdir(d))) {
		char full[4096];
		if (e->d_name[0] == '.')
			continue;
		if (snprintf(full, sizeof(full), "%s/%s", path, e->d_name) >= (int)sizeof(full))
			continue;
		catalog_size(full, depth + 1, false, bytes, files);
	}
	closedir(d);
}

static int load_all(struct offers_ctx *c, char **paths, size_t n, catalog_keep_fn keep,
		    catalog_keep_fn match, void *ctx);

/* load_all() with the progress line on (plan and offers over large catalog
 * trees; a terminal only, after a second). */
int offers_load(struct offers_ctx *c, char **paths, size_t n, catalog_keep_fn keep,
		catalog_keep_fn match, void *ctx)
{
	struct progress pr = {.label = c->cmd ? c->cmd : "offers", .units = _("catalogs")};
	char sky[sizeof(c->sky_dir)];
	int rc;

	/* the totals cost a walk of the folders: only for a line that shows */
	for (size_t i = 0; i < n && progress_wanted(); i++)
		catalog_size(paths[i], 0, true, &pr.total_bytes, &pr.total_units);
	if (!n && progress_wanted() && !sky_catalog_dir(sky, sizeof(sky)))
		catalog_size(sky, 0, true, &pr.total_bytes, &pr.total_units);
	c->pr = &pr;
	progress_begin(&pr);
	rc = load_all(c, paths, n, keep, match, ctx);
	progress_end(&pr);
	c->pr = NULL;
	return rc;
}

/* The fetched copy of SkyPilot provider name (cache/skypilot/NAME/vms.csv) exists? */
static bool fetched_has(const struct offers_ctx *c, const char *name)
{
	char p[8300];
	struct stat st;

	return c->cache_dir[0] &&
	       snprintf(p, sizeof(p), "%s/skypilot/%s/vms.csv", c->cache_dir, name) < (int)sizeof(p) &&
	       !stat(p, &st) && S_ISREG(st.st_mode);
}

/* `gpurent catalog update`'s cache: its skypilot/ and vast/ folders, in
 * that order, when they exist (nothing there is no error). */
static int load_fetched(struct offers_ctx *c, catalog_keep_fn keep, catalog_keep_fn match, void *ctx)
{
	static const char *const sources[] = {"skypilot", "vast"};
	struct stat st;
	int rc;

	if (catcache_dir(c->cache_dir, sizeof(c->cache_dir)) || stat(c->cache_dir, &st) || !S_ISDIR(st.st_mode)) {
		c->cache_dir[0] = '\0';
		return 0;
	}
	for (size_t i = 0; i < sizeof(sources) / sizeof(*sources); i++) {
		char p[4200];
		size_t found = 0;
		snprintf(p, sizeof(p), "%s/%s", c->cache_dir, sources[i]);
		if (stat(p, &st) || !S_ISDIR(st.st_mode))
			continue;
		if ((rc = load_any(c, p, 0, &found, keep, match, ctx)))
			return rc;
	}
	return 0;
}

/* ~/.sky/catalogs/vN, less the providers the cache has a fetched copy of
 * (that copy is the newer: an offer is never read twice). With no fetched
 * copy it is read whole, as load_any() reads any folder. */
static int load_sky(struct offers_ctx *c, size_t *found, catalog_keep_fn keep, catalog_keep_fn match, void *ctx)
{
	DIR *d;
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;
	int rc = 0;

	if (!c->cache_dir[0] || !(d = opendir(c->sky_dir)))
		return load_any(c, c->sky_dir, 0, found, keep, match, ctx);
	while ((e = readdir(d))) {
		char full[8300], **nn;
		struct stat st;
		if (e->d_name[0] == '.' ||
		    snprintf(full, sizeof(full), "%s/%s", c->sky_dir, e->d_name) >= (int)sizeof(full) || stat(full, &st))
			continue;
		if (!S_ISDIR(st.st_mode)) {
			if (is_csv(e->d_name))
				c->ignored_csv++;   /* a catalog lives in its provider's folder */
			continue;
		}
		if (fetched_has(c, e->d_name)) {
			c->sky_shadowed++;
			continue;
		}
		if (!(nn = realloc(names, (n + 1) * sizeof(*nn))) || !(nn[n] = strdup(full))) {
			names = nn ? nn : names;
			break;
		}
		names = nn;
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (!rc)
			rc = load_any(c, names[i], 1, found, keep, match, ctx);
		free(names[i]);
	}
	free(names);
	return rc;
}

static int load_all(struct offers_ctx *c, char **paths, size_t n, catalog_keep_fn keep,
		    catalog_keep_fn match, void *ctx)
{
	const char *empty = NULL;
	size_t found;
	int rc;

	if (n == 0) {
		const char *buf, *path;
		char *owned;
		size_t len;
		if ((rc = common_data_file("offers.csv", &buf, &len, &owned, &path)))
			return rc;
		c->loading = ORIGIN_BUNDLED;
		rc = load_path(c, path, buf, len, owned != NULL, keep, match, ctx);
		free(owned);
		if (rc)
			return rc;
		c->loading = ORIGIN_FETCHED;
		if ((rc = load_fetched(c, keep, match, ctx)))
			return rc;
		c->loading = ORIGIN_SKY;
		if (!sky_catalog_dir(c->sky_dir, sizeof(c->sky_dir))) {
			found = 0;
			if ((rc = load_sky(c, &found, keep, match, ctx)))
				return rc;
			if (!found && !c->sky_shadowed)
				no_catalog(c, c->sky_dir, false);
		}
		offer_set_mark_outliers(&c->set);
		return 0;
	}
	c->loading = ORIGIN_NAMED;
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		size_t ignored = c->ignored_csv;
		found = 0;
		if ((rc = load_any(c, paths[i], 0, &found, keep, match, ctx)))
			return rc;
		/* a folder of CSVs none of which is a catalog (images.csv ...);
		 * a folder with no CSV at all is simply no offers, as before */
		if (!found && c->ignored_csv > ignored && !stat(paths[i], &st) && S_ISDIR(st.st_mode)) {
			if (!empty)
				empty = paths[i];
			if (i + 1 < n || c->set.nreports)
				no_catalog(c, paths[i], false);
		}
	}
	if (!c->set.nreports && empty)
		return no_catalog(c, empty, true);
	offer_set_mark_outliers(&c->set);
	return 0;
}

void offers_report(FILE *f, const struct offers_ctx *c)
{
	for (size_t i = 0; i < c->set.nreports; i++) {
		const struct catalog_report *r = &c->set.reports[i];
		fputs("  ", f);
		out_puts_safe(f, r->path);
		fprintf(f, _(" (%s): %zu rows, %zu offers"), r->format, r->rows, r->loaded);
#define Q(field, what) if (r->field) fprintf(f, "; %zu " what, r->field)
		Q(hosts_joined, "host VM rows joined with their GPU rows");
		Q(cpu_only, "CPU-only skipped");
		Q(no_host, "GPU rows without a host VM in their zone skipped");
		Q(missing_price, "without a price skipped");
		Q(duplicates, "exact duplicates skipped");
		Q(bad_rows, "bad rows skipped");
		Q(spot_placeholder, "placeholder spot prices ignored");
		if (c->trust_catalog) {
			Q(spot_above_price, "spot prices at or above on-demand ignored (--trust-catalog)");
		} else {
			Q(spot_above_price, "rows with spot at or above on-demand: not ranked (the columns "
			  "may be swapped; --trust-catalog to rank them on on-demand)");
		}
		Q(mem_total_fixed, "with instance-total GPU memory divided");
		Q(mem_from_spec, "with missing or implausible GPU memory taken from gpus.csv");
		Q(spot_only, "spot-only (a spot price, no on-demand price: spot offers only)");
#undef Q
		if (r->unknown_gpu) {
			fprintf(f, _("; %zu with GPUs not in gpus.csv ("), r->unknown_gpu);
			out_puts_safe(f, r->unknown_names);
			fputc(')', f);
		}
		fputc('\n', f);
	}
	if (c->skipped_special)
		fprintf(f, _("  %zu non-regular file%s (FIFOs, sockets, devices) named vms.csv skipped\n"),
			c->skipped_special, c->skipped_special == 1 ? "" : "s");
	if (c->ignored_csv)
		fprintf(f, _("  %zu other CSV file%s in catalog folders ignored (only vms.csv files are catalogs)\n"),
			c->ignored_csv, c->ignored_csv == 1 ? "" : "s");
}

void offers_free(struct offers_ctx *c)
{
	offer_set_free(&c->set);
	for (size_t i = 0; i < c->nmaps; i++)
		munmap(c->maps[i], c->map_len[i]);
	free(c->maps);
	free(c->map_len);
	free(c->origins);
	gpu_db_free(&c->gdb);
	currency_table_free(&c->currencies);
}
