/*
 * crypto.h - SHA-256 from OpenSSL's libcrypto (EVP), for the core's
 * hashing (src/core/hashing.h takes it injected). libcrypto is loaded
 * through src/os/dl.h the first time a SHA-256 context is made, not
 * linked: every other command (the guard above all, docs/guard.md
 * "Overhead") would otherwise carry its 1.4 MB of resident pages.
 */
#ifndef GPURENT_CRYPTO_H
#define GPURENT_CRYPTO_H

#include "../core/hashing.h"

/*
 * libcrypto's SHA-256 as hashing ops: install with
 * hashing_set_sha256(crypto_sha256_ops()). Static, never NULL; nothing is
 * loaded until the first ctx_new(), which fails with "SHA-256 needs
 * OpenSSL's libcrypto (libcrypto.so.3), which could not be loaded (...)"
 * when it is absent. Thread-safe; the library stays loaded until exit.
 */
const struct hash_sha256_ops *crypto_sha256_ops(void);

#endif
