/*
 * b3sum.h - BLAKE3 digests through the b3sum program: Debian 12 has no
 * BLAKE3 C library, only the tool (package b3sum, BLAKE3 1.2.0 on
 * bookworm), so `gpurent verify` of a b3sum file runs it, through
 * src/os/child.h, never a shell.
 */
#ifndef GPURENT_B3SUM_H
#define GPURENT_B3SUM_H

#include <stdbool.h>
#include <stddef.h>

/*
 * BLAKE3 of the files paths[0..n) (as given to the program: relative to
 * the working directory, or absolute) with the b3sum program found on
 * PATH, run through src/os/child.h (no shell; names after "--", so a
 * leading '-' is a name). Runs b3sum on batches of names with
 * --no-names; a batch that fails (a file cannot be read) is redone one
 * file at a time, so each digest belongs to its file whatever the names
 * hold. out[32 i ...] gets file i's digest and ok[i] whether it has one.
 * Returns 0, or -1 with one sentence in err when b3sum is not installed
 * ("BLAKE3 needs the b3sum program (Debian package b3sum), ...") or its
 * output cannot be read. The program is taken from $GPURENT_B3SUM when
 * that is set (tests).
 */
int b3sum_files(const char *const *paths, size_t n, unsigned char *out, bool *ok,
		       char *err, size_t errlen);

#endif
