/*
 * secwords.h - the words of `gpurent env`'s security findings
 * (src/core/box/secscan.c): what was found and the fix, never a secret's
 * value (the facts hold none), every sentence marked for translation.
 */
#ifndef GPURENT_SECWORDS_H
#define GPURENT_SECWORDS_H

#include <stddef.h>

#include "core/box/secscan.h"

/*
 * The finding f in words: what it found into what (whatlen bytes), the
 * fix into fix (fixlen bytes; "" when none). Both NUL-terminated and cut
 * to fit; the caller owns both, f is only read.
 */
void sec_word(const struct sec_finding *f, char *what, size_t whatlen, char *fix, size_t fixlen);

#endif
