/*
 * http.c - HTTP through libcurl, loaded on first use (http.h): the guard's
 * stop POST and the catalog fetches share this loader and its time-outs.
 */
#include "os/http.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"
#include "os/dl.h"

const struct http_curl *http_curl(char *err, size_t errlen)
{
	static struct http_curl f;
	static bool loaded;
	static const char *const libs[] = {"libcurl.so.4", "libcurl-gnutls.so.4", "libcurl.so"};
	static const struct dl_sym syms[] = {
		{{"curl_global_init"}, offsetof(struct http_curl, global_init), true},
		{{"curl_easy_init"}, offsetof(struct http_curl, easy_init), true},
		{{"curl_easy_setopt"}, offsetof(struct http_curl, easy_setopt), true},
		{{"curl_easy_perform"}, offsetof(struct http_curl, easy_perform), true},
		{{"curl_easy_getinfo"}, offsetof(struct http_curl, easy_getinfo), true},
		{{"curl_easy_cleanup"}, offsetof(struct http_curl, easy_cleanup), true},
		{{"curl_easy_strerror"}, offsetof(struct http_curl, easy_strerror), true},
		{{"curl_slist_append"}, offsetof(struct http_curl, slist_append), true},
		{{"curl_slist_free_all"}, offsetof(struct http_curl, slist_free_all), true},
	};
	struct dl_lib *dl;
	char why[256];
	int rc;

	if (loaded)
		return &f;
	if ((rc = dl_open(libs, ARRAY_SIZE(libs), syms, ARRAY_SIZE(syms), &f, &dl, why, sizeof(why)))) {
		if (rc == DL_ENOSYM)
			snprintf(err, errlen, "%s: too old", why);
		else
			snprintf(err, errlen, "libcurl is not installed (libcurl.so.4)");
		return NULL;
	}
	if (f.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		snprintf(err, errlen, "libcurl did not initialise");
		dl_close(dl);
		return NULL;
	}
	dl_keep(dl);   /* libcurl keeps global state: stays loaded until exit */
	loaded = true;
	return &f;
}

long http_ms(double s)
{
	double ms = s * 1000;
	long r;

	if (!(ms >= 1))
		return 1;
	if (ms >= 2147483647.0)
		return 2147483647L;
	r = (long)ms;
	return r < ms ? r + 1 : r;
}

char *http_url_shown(const char *url, char *buf, size_t n)
{
	const char *scheme = strstr(url, "://"), *host = scheme ? scheme + 3 : url;
	const char *end = host + strcspn(host, "/?#"), *at = NULL;
	size_t path_len;

	for (const char *p = host; p < end; p++)
		if (*p == '@')
			at = p;
	if (at)
		host = at + 1;
	path_len = strcspn(end, "?#");
	snprintf(buf, n, "%.*s%.*s%.*s%s", scheme ? (int)(scheme + 3 - url) : 0, url,
		 (int)(end - host), host, (int)path_len, end, end[path_len] ? "?..." : "");
	return buf;
}

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

struct sink {
	int fd;
	uint64_t bytes, max;
	bool too_big, write_failed;
	struct http_resp *resp;
};

static size_t on_body(char *p, size_t size, size_t n, void *ctx)
{
	struct sink *s = ctx;
	size_t len = size * n, off = 0;

	if (s->max && s->bytes + len > s->max) {
		s->too_big = true;
		return 0;
	}
	while (off < len) {
		ssize_t w = write(s->fd, p + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			s->write_failed = true;
			return 0;
		}
		off += (size_t)w;
	}
	s->bytes += len;
	return len;
}

/* Copy a header's value (after "Name:") without its blanks and control bytes. */
static void header_value(const char *v, size_t len, char *out, size_t n)
{
	size_t k = 0;

	while (len && (*v == ' ' || *v == '\t'))
		v++, len--;
	for (size_t i = 0; i < len && k + 1 < n; i++)
		if ((unsigned char)v[i] >= 0x20 && v[i] != 0x7f)
			out[k++] = v[i];
	while (k && out[k - 1] == ' ')
		k--;
	out[k] = '\0';
}

static size_t on_header(char *p, size_t size, size_t n, void *ctx)
{
	struct sink *s = ctx;
	size_t len = size * n;
	static const struct {
		const char *name;
		size_t off, cap;
	} want[] = {
		{"etag:", offsetof(struct http_resp, etag), sizeof(((struct http_resp *)0)->etag)},
		{"last-modified:", offsetof(struct http_resp, last_modified),
		 sizeof(((struct http_resp *)0)->last_modified)},
		{"content-type:", offsetof(struct http_resp, content_type),
		 sizeof(((struct http_resp *)0)->content_type)},
	};

	if (len >= 5 && !strncasecmp(p, "HTTP/", 5)) {
		/* a new answer (a redirect's next hop): forget the last one's */
		s->resp->etag[0] = s->resp->last_modified[0] = s->resp->content_type[0] = '\0';
		return len;
	}
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		size_t nl = strlen(want[i].name);
		if (len > nl && !strncasecmp(p, want[i].name, nl))
			header_value(p + nl, len - nl, (char *)s->resp + want[i].off, want[i].cap);
	}
	return len;
}

/* Should another attempt be made after this one? */
static bool retryable(CURLcode cr, long code, const struct sink *s)
{
	if (s->too_big || s->write_failed)
		return false;
	if (cr != CURLE_OK)
		return cr != CURLE_UNSUPPORTED_PROTOCOL && cr != CURLE_URL_MALFORMAT &&
		       cr != CURLE_TOO_MANY_REDIRECTS;
	return code >= 500 || code == 408 || code == 429;
}

static void describe(const struct http_curl *f, CURLcode cr, const struct sink *s, const char *cerr,
		     const char *shown, char *err, size_t errlen)
{
	if (s->too_big)
		snprintf(err, errlen, "%s: the answer is larger than %llu bytes: refused", shown,
			 (unsigned long long)s->max);
	else if (s->write_failed)
		snprintf(err, errlen, "%s: cannot write the temporary file: %s", shown, strerror(errno));
	else if (cr == CURLE_PARTIAL_FILE)
		snprintf(err, errlen, "%s: the answer was cut off after %llu bytes (shorter than its Content-Length)",
			 shown, (unsigned long long)s->bytes);
	else if (cr == CURLE_OPERATION_TIMEDOUT)
		snprintf(err, errlen, "%s: no complete answer within the time-out (%s)", shown,
			 cerr[0] ? cerr : f->easy_strerror(cr));
	else
		snprintf(err, errlen, "%s: %s", shown, cerr[0] ? cerr : f->easy_strerror(cr));
}

/* One configured handle for r; NULL when libcurl cannot start one. */
static CURL *setup(const struct http_curl *f, const struct http_req *r, struct curl_slist **hdr,
		   struct sink *s, char *cerr)
{
	char line[512];
	CURL *h = f->easy_init();

	if (!h)
		return NULL;
	if (r->etag && r->etag[0] && snprintf(line, sizeof(line), "If-None-Match: %s", r->etag) < (int)sizeof(line))
		*hdr = f->slist_append(*hdr, line);
	if (r->last_modified && r->last_modified[0] &&
	    snprintf(line, sizeof(line), "If-Modified-Since: %s", r->last_modified) < (int)sizeof(line))
		*hdr = f->slist_append(*hdr, line);
	if (r->post)
		*hdr = f->slist_append(*hdr, "Content-Type: application/json");
	*hdr = f->slist_append(*hdr, "Accept: */*");
	if (r->auth) {
		size_t n = strlen(r->auth) + 32;
		char *a = malloc(n);
		if (a) {
			snprintf(a, n, "Authorization: %s", r->auth);
			*hdr = f->slist_append(*hdr, a);
			explicit_bzero(a, n);
			free(a);
		}
	}
	f->easy_setopt(h, CURLOPT_URL, r->url);
	f->easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	f->easy_setopt(h, CURLOPT_USERAGENT, "gpurent/" GPURENT_VERSION);
	f->easy_setopt(h, CURLOPT_HTTPHEADER, *hdr);
	f->easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	f->easy_setopt(h, CURLOPT_WRITEDATA, s);
	f->easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	f->easy_setopt(h, CURLOPT_HEADERDATA, s);
	f->easy_setopt(h, CURLOPT_ERRORBUFFER, cerr);
	f->easy_setopt(h, CURLOPT_FOLLOWLOCATION, r->follow ? 1L : 0L);
	f->easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
	/* http and https only, also after a redirect (no file://, no ftp) */
#if LIBCURL_VERSION_NUM >= 0x075500
	f->easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	f->easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
	f->easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
	f->easy_setopt(h, CURLOPT_REDIR_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	f->easy_setopt(h, CURLOPT_TIMEOUT_MS, http_ms(r->timeout_s));
	f->easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, http_ms(r->timeout_s));
	f->easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");   /* gzip when the server offers it */
	if (r->post) {
		f->easy_setopt(h, CURLOPT_POST, 1L);
		f->easy_setopt(h, CURLOPT_POSTFIELDS, r->post);
		f->easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)strlen(r->post));
	}
	return h;
}

int http_fetch(const struct http_req *r, struct http_resp *resp, char *err, size_t errlen)
{
	const struct http_curl *f;
	char shown[512], cerr[CURL_ERROR_SIZE];
	struct curl_slist *hdr = NULL;
	struct sink s = {.fd = r->fd, .max = r->max_bytes, .resp = resp};
	int attempts = 1 + (r->retries > 0 ? r->retries : 0), rc = -1;
	double delay = 1;
	CURL *h;

	memset(resp, 0, sizeof(*resp));
	err[0] = '\0';
	http_url_shown(r->url, shown, sizeof(shown));
	if (!(f = http_curl(err, errlen)))
		return -1;
	if (!(h = setup(f, r, &hdr, &s, cerr))) {
		snprintf(err, errlen, "%s: libcurl could not start a request", shown);
		goto out_free;
	}
	for (int k = 1; k <= attempts; k++) {
		CURLcode cr;
		long code = 0;

		cerr[0] = '\0';
		s.bytes = 0;
		s.too_big = s.write_failed = false;
		if (ftruncate(r->fd, 0) || lseek(r->fd, 0, SEEK_SET) < 0) {
			snprintf(err, errlen, "%s: cannot write the temporary file: %s", shown, strerror(errno));
			break;
		}
		resp->attempts = k;
		cr = f->easy_perform(h);
		f->easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
		resp->status = code;
		resp->bytes = s.bytes;
		resp->cut = cr == CURLE_PARTIAL_FILE;
		resp->timed_out = cr == CURLE_OPERATION_TIMEDOUT;
		if (cr == CURLE_OK && !retryable(cr, code, &s)) {
			rc = 0;
			break;
		}
		if (cr == CURLE_OK)
			snprintf(err, errlen, "%s: HTTP %ld", shown, code);
		else
			describe(f, cr, &s, cerr, shown, err, errlen);
		if (k == attempts || !retryable(cr, code, &s)) {
			/* a 5xx after the last attempt is still an answer: the caller words it */
			rc = cr == CURLE_OK ? 0 : -1;
			break;
		}
		sleep_s(delay);
		delay = delay < 8 ? delay * 2 : 8;
	}
	f->easy_cleanup(h);
out_free:
	f->slist_free_all(hdr);
	return rc;
}
