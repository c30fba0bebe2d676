/*
 * envwords.h - the words of `gpurent env`: the sentences a finding of
 * src/core/box/envcheck.c states (what it found and, when not ok, the fix),
 * made from its code and facts, every one marked for translation.
 */
#ifndef GPURENT_ENVWORDS_H
#define GPURENT_ENVWORDS_H

#include <stddef.h>

#include "core/box/envcheck.h"

/* The buffer sizes `gpurent env` words its findings into (longer sentences
 * are cut there, as they always were). */
#define ENV_WHAT_MAX 384
#define ENV_FIX_MAX 512

/*
 * The finding f in words: what it found into what (whatlen bytes), what to
 * do into fix (fixlen bytes; "" when nothing: an ok or info finding). Both
 * are NUL-terminated and cut to fit; the caller owns both buffers, f is
 * only read.
 */
void env_word(const struct env_finding *f, char *what, size_t whatlen, char *fix, size_t fixlen);

/* "PyTorch", "TensorFlow", "JAX" for "torch", "tensorflow", "jax"; any
 * other name as it is. Static or borrowed from name. */
const char *env_fw_title(const char *name);

#endif
