/*
 * crypto.c - OpenSSL libcrypto's digests (EVP) behind the core's injected
 * hashing ops (crypto.h), loaded once through dl.h on first use.
 */
#include "os/crypto.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "base/util.h"
#include "os/dl.h"
#include "base/i18n.h"

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

/* One context: the method, fetched once per context, not per file. */
struct crypto_sha {
	EVP_MD *md;
	EVP_MD_CTX *evp;
	size_t size;      /* the digest's bytes */
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

/* OpenSSL's names of the digests (EVP_MD_fetch). */
static const char *evp_name(enum hash_algo a)
{
	switch (a) {
	case HASH_MD5: return "MD5";
	case HASH_SHA1: return "SHA1";
	case HASH_SHA256: return "SHA256";
	case HASH_SHA512: return "SHA512";
	case HASH_BLAKE2B: return "BLAKE2B-512";
	default: return NULL;
	}
}

static int sha_new(void **ctx, enum hash_algo a, char *err, size_t errlen)
{
	const char *name = evp_name(a);
	struct crypto_sha *s;

	*ctx = NULL;
	if (!name) {
		snprintf(err, errlen, _("%s is not a libcrypto digest"), hash_tag(a));
		return -1;
	}
	pthread_once(&crypto_once, crypto_load);
	if (!crypto_ok) {
		snprintf(err, errlen, _("%s needs OpenSSL's libcrypto (libcrypto.so.3), which could "
			 "not be loaded (%s)"), hash_tag(a), crypto_why);
		return -1;
	}
	if (!(s = calloc(1, sizeof(*s)))) {
		snprintf(err, errlen, _("out of memory for a %s context"), hash_tag(a));
		return -1;
	}
	s->size = hash_size(a);
	if (!(s->md = crypto.md_fetch(NULL, name, NULL)) || !(s->evp = crypto.ctx_new())) {
		snprintf(err, errlen, _("OpenSSL libcrypto provides no %s"), name);
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

static int sha_final(void *ctx, unsigned char *out)
{
	struct crypto_sha *s = ctx;
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0;

	if (crypto.final(s->evp, md, &len) != 1 || len != s->size)
		return -1;
	memcpy(out, md, len);
	return 0;
}

const struct hash_crypto_ops *crypto_hash_ops(void)
{
	static const struct hash_crypto_ops ops = {
		.ctx_new = sha_new,
		.ctx_free = sha_free,
		.begin = sha_begin,
		.update = sha_update,
		.final = sha_final,
	};

	return &ops;
}

