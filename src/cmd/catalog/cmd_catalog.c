/*
 * cmd_catalog.c - `gpurent catalog update [SOURCE...]` fetches price
 * catalogs into the cache (src/kit/catcache.h), checked before they
 * replace a good copy; `gpurent catalog list` names every catalog offers
 * and plan read, with its rows, source and age (docs/offers.md "Fetched
 * catalogs"). update is the one command that talks to the network.
 */
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/out.h"
#include "base/quote.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "cmd/plan/offers_load.h"
#include "core/market/catalog_vast.h"
#include "kit/catcache.h"
#include "kit/cmd.h"
#include "kit/common.h"
#include "kit/opt.h"
#include "os/http.h"
#include "os/progress.h"

static const char usage[] = N_(
	"usage: gpurent catalog update [SOURCE...] [--provider NAME[,NAME]]... [--url BASE]\n"
	"                              [--timeout DUR] [--retries N] [--force] [--progress | --quiet]\n"
	"       gpurent catalog list [--catalog PATH]... [--json]\n"
	"\n"
	"update fetches price catalogs into $XDG_CACHE_HOME/gpurent/catalogs\n"
	"(~/.cache/gpurent/catalogs), which offers and plan then read by default.\n"
	"It is the one command that uses the network; nothing fetches on its own.\n"
	"SOURCE (default skypilot):\n"
	"  skypilot  SkyPilot's hosted catalogs, BASE/catalogs/v8/PROVIDER/vms.csv\n"
	"            (BASE https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master)\n"
	"            for aws azure cudo do fluidstack gcp hyperbolic ibm lambda nebius oci\n"
	"            paperspace primeintellect runpod scp seeweb shadeform vast yotta\n"
	"            (--provider picks some)\n"
	"  vast      vast.ai's live offer search (POST BASE/api/v0/bundles/, BASE\n"
	"            https://console.vast.ai), stored as a SkyPilot vms.csv; a key, when\n"
	"            the account needs one, only from GPURENT_VAST_API_KEY\n"
	"Each file is written to a temporary file, checked (the loader's header,\n"
	"every row parses, at least one row, and the row count within a factor of 2\n"
	"of the previous copy unless --force) and renamed into place: a failed\n"
	"download never replaces a good copy. Requests are conditional (ETag,\n"
	"Last-Modified: HTTP 304 keeps the copy and dates it now). One update at a\n"
	"time (a lock). --url BASE replaces the root (a mirror); --timeout (default\n"
	"60s) bounds each attempt, --retries (default 2) the retries after a network\n"
	"error, a 5xx, 408 or 429.\n"
	"\n"
	"list names every catalog offers and plan read (--catalog as theirs), with\n"
	"its rows, where it came from and how old its prices are.\n"
	"\n"
	"Exit status: 0 every file stored or unchanged, 1 any failed (the others\n"
	"stored), 2 bad usage.\n");

/* SkyPilot's hosted catalogs (skypilot-org/skypilot sky/skylet/constants.py at
 * e8f691298eb50fdb73e7d50b54cf3b575c51c54c: HOSTED_CATALOG_DIR_URL, and
 * CATALOG_SCHEMA_VERSION = 'v8'; sky/catalog/common.py read_catalog() fetches
 * f'{HOSTED_CATALOG_DIR_URL}/{CATALOG_SCHEMA_VERSION}/{filename}'). */
#define SKY_ROOT "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master"
#define SKY_VERSION "v8"
/* ALL_CLOUDS of the same file, less kubernetes, ssh, slurm and vsphere
 * (the user's own clusters: no price list). MUST stay sorted. */
static const char *const sky_providers[] = {
	"aws", "azure", "cudo", "do", "fluidstack", "gcp", "hyperbolic", "ibm", "lambda", "nebius", "oci",
	"paperspace", "primeintellect", "runpod", "scp", "seeweb", "shadeform", "vast", "yotta",
};
/* vast-cli vast.py at 55679830a2c2adcf5c7fad08bf08717a9591062a: the server
 * (line 75, server_url_default), apiurl() prefixes /api/v0 (line 596), and
 * `search offers` POSTs its query to /bundles/ (lines 4413-4414). */
#define VAST_ROOT "https://console.vast.ai"
#define VAST_PATH "/api/v0/bundles/"
/* The CLI's default query (line 4352) with fetch_vast.py's own filters
 * (inet_down >= 100, disk_space >= 80; limit 10000), its default order
 * score- and type on-demand (lines 4236, 4245, 4375-4379); a key is sent
 * only when given (apiheaders(), lines 627-636). */
#define VAST_QUERY "{\"verified\": {\"eq\": true}, \"external\": {\"eq\": false}, \"rentable\": {\"eq\": true}, " \
	"\"rented\": {\"eq\": false}, \"inet_down\": {\"gte\": 100}, \"disk_space\": {\"gte\": 80}, " \
	"\"order\": [[\"score\", \"desc\"]], \"type\": \"on-demand\", \"allocated_storage\": 5.0, \"limit\": 10000}"
/* A stored copy is replaced only by one with between half and twice its
 * rows (an assumption: a catalog that halves or doubles between two
 * updates is more likely a broken export than a market). */
#define ROW_FACTOR 2.0
/* No catalog comes near this: the largest in ../shared/data/catalogs,
 * azure/vms.csv (56,671 rows), is 3.3 MB; 512 MiB only bounds a runaway answer. */
#define MAX_BYTES (512ull << 20)

struct target {
	const char *source, *provider;
	char url[1200], path[4200];
};

struct update {
	const char *base;
	double timeout_s;
	long retries;
	bool force;
	struct offers_ctx oc;      /* gpus.csv and currencies.csv, for the checks */
	char dir[4096];
	size_t stored, unchanged, failed;
};

static bool known_provider(const char *p)
{
	for (size_t i = 0; i < ARRAY_SIZE(sky_providers); i++)
		if (!strcmp(p, sky_providers[i]))
			return true;
	return false;
}

static int mkdirs(const char *path)
{
	char p[4200];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			if (mkdir(p, 0755) && errno != EEXIST)
				return -1;
			*s = '/';
		}
	return mkdir(p, 0755) && errno != EEXIST ? -1 : 0;
}

struct check {
	size_t bad;
	char first[600];
};

static void count_bad(void *ctx, const char *msg)
{
	struct check *k = ctx;

	if (!k->bad++)
		snprintf(k->first, sizeof(k->first), "%s", msg);
}

/* Is buf a catalog the loader reads whole? 0 with *rows, or -1 with why in err. */
static int check_catalog(struct update *u, const struct target *t, const char *buf, size_t len,
			 const struct catcache_meta *prev, size_t *rows, char *err, size_t errlen)
{
	struct offer_set set;
	struct catalog_opts o = {0};
	struct check k = {0};
	char lerr[600];
	int rc;

	offer_set_init(&set);
	o.gpus = &u->oc.gdb;
	o.currencies = &u->oc.currencies;
	o.bad_row = count_bad;
	o.bad_ctx = &k;
	o.provider = t->provider;
	o.threads = 1;
	rc = catalog_load(&set, buf, len, false, t->url, &o, lerr, sizeof(lerr));
	*rows = set.nreports ? set.reports[0].rows : 0;
	if (rc)
		snprintf(err, errlen, _("not a catalog gpurent reads: %s"), lerr);
	else if (strcmp(set.reports[0].format, "skypilot"))
		snprintf(err, errlen, _("expected a SkyPilot vms.csv, got a %s catalog"), set.reports[0].format);
	else if (k.bad)
		snprintf(err, errlen, Q_("%zu bad row, the first: %s", "%zu bad rows, the first: %s", k.bad), k.bad,
			 k.first);
	else if (!*rows)
		snprintf(err, errlen, _("no rows"));
	else if (!u->force && prev->rows > 0 &&
		 ((double)*rows * ROW_FACTOR < (double)prev->rows || (double)*rows > (double)prev->rows * ROW_FACTOR))
		snprintf(err, errlen, _("%zu rows where the stored copy has %ld (more than a factor of 2 apart; "
					"--force stores it)"), *rows, prev->rows);
	else
		rc = 1;
	offer_set_free(&set);
	return rc == 1 ? 0 : -1;
}

/* The fetched body (vast: converted) into *buf (owned); 0 or -1 with err. */
static int read_body(const struct target *t, int fd, char **buf, size_t *len, char *err, size_t errlen)
{
	struct stat st;
	char *b;
	size_t got = 0;

	if (fstat(fd, &st) || lseek(fd, 0, SEEK_SET) < 0 || !(b = malloc((size_t)st.st_size + 1))) {
		snprintf(err, errlen, _("cannot read the download: %s"), strerror(errno));
		return -1;
	}
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, b + got, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (strcmp(t->source, "vast")) {
		*buf = b;
		*len = got;
		return 0;
	}
	{
		struct strbuf out = STRBUF_INIT;
		size_t rows, skipped;
		char jerr[300];
		int rc = catalog_vast_to_csv(b, got, "vast's answer", &out, &rows, &skipped, jerr, sizeof(jerr));
		free(b);
		if (rc) {
			strbuf_release(&out);
			snprintf(err, errlen, _("not vast's search answer: %s"), jerr);
			return -1;
		}
		*buf = out.p;
		*len = out.len;
	}
	return 0;
}

/* Write buf to a temporary file beside t->path, then rename it into place. */
static int store(const struct target *t, const char *buf, size_t len, char *err, size_t errlen)
{
	char tmp[4300], dir[4200], *slash;
	int fd, dfd, bad = 0;
	size_t off = 0;

	snprintf(tmp, sizeof(tmp), "%.*s/.vms.csv.new.%ld", (int)(strrchr(t->path, '/') - t->path), t->path,
		 (long)getpid());
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
		snprintf(err, errlen, _("%s: cannot write: %s"), tmp, strerror(errno));
		return -1;
	}
	while (off < len && !bad) {
		ssize_t w = write(fd, buf + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			bad = 1;
		else
			off += (size_t)w;
	}
	bad |= fsync(fd) != 0;
	bad |= close(fd) != 0;
	if (bad || rename(tmp, t->path)) {
		snprintf(err, errlen, _("%s: cannot write: %s"), t->path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s", t->path);
	if ((slash = strrchr(dir, '/')))
		*slash = '\0';
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		fsync(dfd);   /* the rename itself survives a crash */
		close(dfd);
	}
	return 0;
}

static void say_fail(struct update *u, const struct target *t, const char *why, bool had)
{
	u->failed++;
	msg_error(_("%s/%s: %s; %s"), t->source, t->provider, why,
		  had ? _("the stored copy is kept") : _("nothing stored"));
	if (!had) {
		char dir[4200];
		snprintf(dir, sizeof(dir), "%.*s", (int)(strrchr(t->path, '/') - t->path), t->path);
		rmdir(dir);   /* the provider's folder made for it, when empty */
	}
}

/* Fetch, check and store one target. */
static void update_one(struct update *u, const struct target *t, struct progress *pr)
{
	struct catcache_meta prev, m;
	struct http_req r = {0};
	struct http_resp resp;
	struct stat st;
	char tmp[4300], err[1400], shown[1300], *buf = NULL, *key = NULL, *auth = NULL;
	bool had = !stat(t->path, &st) && S_ISREG(st.st_mode), have_meta;
	size_t len, rows;
	int fd;

	snprintf(tmp, sizeof(tmp), "%.*s", (int)(strrchr(t->path, '/') - t->path), t->path);
	if (mkdirs(tmp)) {
		snprintf(err, sizeof(err), _("%s: cannot create: %s"), tmp, strerror(errno));
		say_fail(u, t, err, had);
		return;
	}
	have_meta = !catcache_meta_read(t->path, &prev);
	if (!have_meta)
		memset(&prev, 0, sizeof(prev));
	http_url_shown(t->url, shown, sizeof(shown));
	snprintf(tmp, sizeof(tmp), "%.*s/.download.%ld", (int)(strrchr(t->path, '/') - t->path), t->path,
		 (long)getpid());
	if ((fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0) {
		snprintf(err, sizeof(err), _("%s: cannot write: %s"), tmp, strerror(errno));
		say_fail(u, t, err, had);
		return;
	}
	unlink(tmp);   /* a download is never seen by anyone, and never left behind */
	r.url = t->url;
	r.timeout_s = u->timeout_s;
	r.retries = (int)u->retries;
	r.max_bytes = MAX_BYTES;
	r.fd = fd;
	r.follow = true;
	if (had && have_meta && !u->force) {
		r.etag = prev.etag;
		r.last_modified = prev.last_modified;
	}
	if (!strcmp(t->source, "vast")) {
		r.post = VAST_QUERY;
		if ((key = getenv("GPURENT_VAST_API_KEY")) && *key) {
			size_t n = strlen(key) + 8;
			if ((auth = malloc(n)))
				snprintf(auth, n, "Bearer %s", key);
			r.auth = auth;
		}
	}
	if (http_fetch(&r, &resp, err, sizeof(err))) {
		say_fail(u, t, err, had);
		goto out_close;
	}
	if (resp.status == 304 && had) {
		m = prev;
		m.checked = catcache_now();
		catcache_meta_write(t->path, &m);
		u->unchanged++;
		printf(_("%s/%s: not changed (HTTP 304): %s\n"), t->source, t->provider, shown);
		goto out_close;
	}
	if (resp.status != 200) {
		snprintf(err, sizeof(err), _("HTTP %ld from %s"), resp.status, shown);
		say_fail(u, t, err, had);
		goto out_close;
	}
	if (read_body(t, fd, &buf, &len, err, sizeof(err)) ||
	    check_catalog(u, t, buf, len, &prev, &rows, err, sizeof(err)) ||
	    store(t, buf, len, err, sizeof(err))) {
		char why[2800];
		snprintf(why, sizeof(why), "%s: %s", shown, err);
		say_fail(u, t, why, had);
		goto out_close;
	}
	memset(&m, 0, sizeof(m));
	if ((size_t)snprintf(m.url, sizeof(m.url), "%s", t->url) >= sizeof(m.url))
		m.url[0] = '\0';   /* longer than the record keeps: stored without its source */
	m.fetched = m.checked = catcache_now();
	snprintf(m.etag, sizeof(m.etag), "%s", resp.etag);
	snprintf(m.last_modified, sizeof(m.last_modified), "%s", resp.last_modified);
	m.rows = (long)rows;
	if (catcache_meta_write(t->path, &m))
		msg_warn(_("%s.meta: cannot write: %s (the catalog is stored, its age unknown)"), t->path,
			 strerror(errno));
	u->stored++;
	printf(Q_("%s/%s: %zu row stored from %s\n", "%s/%s: %zu rows stored from %s\n", rows), t->source,
	       t->provider, rows, shown);
out_close:
	if (pr)
		progress_add(pr, 1, resp.bytes);
	if (auth) {
		explicit_bzero(auth, strlen(auth));
		free(auth);
	}
	free(buf);
	close(fd);
}

/* The targets of the sources and providers asked for; 0 or the exit code. */
static int targets_of(struct update *u, char **srcs, int nsrc, const struct opt_list *prov, struct target **out,
		      size_t *n)
{
	static const char *const all_sources[] = {"skypilot", "vast"};
	const char *def[] = {"skypilot"};
	char **use = nsrc ? srcs : (char **)def;
	size_t ns = nsrc ? (size_t)nsrc : 1;
	struct target *v = calloc(ARRAY_SIZE(sky_providers) + 1, ns * sizeof(*v));
	const char *base;

	*n = 0;
	if (!v)
		return msg_fail(_("out of memory"));
	for (size_t i = 0; i < prov->n; i++) {
		char list[512], *save = NULL;
		snprintf(list, sizeof(list), "%s", prov->v[i]);
		for (char *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save))
			if (!known_provider(p)) {
				free(v);
				return msg_usage(_("--provider: %s: expected one of SkyPilot's hosted catalogs "
						   "(gpurent help catalog lists them)"), p);
			}
	}
	for (size_t s = 0; s < ns; s++) {
		bool ok = false;
		for (size_t a = 0; a < ARRAY_SIZE(all_sources); a++)
			ok |= !strcmp(use[s], all_sources[a]);
		if (!ok) {
			free(v);
			return msg_usage(_("%s: expected a source: skypilot or vast"), use[s]);
		}
		if (!strcmp(use[s], "vast")) {
			struct target *t = &v[(*n)++];
			base = u->base ? u->base : VAST_ROOT;
			t->source = "vast";
			t->provider = "vast";
			snprintf(t->url, sizeof(t->url), "%.*s%s", (int)(strlen(base) - (base[strlen(base) - 1] == '/')),
				 base, VAST_PATH);
			snprintf(t->path, sizeof(t->path), "%s/vast/vast/vms.csv", u->dir);
			continue;
		}
		for (size_t p = 0; p < ARRAY_SIZE(sky_providers); p++) {
			bool want = !prov->n;
			struct target *t;
			for (size_t i = 0; i < prov->n && !want; i++) {
				const char *l = prov->v[i];
				size_t pl = strlen(sky_providers[p]);
				for (const char *q = l; q && *q; q = strchr(q, ',') ? strchr(q, ',') + 1 : NULL)
					if (!strncmp(q, sky_providers[p], pl) && (q[pl] == ',' || !q[pl]))
						want = true;
			}
			if (!want)
				continue;
			t = &v[(*n)++];
			base = u->base ? u->base : SKY_ROOT;
			t->source = "skypilot";
			t->provider = sky_providers[p];
			snprintf(t->url, sizeof(t->url), "%.*s/catalogs/" SKY_VERSION "/%s/vms.csv",
				 (int)(strlen(base) - (base[strlen(base) - 1] == '/')), base, sky_providers[p]);
			snprintf(t->path, sizeof(t->path), "%s/skypilot/%s/vms.csv", u->dir, sky_providers[p]);
		}
	}
	*out = v;
	return 0;
}

static int check_base(const char *b)
{
	if (!b)
		return 0;
	if (strncmp(b, "http://", 7) && strncmp(b, "https://", 8))
		return msg_usage(_("--url: expected http://HOST[:PORT][/PATH] or https://..., got '%s'"), b);
	if (strchr(b, '?') || strchr(b, '#') || quote_has_control(b, strlen(b)))
		return msg_usage(_("--url: expected a base URL without a query, a fragment or control characters"));
	return 0;
}

static int catalog_update(int argc, char **argv)
{
	struct update u = {.timeout_s = 60, .retries = 2};
	struct opt_list prov = {0};
	const struct opt opts[] = {
		{.name = "provider", .type = OPT_LIST, .dest = &prov, .arg = "NAME[,NAME]",
		 .help = N_("SkyPilot providers to fetch (default: all of the list)"), .example = "lambda"},
		{.name = "url", .type = OPT_STRING, .dest = &u.base, .arg = "BASE",
		 .help = N_("the root to fetch from instead of the source's own (a mirror)"),
		 .example = "http://127.0.0.1:9"},
		{.name = "timeout", .type = OPT_DURATION, .dest = &u.timeout_s, .arg = "DUR", .min = 0.001, .max = 3600,
		 .help = N_("the most one attempt may take (default 60s)"), .example = "1s"},
		OPT_LONG("retries", &u.retries, 0, 5, "N", N_("retries after a network error, a 5xx, 408 or 429 (default 2)")),
		OPT_BOOL("force", &u.force, N_("store a catalog whose row count changed by more than a factor of 2")),
		OPT_PROGRESS_FLAGS,
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = "catalog update", .usage = usage, .max_operands = -1,
				   .operands = "SOURCE"};
	struct target *t = NULL;
	struct progress pr = {.label = "catalog update", .units = _("catalogs")};
	size_t n = 0;
	int rc, nops, lock = -1;
	char lockp[4200];

	if ((rc = opt_parse(&oc, opts, argc, argv, NULL, &nops)) != OPT_GO)
		goto out_opts;
	if ((rc = check_base(u.base)))
		goto out_opts;
	if (catcache_dir(u.dir, sizeof(u.dir))) {
		rc = msg_fail(_("no cache folder: set HOME or XDG_CACHE_HOME"));
		goto out_opts;
	}
	if ((rc = targets_of(&u, argv, nops, &prov, &t, &n)))
		goto out_opts;
	if (mkdirs(u.dir)) {
		rc = msg_fail(_("%s: cannot create: %s"), u.dir, strerror(errno));
		goto out_targets;
	}
	snprintf(lockp, sizeof(lockp), "%s/.lock", u.dir);
	if ((lock = open(lockp, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0) {
		rc = msg_fail(_("%s: cannot open: %s"), lockp, strerror(errno));
		goto out_targets;
	}
	if (flock(lock, LOCK_EX | LOCK_NB)) {
		rc = msg_fail(_("another `gpurent catalog update` is running (it holds %s): try again when it "
				"has finished"), lockp);
		goto out_lock;
	}
	if ((rc = offers_init(&u.oc, "catalog update")))
		goto out_lock;
	pr.total_units = n;
	progress_begin(&pr);
	for (size_t i = 0; i < n; i++)
		update_one(&u, &t[i], &pr);
	progress_end(&pr);
	printf(_("%zu stored, %zu unchanged, %zu failed (%s)\n"), u.stored, u.unchanged, u.failed, u.dir);
	offers_free(&u.oc);
	rc = msg_finish(u.failed ? EXIT_RUNTIME : EXIT_OK);
out_lock:
	close(lock);
out_targets:
	free(t);
out_opts:
	opt_list_free(&prov);
	return rc;
}

static const char *origin_name(enum offers_origin_kind k)
{
	static const char *const names[] = {"bundled", "fetched", "skypilot-home", "named"};
	return names[k];
}

/* The oldest and newest dates of catalog i's offers (rows dated in
 * gpurent's format; else the catalog's own time). */
static void span_of(const struct offers_ctx *c, size_t i, double *lo, double *hi)
{
	*lo = *hi = -1;
	for (size_t k = 0; k < c->set.n; k++) {
		const struct offer *o = &c->set.v[k];
		double t;
		if (o->file != i || (t = offers_price_time(c, o)) < 0)
			continue;
		if (*lo < 0 || t < *lo)
			*lo = t;
		if (t > *hi)
			*hi = t;
	}
	if (*lo < 0 && i < c->norigins)
		*lo = *hi = c->origins[i].time;
}

static void list_json(const struct offers_ctx *c, double now)
{
	struct json j;
	char d[32];

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", "gpurent.catalogs/1");
	json_str(&j, "cache", c->cache_dir);
	json_arr_begin(&j, "catalogs");
	for (size_t i = 0; i < c->set.nreports; i++) {
		const struct catalog_report *r = &c->set.reports[i];
		const struct offers_origin *o = i < c->norigins ? &c->origins[i] : NULL;
		double lo, hi;
		span_of(c, i, &lo, &hi);
		json_obj_begin(&j, NULL);
		json_str(&j, "path", r->path);
		json_str(&j, "format", r->format);
		json_int(&j, "rows", (long)r->rows);
		json_int(&j, "offers", (long)r->loaded);
		json_str(&j, "origin", o ? origin_name(o->kind) : "named");
		if (o && o->url[0])
			json_str(&j, "source_url", o->url);
		else
			json_null(&j, "source_url");
		json_str(&j, "oldest_price_date", catcache_day(lo, d, sizeof(d)));
		json_str(&j, "newest_price_date", catcache_day(hi, d, sizeof(d)));
		json_num(&j, "oldest_price_age_days", lo < 0 ? NAN : (double)catcache_days(lo, now));
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	printf("\n");
}

static void list_text(const struct offers_ctx *c, double now)
{
	char d1[32], d2[32];

	for (size_t i = 0; i < c->set.nreports; i++) {
		const struct catalog_report *r = &c->set.reports[i];
		const struct offers_origin *o = i < c->norigins ? &c->origins[i] : NULL;
		enum offers_origin_kind k = o ? o->kind : ORIGIN_NAMED;
		double lo, hi;
		span_of(c, i, &lo, &hi);
		out_puts_safe(stdout, r->path);
		printf(Q_(": %zu row, %zu offers; ", ": %zu rows, %zu offers; ", r->rows), r->rows, r->loaded);
		if (k == ORIGIN_FETCHED) {
			printf("%s ", _("fetched from"));
			out_puts_safe(stdout, o->url[0] ? o->url : "?");
		} else {
			printf("%s", k == ORIGIN_BUNDLED ? _("bundled with gpurent, each row dated")
				     : k == ORIGIN_SKY ? _("SkyPilot's own copy, dated by the file's time")
						       : _("named (--catalog), dated by the file's time"));
		}
		if (lo < 0)
			printf(_("; age unknown\n"));
		else if (hi > lo && catcache_days(lo, now) != catcache_days(hi, now))
			printf(_("; prices of %s to %s, %ld to %ld days old\n"), catcache_day(lo, d1, sizeof(d1)),
			       catcache_day(hi, d2, sizeof(d2)), catcache_days(lo, now), catcache_days(hi, now));
		else
			printf(Q_("; prices of %s, %ld day old\n", "; prices of %s, %ld days old\n",
				  catcache_days(lo, now)), catcache_day(lo, d1, sizeof(d1)), catcache_days(lo, now));
	}
	if (c->sky_shadowed)
		printf(Q_("%zu provider of %s left out: its fetched copy is read instead\n",
			  "%zu providers of %s left out: their fetched copies are read instead\n", c->sky_shadowed),
		       c->sky_shadowed, c->sky_dir);
	if (!c->cache_dir[0] || !c->set.nreports)
		printf("%s", _("No fetched catalogs: `gpurent catalog update` fetches SkyPilot's current ones.\n"));
}

static int catalog_list(int argc, char **argv)
{
	struct opt_list cat = {0};
	struct offers_ctx c;
	bool json = false;
	const struct opt opts[] = {
		{.name = "catalog", .type = OPT_LIST, .dest = &cat, .arg = "PATH",
		 .help = N_("list these catalogs (files or folders) instead of the default ones"),
		 .example = "tests/data/offers-mixed.csv"},
		OPT_BOOL("json", &json, N_("JSON output (schema gpurent.catalogs/1)")),
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = "catalog list", .usage = usage, .max_operands = 0};
	int rc, nops;

	if ((rc = opt_parse(&oc, opts, argc, argv, NULL, &nops)) != OPT_GO)
		goto out_opts;
	if ((rc = offers_init(&c, "catalog list")))
		goto out_opts;
	if (!(rc = offers_load(&c, (char **)cat.v, cat.n, NULL, NULL, NULL))) {
		if (json)
			list_json(&c, catcache_now());
		else
			list_text(&c, catcache_now());
		rc = msg_finish(c.bad_rows ? EXIT_USAGE : EXIT_OK);
	}
	offers_free(&c);
out_opts:
	opt_list_free(&cat);
	return rc;
}

/* MUST stay sorted by name. */
static const struct opt_sub subs[] = {
	{"list", catalog_list},
	{"update", catalog_update},
};

int cmd_catalog(int argc, char **argv)
{
	const struct opt opts[] = {OPT_TABLE_END};
	const struct opt_cmd oc = {.name = "catalog", .usage = usage, .flags = OPT_STOP_AT_OPERAND,
				   .max_operands = -1, .subs = subs, .n_subs = ARRAY_SIZE(subs)};
	int rc, nops;

	if ((rc = opt_parse(&oc, opts, argc, argv, NULL, &nops)) != OPT_GO)
		return rc;
	return opt_run_sub(&oc, nops, argv);
}
