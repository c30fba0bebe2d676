/*
 * crypto.c - OpenSSL libcrypto's SHA-256 (EVP) behind the core's injected
 * hashing ops (crypto.h), loaded once through dl.h on first use.
 */
#include "crypto.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <openssl/evp.h>

#include "../util/util.h"
#include "dl.h"

/* The EVP calls used; the prototypes come from OpenSSL's header, the
 * addresses from dlsym. */
struct crypto_fns {
	__typeof__(EVP_MD_fetch) *md_fetch;
	__typeof__(EVP_MD_free) *md_free;
	__typeof__(EVP_MD_CTX_new) *ctx_new;
	__typeof__(EVP_MD_CTX_free) *ctx_free;
	__typeof__(EVP_DigestInit_ex2) *init;
	__typeof__(EVP_DigestUpdate) *update;
	__typeof__(EVP_DigestFinal_ex) *final;
};

#define C(m) offsetof(struct crypto_fns, m)
/* MUST list every member of struct crypto_fns once. */
static const struct dl_sym crypto_syms[] = {
	{{"EVP_MD_fetch"}, C(md_fetch), true},
	{{"EVP_MD_free"}, C(md_free), true},
	{{"EVP_MD_CTX_new"}, C(ctx_new), true},
	{{"EVP_MD_CTX_free"}, C(ctx_free), true},
	{{"EVP_DigestInit_ex2"}, C(init), true},
	{{"EVP_DigestUpdate"}, C(update), true},
	{{"EVP_DigestFinal_ex"}, C(final), true},
};
#undef C

static const char *const crypto_libs[] = {"libcrypto.so.3", "libcrypto.so"};

static struct crypto_fns crypto;
static int crypto_ok;
static char crypto_why[256];
static pthread_once_t crypto_once = PTHREAD_ONCE_INIT;

static void crypto_load(void)
{
	struct dl_lib *lib;

	if (dl_open(crypto_libs, ARRAY_SIZE(crypto_libs), crypto_syms, ARRAY_SIZE(crypto_syms),
		    &crypto, &lib, crypto_why, sizeof(crypto_why)))
		return;
	dl_keep(lib);   /* libcrypto keeps global state: it stays loaded until exit */
	crypto_ok = 1;
}

/* One context: the SHA-256 method, fetched once per context, not per file. */
struct crypto_sha {
	EVP_MD *md;
	EVP_MD_CTX *evp;
};

static void sha_free(void *ctx)
{
	struct crypto_sha *s = ctx;

	if (!s)
		return;
	if (s->evp)
		crypto.ctx_free(s->evp);
	if (s->md)
		crypto.md_free(s->md);
	free(s);
}

static int sha_new(void **ctx, char *err, size_t errlen)
{
	struct crypto_sha *s;

	*ctx = NULL;
	pthread_once(&crypto_once, crypto_load);
	if (!crypto_ok) {
		snprintf(err, errlen, "SHA-256 needs OpenSSL's libcrypto (libcrypto.so.3), which could "
			 "not be loaded (%s)", crypto_why);
		return -1;
	}
	if (!(s = calloc(1, sizeof(*s)))) {
		snprintf(err, errlen, "out of memory for a SHA-256 context");
		return -1;
	}
	if (!(s->md = crypto.md_fetch(NULL, "SHA256", NULL)) || !(s->evp = crypto.ctx_new())) {
		snprintf(err, errlen, "OpenSSL libcrypto provides no SHA-256");
		sha_free(s);
		return -1;
	}
	*ctx = s;
	return 0;
}

static int sha_begin(void *ctx)
{
	struct crypto_sha *s = ctx;

	return crypto.init(s->evp, s->md, NULL) == 1 ? 0 : -1;
}

static int sha_update(void *ctx, const void *p, size_t n)
{
	struct crypto_sha *s = ctx;

	return crypto.update(s->evp, p, n) == 1 ? 0 : -1;
}

static int sha_final(void *ctx, unsigned char out[32])
{
	struct crypto_sha *s = ctx;
	unsigned int len = 0;

	return crypto.final(s->evp, out, &len) == 1 && len == 32 ? 0 : -1;
}

const struct hash_sha256_ops *crypto_sha256_ops(void)
{
	static const struct hash_sha256_ops ops = {
		.ctx_new = sha_new,
		.ctx_free = sha_free,
		.begin = sha_begin,
		.update = sha_update,
		.final = sha_final,
	};

	return &ops;
}
