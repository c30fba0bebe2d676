/*
 * hashing.c - XXH3-128 and SHA-256 behind one interface (hashing.h). On
 * x86-64 the XXH3 calls go through libxxhash's runtime dispatch, which
 * picks the AVX2/AVX-512 kernel the CPU has; SHA-256 is the injected
 * implementation (hashing_set_sha256()), the core loads no library.
 */
#include "hashing.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../util/util.h"

#include <xxhash.h>
#if defined(__x86_64__)
#include <xxh_x86dispatch.h>
#define HASH_XXH_UPDATE XXH3_128bits_update_dispatch
#define HASH_XXH_ONESHOT XXH3_128bits_dispatch
#else
#define HASH_XXH_UPDATE XXH3_128bits_update
#define HASH_XXH_ONESHOT XXH3_128bits
#endif

size_t hash_size(enum hash_algo a)
{
	return a == HASH_SHA256 ? 32 : 16;
}

const char *hash_name(enum hash_algo a)
{
	return a == HASH_SHA256 ? "sha256" : "xxh3-128";
}

int hash_parse_name(const char *s, enum hash_algo *out)
{
	static const struct { const char *name; enum hash_algo a; } tab[] = {
		{"xxh3", HASH_XXH3}, {"xxh3-128", HASH_XXH3}, {"xxh128", HASH_XXH3},
		{"sha256", HASH_SHA256}, {"sha-256", HASH_SHA256},
	};

	for (size_t i = 0; i < ARRAY_SIZE(tab); i++)
		if (!strcasecmp(s, tab[i].name)) {
			*out = tab[i].a;
			return 0;
		}
	return -1;
}


/* Set by the command layer before any thread hashes (hashing.h). */
static const struct hash_sha256_ops *sha256_ops;

void hashing_set_sha256(const struct hash_sha256_ops *ops)
{
	sha256_ops = ops;
}

int hash_init(struct hash_ctx *h, enum hash_algo a, char *err, size_t errlen)
{
	memset(h, 0, sizeof(*h));
	h->algo = a;
	if (a == HASH_XXH3) {
		if (!(h->xxh = XXH3_createState())) {
			snprintf(err, errlen, "out of memory for an XXH3 state");
			return -1;
		}
		return 0;
	}
	if (!sha256_ops) {
		snprintf(err, errlen, "SHA-256 is not available (no implementation installed)");
		return -1;
	}
	if (sha256_ops->ctx_new(&h->sha, err, errlen)) {
		h->sha = NULL;
		return -1;
	}
	h->ops = sha256_ops;
	return 0;
}

void hash_free(struct hash_ctx *h)
{
	if (h->xxh)
		XXH3_freeState(h->xxh);
	if (h->sha)
		h->ops->ctx_free(h->sha);
	h->xxh = h->sha = NULL;
	h->ops = NULL;
}

int hash_begin(struct hash_ctx *h)
{
	if (h->algo == HASH_XXH3)
		return XXH3_128bits_reset(h->xxh) == XXH_OK ? 0 : -1;
	return h->ops->begin(h->sha);
}

int hash_update(struct hash_ctx *h, const void *p, size_t n)
{
	if (h->algo == HASH_XXH3)
		return HASH_XXH_UPDATE(h->xxh, p, n) == XXH_OK ? 0 : -1;
	return h->ops->update(h->sha, p, n);
}

/* XXH3-128 written big-endian, high half first: what xxhsum -H2 prints. */
static void xxh_canonical(XXH128_hash_t v, unsigned char *out)
{
	XXH128_canonical_t c;

	XXH128_canonicalFromHash(&c, v);
	memcpy(out, c.digest, sizeof(c.digest));
}

int hash_final(struct hash_ctx *h, unsigned char *out)
{
	if (h->algo == HASH_XXH3) {
		xxh_canonical(XXH3_128bits_digest(h->xxh), out);
		return 0;
	}
	return h->ops->final(h->sha, out);
}

int hash_buffer(struct hash_ctx *h, const void *p, size_t n, unsigned char *out)
{
	if (h->algo == HASH_XXH3) {
		xxh_canonical(HASH_XXH_ONESHOT(p, n), out);
		return 0;
	}
	if (hash_begin(h) || hash_update(h, p, n))
		return -1;
	return hash_final(h, out);
}

char *hash_to_hex(const unsigned char *d, size_t n, char *hex)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		hex[2 * i] = digits[d[i] >> 4];
		hex[2 * i + 1] = digits[d[i] & 15];
	}
	hex[2 * n] = '\0';
	return hex;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int hash_from_hex(const char *s, size_t n, unsigned char *d)
{
	for (size_t i = 0; i < n; i++) {
		int hi = hexval(s[2 * i]), lo;
		if (hi < 0 || (lo = hexval(s[2 * i + 1])) < 0)
			return -1;
		d[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}
