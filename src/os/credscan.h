/*
 * credscan.h - what a rented box keeps of its user that it should not:
 * credential files in the usual places under $HOME and .env in the
 * working directory (each read only to count what it holds, the buffer
 * zeroed after), the names (never the values) of environment variables
 * named like secrets, and the user's large files in /tmp and /dev/shm.
 * For `gpurent env` and `gpurent release`; verdicts in src/core/box/secscan.c.
 */
#ifndef GPURENT_CREDSCAN_H
#define GPURENT_CREDSCAN_H

#include <stddef.h>

#include "core/box/secscan.h"

/* The credential files under home and cwd into f->creds (appended). */
void credscan_files(struct sec_facts *f, const char *home, const char *cwd);

/* The names in envp ("NAME=value" strings) that secscan_secret_name()
 * flags, into f->envnames. */
void credscan_env(struct sec_facts *f, char *const *envp);

/* $GPURENT_TMP_ROOT, or "/tmp". Static or borrowed from the environment. */
const char *credscan_tmp_root(void);

/*
 * Files of this user at least min_bytes long (apparent size) under each
 * of roots (n of them; symlinks not followed, 8 levels deep at most),
 * into f->leftovers; f->tmp_roots names the roots.
 */
void credscan_leftovers(struct sec_facts *f, const char *const *roots, size_t n,
			double min_bytes);

#endif
