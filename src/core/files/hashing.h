/*
 * hashing.h - the content hashes of dataset manifests behind one small
 * streaming interface: the xxHash family (libxxhash: XXH3-128, gpurent's
 * default, and XXH32, XXH64, XXH3-64 as xxhsum -H0/-H1/-H3 write them) and
 * the cryptographic ones the checksum tools write (MD5, SHA-1, SHA-256,
 * SHA-512, BLAKE2b-512). The core loads nothing: the cryptographic hashes
 * are an implementation the command layer installs with
 * hashing_set_crypto() (src/os/crypto.h: OpenSSL libcrypto's EVP). BLAKE3
 * (b3sum) has a name, a size and a tag here but no implementation: the
 * command layer runs the b3sum program (src/os/b3sum.h).
 */
#ifndef GPURENT_HASHING_H
#define GPURENT_HASHING_H

#include <stdbool.h>
#include <stddef.h>

/* The values of HASH_XXH3 and HASH_SHA256 are those of earlier releases. */
enum hash_algo {
	HASH_XXH3 = 0,       /* XXH3-128 ("xxh3-128"; xxhsum -H2, tag XXH128) */
	HASH_SHA256 = 1,     /* sha256sum */
	HASH_MD5,            /* md5sum, md5deep */
	HASH_SHA1,           /* sha1sum */
	HASH_SHA512,         /* sha512sum */
	HASH_BLAKE2B,        /* b2sum (BLAKE2b-512) */
	HASH_BLAKE3,         /* b3sum: no implementation in process */
	HASH_XXH32,          /* xxhsum -H0 */
	HASH_XXH64,          /* xxhsum -H1 */
	HASH_XXH3_64,        /* xxhsum -H3 (tag XXH3) */
	HASH_NALGOS
};

#define HASH_MAX_BYTES 64           /* largest digest (SHA-512, BLAKE2b-512) */
#define HASH_MAX_HEX (2 * HASH_MAX_BYTES)

/* Digest length in bytes. */
size_t hash_size(enum hash_algo a);

/* Name as written in gpurent manifests and accepted by --hash:
 * "xxh3-128", "sha256", "md5", "sha1", "sha512", "blake2b", "blake3",
 * "xxh32", "xxh64", "xxh3-64". Static. */
const char *hash_name(enum hash_algo a);

/* The BSD tag (`sha256sum --tag`, `xxhsum --tag`): "XXH128", "SHA256",
 * "MD5", "SHA1", "SHA512", "BLAKE2b", "BLAKE3", "XXH32", "XXH64", "XXH3".
 * Static. */
const char *hash_tag(enum hash_algo a);

/* The algorithm of a BSD tag (exact case, as the tools write them);
 * 0, or -1 when the tag names none of them. */
int hash_parse_tag(const char *s, size_t n, enum hash_algo *out);

/* Whether a is computed by libxxhash (true) or by the injected
 * cryptographic implementation / b3sum (false). */
bool hash_is_xxh(enum hash_algo a);

/*
 * Parse a hash name (case-insensitive): hash_name()'s and "xxh3",
 * "xxh128" (XXH3-128), "sha-256", "sha-1", "sha-512", "b2", "blake2b-512",
 * "b3". Returns 0, or -1 when the name is unknown.
 */
int hash_parse_name(const char *s, enum hash_algo *out);

/*
 * The cryptographic hashes, injected. Every function gets the context
 * ctx_new() made; the table and its functions must stay valid as long as
 * any hash_ctx made while it was installed.
 */
struct hash_crypto_ops {
	/* A fresh context for a (MD5, SHA-1, SHA-256, SHA-512, BLAKE2b) into
	 * *ctx: 0, or -1 with one sentence in err (the library cannot be
	 * loaded, it lacks the algorithm, memory runs out). Freed with
	 * ctx_free(). */
	int (*ctx_new)(void **ctx, enum hash_algo a, char *err, size_t errlen);
	void (*ctx_free)(void *ctx);
	int (*begin)(void *ctx);                             /* 0 or -1 */
	int (*update)(void *ctx, const void *p, size_t n);   /* 0 or -1 */
	int (*final)(void *ctx, unsigned char *out);         /* hash_size() bytes; 0 or -1 */
};

/*
 * Install the implementation hash_init() uses from now on (NULL: none,
 * hash_init() of a cryptographic hash then fails). ops is borrowed: it
 * must outlive every context made with it. Call it before starting the
 * threads that hash (it is a plain store, not synchronised).
 */
void hashing_set_crypto(const struct hash_crypto_ops *ops);

/*
 * One streaming context; not shared between threads (give each worker its
 * own). hash_init() returns 0, or -1 with a message in err when no
 * implementation provides the algorithm (BLAKE3 never has one) or memory
 * runs out; on success the caller releases it with hash_free() (safe on a
 * zeroed or failed context).
 */
struct hash_ctx {
	enum hash_algo algo;
	void *xxh;                            /* the XXH state, owned */
	void *sha;                            /* the cryptographic context, owned */
	const struct hash_crypto_ops *ops;    /* borrowed: what made sha */
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
