/*
 * hashing.c - the manifest hashes behind one interface (hashing.h). On
 * x86-64 the XXH3 calls go through libxxhash's runtime dispatch, which
 * picks the AVX2/AVX-512 kernel the CPU has; the cryptographic hashes are
 * the injected implementation (hashing_set_crypto()), the core loads no
 * library.
 */
#include "core/files/hashing.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/util.h"
#include "base/i18n.h"

#include <xxhash.h>
#if defined(__x86_64__)
#include <xxh_x86dispatch.h>
#define HASH_XXH_UPDATE XXH3_128bits_update_dispatch
#define HASH_XXH_ONESHOT XXH3_128bits_dispatch
#define HASH_XXH64_UPDATE XXH3_64bits_update_dispatch
#define HASH_XXH64_ONESHOT XXH3_64bits_dispatch
#else
#define HASH_XXH_UPDATE XXH3_128bits_update
#define HASH_XXH_ONESHOT XXH3_128bits
#define HASH_XXH64_UPDATE XXH3_64bits_update
#define HASH_XXH64_ONESHOT XXH3_64bits
#endif

/* In enum hash_algo order: size, gpurent's name, the tools' BSD tag. The
 * tags are what coreutils 9.1 (`--tag`), b2sum and xxhsum 0.8.1 write. */
static const struct {
	size_t size;
	const char *name, *tag;
} algos[HASH_NALGOS] = {
	[HASH_XXH3] = {16, "xxh3-128", "XXH128"},
	[HASH_SHA256] = {32, "sha256", "SHA256"},
	[HASH_MD5] = {16, "md5", "MD5"},
	[HASH_SHA1] = {20, "sha1", "SHA1"},
	[HASH_SHA512] = {64, "sha512", "SHA512"},
	[HASH_BLAKE2B] = {64, "blake2b", "BLAKE2b"},
	[HASH_BLAKE3] = {32, "blake3", "BLAKE3"},
	[HASH_XXH32] = {4, "xxh32", "XXH32"},
	[HASH_XXH64] = {8, "xxh64", "XXH64"},
	[HASH_XXH3_64] = {8, "xxh3-64", "XXH3"},
};

size_t hash_size(enum hash_algo a)
{
	return (unsigned)a < HASH_NALGOS ? algos[a].size : 0;
}

const char *hash_name(enum hash_algo a)
{
	return (unsigned)a < HASH_NALGOS ? algos[a].name : "?";
}

const char *hash_tag(enum hash_algo a)
{
	return (unsigned)a < HASH_NALGOS ? algos[a].tag : "?";
}

int hash_parse_tag(const char *s, size_t n, enum hash_algo *out)
{
	for (int i = 0; i < HASH_NALGOS; i++)
		if (strlen(algos[i].tag) == n && !memcmp(s, algos[i].tag, n)) {
			*out = (enum hash_algo)i;
			return 0;
		}
	/* b2sum --tag writes "BLAKE2b" for the default 512 bits; "BLAKE2b-512" is the same */
	if (n == 11 && !memcmp(s, "BLAKE2b-512", 11)) {
		*out = HASH_BLAKE2B;
		return 0;
	}
	return -1;
}

bool hash_is_xxh(enum hash_algo a)
{
	return a == HASH_XXH3 || a == HASH_XXH32 || a == HASH_XXH64 || a == HASH_XXH3_64;
}

int hash_parse_name(const char *s, enum hash_algo *out)
{
	static const struct { const char *name; enum hash_algo a; } alias[] = {
		{"xxh3", HASH_XXH3}, {"xxh128", HASH_XXH3}, {"sha-256", HASH_SHA256},
		{"sha-1", HASH_SHA1}, {"sha-512", HASH_SHA512}, {"b2", HASH_BLAKE2B},
		{"blake2b-512", HASH_BLAKE2B}, {"b3", HASH_BLAKE3},
	};

	for (int i = 0; i < HASH_NALGOS; i++)
		if (!strcasecmp(s, algos[i].name)) {
			*out = (enum hash_algo)i;
			return 0;
		}
	for (size_t i = 0; i < ARRAY_SIZE(alias); i++)
		if (!strcasecmp(s, alias[i].name)) {
			*out = alias[i].a;
			return 0;
		}
	return -1;
}

/* Set by the command layer before any thread hashes (hashing.h). */
static const struct hash_crypto_ops *crypto_ops;

void hashing_set_crypto(const struct hash_crypto_ops *ops)
{
	crypto_ops = ops;
}

int hash_init(struct hash_ctx *h, enum hash_algo a, char *err, size_t errlen)
{
	memset(h, 0, sizeof(*h));
	h->algo = a;
	if (hash_is_xxh(a)) {
		h->xxh = a == HASH_XXH32 ? (void *)XXH32_createState()
			: a == HASH_XXH64 ? (void *)XXH64_createState() : (void *)XXH3_createState();
		if (!h->xxh) {
			snprintf(err, errlen, _("out of memory for an xxHash state"));
			return -1;
		}
		return 0;
	}
	if (a == HASH_BLAKE3 || (unsigned)a >= HASH_NALGOS) {
		snprintf(err, errlen, _("%s is not computed in gpurent (BLAKE3: through the b3sum "
			 "program)"), hash_name(a));
		return -1;
	}
	if (!crypto_ops) {
		snprintf(err, errlen, _("%s is not available (no implementation installed)"), hash_tag(a));
		return -1;
	}
	if (crypto_ops->ctx_new(&h->sha, a, err, errlen)) {
		h->sha = NULL;
		return -1;
	}
	h->ops = crypto_ops;
	return 0;
}

void hash_free(struct hash_ctx *h)
{
	if (h->xxh) {
		if (h->algo == HASH_XXH32)
			XXH32_freeState(h->xxh);
		else if (h->algo == HASH_XXH64)
			XXH64_freeState(h->xxh);
		else
			XXH3_freeState(h->xxh);
	}
	if (h->sha)
		h->ops->ctx_free(h->sha);
	h->xxh = h->sha = NULL;
	h->ops = NULL;
}

int hash_begin(struct hash_ctx *h)
{
	switch (h->algo) {
	case HASH_XXH3:
		return XXH3_128bits_reset(h->xxh) == XXH_OK ? 0 : -1;
	case HASH_XXH3_64:
		return XXH3_64bits_reset(h->xxh) == XXH_OK ? 0 : -1;
	case HASH_XXH32:
		return XXH32_reset(h->xxh, 0) == XXH_OK ? 0 : -1;
	case HASH_XXH64:
		return XXH64_reset(h->xxh, 0) == XXH_OK ? 0 : -1;
	default:
		return h->ops->begin(h->sha);
	}
}

int hash_update(struct hash_ctx *h, const void *p, size_t n)
{
	switch (h->algo) {
	case HASH_XXH3:
		return HASH_XXH_UPDATE(h->xxh, p, n) == XXH_OK ? 0 : -1;
	case HASH_XXH3_64:
		return HASH_XXH64_UPDATE(h->xxh, p, n) == XXH_OK ? 0 : -1;
	case HASH_XXH32:
		return XXH32_update(h->xxh, p, n) == XXH_OK ? 0 : -1;
	case HASH_XXH64:
		return XXH64_update(h->xxh, p, n) == XXH_OK ? 0 : -1;
	default:
		return h->ops->update(h->sha, p, n);
	}
}

/* The canonical (big-endian) forms: what xxhsum prints. */
static void xxh_canonical(XXH128_hash_t v, unsigned char *out)
{
	XXH128_canonical_t c;

	XXH128_canonicalFromHash(&c, v);
	memcpy(out, c.digest, sizeof(c.digest));
}

static void xxh64_canonical(XXH64_hash_t v, unsigned char *out)
{
	XXH64_canonical_t c;

	XXH64_canonicalFromHash(&c, v);
	memcpy(out, c.digest, sizeof(c.digest));
}

static void xxh32_canonical(XXH32_hash_t v, unsigned char *out)
{
	XXH32_canonical_t c;

	XXH32_canonicalFromHash(&c, v);
	memcpy(out, c.digest, sizeof(c.digest));
}

int hash_final(struct hash_ctx *h, unsigned char *out)
{
	switch (h->algo) {
	case HASH_XXH3:
		xxh_canonical(XXH3_128bits_digest(h->xxh), out);
		return 0;
	case HASH_XXH3_64:
		xxh64_canonical(XXH3_64bits_digest(h->xxh), out);
		return 0;
	case HASH_XXH32:
		xxh32_canonical(XXH32_digest(h->xxh), out);
		return 0;
	case HASH_XXH64:
		xxh64_canonical(XXH64_digest(h->xxh), out);
		return 0;
	default:
		return h->ops->final(h->sha, out);
	}
}

int hash_buffer(struct hash_ctx *h, const void *p, size_t n, unsigned char *out)
{
	switch (h->algo) {
	case HASH_XXH3:
		xxh_canonical(HASH_XXH_ONESHOT(p, n), out);
		return 0;
	case HASH_XXH3_64:
		xxh64_canonical(HASH_XXH64_ONESHOT(p, n), out);
		return 0;
	case HASH_XXH32:
		xxh32_canonical(XXH32(p, n, 0), out);
		return 0;
	case HASH_XXH64:
		xxh64_canonical(XXH64(p, n, 0), out);
		return 0;
	default:
		if (hash_begin(h) || hash_update(h, p, n))
			return -1;
		return hash_final(h, out);
	}
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
