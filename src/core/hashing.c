/*
 * hashing.c - XXH3-128 and SHA-256 behind one interface (hashing.h). On
 * x86-64 the XXH3 calls go through libxxhash's runtime dispatch, which
 * picks the AVX2/AVX-512 kernel the CPU has.
 */
#include "hashing.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <dlfcn.h>
#include <pthread.h>

#include <openssl/evp.h>
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

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcasecmp(s, tab[i].name)) {
			*out = tab[i].a;
			return 0;
		}
	return -1;
}


/*
 * libcrypto is loaded with dlopen the first time SHA-256 is asked for, not
 * linked: every other command (the guard above all, docs/guard.md
 * "Overhead") would otherwise carry its 1.4 MB of resident pages.
 */
static struct {
	__typeof__(EVP_MD_fetch) *md_fetch;
	__typeof__(EVP_MD_free) *md_free;
	__typeof__(EVP_MD_CTX_new) *ctx_new;
	__typeof__(EVP_MD_CTX_free) *ctx_free;
	__typeof__(EVP_DigestInit_ex2) *init;
	__typeof__(EVP_DigestUpdate) *update;
	__typeof__(EVP_DigestFinal_ex) *final;
	int ok;
} crypto;
static pthread_once_t crypto_once = PTHREAD_ONCE_INIT;

static void crypto_load(void)
{
	static const char *const names[] = {"libcrypto.so.3", "libcrypto.so"};
	void *lib = NULL;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !lib; i++)
		lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return;
	/* object pointer to function pointer through memcpy: ISO C forbids the cast */
#define SYM(field, name) do {					\
		void *s_ = dlsym(lib, name);				\
		if (!s_)						\
			return;						\
		memcpy(&crypto.field, &s_, sizeof(s_));			\
	} while (0)
	SYM(md_fetch, "EVP_MD_fetch");
	SYM(md_free, "EVP_MD_free");
	SYM(ctx_new, "EVP_MD_CTX_new");
	SYM(ctx_free, "EVP_MD_CTX_free");
	SYM(init, "EVP_DigestInit_ex2");
	SYM(update, "EVP_DigestUpdate");
	SYM(final, "EVP_DigestFinal_ex");
#undef SYM
	crypto.ok = 1;   /* the library stays loaded until exit */
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
	pthread_once(&crypto_once, crypto_load);
	if (!crypto.ok) {
		snprintf(err, errlen, "SHA-256 needs OpenSSL's libcrypto (libcrypto.so.3), which could not be loaded");
		return -1;
	}
	/* Fetch the implementation once per context, not per file. */
	if (!(h->md = crypto.md_fetch(NULL, "SHA256", NULL)) || !(h->evp = crypto.ctx_new())) {
		snprintf(err, errlen, "OpenSSL libcrypto provides no SHA-256");
		hash_free(h);
		return -1;
	}
	return 0;
}

void hash_free(struct hash_ctx *h)
{
	if (h->xxh)
		XXH3_freeState(h->xxh);
	if (h->evp)
		crypto.ctx_free(h->evp);
	if (h->md)
		crypto.md_free(h->md);
	h->xxh = h->evp = h->md = NULL;
}

int hash_begin(struct hash_ctx *h)
{
	if (h->algo == HASH_XXH3)
		return XXH3_128bits_reset(h->xxh) == XXH_OK ? 0 : -1;
	return crypto.init(h->evp, h->md, NULL) == 1 ? 0 : -1;
}

int hash_update(struct hash_ctx *h, const void *p, size_t n)
{
	if (h->algo == HASH_XXH3)
		return HASH_XXH_UPDATE(h->xxh, p, n) == XXH_OK ? 0 : -1;
	return crypto.update(h->evp, p, n) == 1 ? 0 : -1;
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
	unsigned int len = 0;

	if (h->algo == HASH_XXH3) {
		xxh_canonical(XXH3_128bits_digest(h->xxh), out);
		return 0;
	}
	return crypto.final(h->evp, out, &len) == 1 && len == 32 ? 0 : -1;
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
