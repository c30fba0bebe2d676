/*
 * crypto.h - the cryptographic hashes of manifests: MD5, SHA-1, SHA-256,
 * SHA-512 and BLAKE2b-512 from OpenSSL's libcrypto (EVP), for the core's
 * hashing (src/core/files/hashing.h takes them injected; BLAKE3 is b3sum.h's).
 * libcrypto is loaded
 * through src/os/dl.h the first time a context is made, not linked: every
 * other command (the guard above all, docs/guard.md "Overhead") would
 * otherwise carry its 1.4 MB of resident pages.
 */
#ifndef GPURENT_CRYPTO_H
#define GPURENT_CRYPTO_H

#include "core/files/hashing.h"

/*
 * libcrypto's hashes as hashing ops: install with
 * hashing_set_crypto(crypto_hash_ops()). Static, never NULL; nothing is
 * loaded until the first ctx_new(), which fails with "SHA256 needs
 * OpenSSL's libcrypto (libcrypto.so.3), which could not be loaded (...)"
 * when it is absent. Thread-safe; the library stays loaded until exit.
 */
const struct hash_crypto_ops *crypto_hash_ops(void);

#endif
