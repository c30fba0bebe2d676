/*
 * hashing.h - the two content hashes of dataset manifests behind one small
 * streaming interface: XXH3-128 (libxxhash, the default: fast and
 * non-cryptographic) and SHA-256. The core loads nothing: SHA-256 is an
 * implementation the command layer installs with hashing_set_sha256()
 * (src/os/crypto.h: OpenSSL libcrypto's EVP, which uses the CPU's SHA
 * extensions; what sha256sum and hashdeep check).
 */
#ifndef GPURENT_HASHING_H
#define GPURENT_HASHING_H

#include <stdbool.h>
#include <stddef.h>

enum hash_algo { HASH_XXH3 = 0, HASH_SHA256 = 1 };

#define HASH_MAX_BYTES 32           /* largest digest (SHA-256) */
#define HASH_MAX_HEX (2 * HASH_MAX_BYTES)

/* Digest length in bytes: 16 for XXH3-128, 32 for SHA-256. */
size_t hash_size(enum hash_algo a);

/* Name as written in gpurent manifests: "xxh3-128" or "sha256". Static. */
const char *hash_name(enum hash_algo a);

/*
 * Parse a hash name: "xxh3", "xxh3-128", "xxh128" or "sha256"/"sha-256"
 * (case-insensitive). Returns 0, or -1 when the name is unknown.
 */
int hash_parse_name(const char *s, enum hash_algo *out);

/*
 * A SHA-256 implementation, injected. Every function gets the context
 * ctx_new() made; the table and its functions must stay valid as long as
 * any hash_ctx made while it was installed.
 */
struct hash_sha256_ops {
	/* A fresh context into *ctx: 0, or -1 with one sentence in err (the
	 * library cannot be loaded, memory runs out). Freed with ctx_free(). */
	int (*ctx_new)(void **ctx, char *err, size_t errlen);
	void (*ctx_free)(void *ctx);
	int (*begin)(void *ctx);                             /* 0 or -1 */
	int (*update)(void *ctx, const void *p, size_t n);   /* 0 or -1 */
	int (*final)(void *ctx, unsigned char out[32]);      /* 0 or -1 */
};

/*
 * Install the SHA-256 implementation hash_init() uses from now on (NULL:
 * none, hash_init(HASH_SHA256) then fails). ops is borrowed: it must
 * outlive every context made with it. Call it before starting the
 * threads that hash (it is a plain store, not synchronised).
 */
void hashing_set_sha256(const struct hash_sha256_ops *ops);

/*
 * One streaming context; not shared between threads (give each worker its
 * own). hash_init() returns 0, or -1 with a message in err when no
 * implementation provides the algorithm or memory runs out; on success
 * the caller releases it with hash_free() (safe on a zeroed or failed
 * context).
 */
struct hash_ctx {
	enum hash_algo algo;
	void *xxh;                            /* XXH3_state_t *, owned */
	void *sha;                            /* the SHA-256 context, owned */
	const struct hash_sha256_ops *ops;    /* borrowed: what made sha */
};
int hash_init(struct hash_ctx *h, enum hash_algo a, char *err, size_t errlen);
void hash_free(struct hash_ctx *h);

/* Start a new digest, feed bytes, finish into out (hash_size() bytes). 0 or -1. */
int hash_begin(struct hash_ctx *h);
int hash_update(struct hash_ctx *h, const void *p, size_t n);
int hash_final(struct hash_ctx *h, unsigned char *out);

/* The whole digest of one buffer (small files: no streaming state). 0 or -1. */
int hash_buffer(struct hash_ctx *h, const void *p, size_t n, unsigned char *out);

/* Lower-case hex of n bytes into hex (2n+1 bytes); returns hex. */
char *hash_to_hex(const unsigned char *d, size_t n, char *hex);

/*
 * Parse exactly 2n hex digits (either case) from s into d. Returns 0, or
 * -1 when s[0..2n) holds anything else.
 */
int hash_from_hex(const char *s, size_t n, unsigned char *d);

#endif
