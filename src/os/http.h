/*
 * http.h - the one door to HTTP: libcurl, loaded through dl.c on first use
 * (the binary runs without it), for `gpurent run --stop-url` (the guard's
 * POST) and `gpurent catalog update` (GET of catalogs, POST of vast's
 * search). Nothing here prints; errors are one line in err, in English
 * (the callers word them), and never carry a header given in the request
 * (a key stays out of every message).
 */
#ifndef GPURENT_OS_HTTP_H
#define GPURENT_OS_HTTP_H

#include <curl/curl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The libcurl functions gpurent calls (a table filled by dl_open()). */
struct http_curl {
	CURLcode (*global_init)(long);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_perform)(CURL *);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	void (*easy_cleanup)(CURL *);
	const char *(*easy_strerror)(CURLcode);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void (*slist_free_all)(struct curl_slist *);
};

/*
 * libcurl, loaded once and kept until exit; NULL with the reason in err
 * ("libcurl is not installed (libcurl.so.4)", "...: too old"). The table
 * is static: never freed.
 */
const struct http_curl *http_curl(char *err, size_t errlen);

/* A libcurl timeout in whole milliseconds, rounded up, at least 1 (0 is
 * "none" to libcurl, never wanted here). */
long http_ms(double seconds);

/* One request of http_fetch(). Strings are borrowed for the call. */
struct http_req {
	const char *url;
	const char *post;          /* a JSON body to POST; NULL: GET */
	const char *auth;          /* "Bearer KEY" for an Authorization header; NULL: none */
	const char *etag;          /* If-None-Match; NULL or "": not sent */
	const char *last_modified; /* If-Modified-Since (the server's own text); NULL or "": not sent */
	double timeout_s;          /* the whole transfer, each attempt (and the connect) */
	int retries;               /* more attempts after a network error, 5xx, 408 or 429 */
	uint64_t max_bytes;        /* refuse a body larger than this (0: no limit) */
	int fd;                    /* the body is written here (a temporary file) */
	bool follow;               /* follow up to 5 redirects (http and https only) */
};

struct http_resp {
	long status;               /* the last answer's HTTP status; 0: none came */
	uint64_t bytes;            /* body bytes written to fd (the last attempt's) */
	int attempts;
	char etag[256];            /* the answer's ETag, "" when none (control bytes dropped) */
	char last_modified[128];   /* its Last-Modified, likewise */
	char content_type[128];
	bool cut;                  /* the body ended before its Content-Length */
	bool timed_out;
};

/*
 * Perform r (retrying as r->retries says, waiting 1, 2, 4 ... s, at most
 * 8, between attempts; fd is truncated before each). Returns 0 when an
 * answer came (any status: the caller judges 200, 304, 404 ...), -1 when
 * none did or the body could not be had whole (cut, timed out, too large,
 * libcurl missing, fd not writable), with one line in err naming the URL
 * as given (its user:password and query left out).
 */
int http_fetch(const struct http_req *r, struct http_resp *resp, char *err, size_t errlen);

/* url for a message: "scheme://host/path", userinfo dropped, a query
 * shown as "?...". Returns buf. */
char *http_url_shown(const char *url, char *buf, size_t n);

#endif
