/*
 * ckptwords.h - the words of `gpurent ckpt`: why src/core/box/ckpt.c
 * classified an entry as it did, from its code, marked for translation.
 */
#ifndef GPURENT_CKPTWORDS_H
#define GPURENT_CKPTWORDS_H

#include <stddef.h>

#include "core/box/ckpt.h"

/* "no step number in the name", "an empty file", ...; "" for
 * CKPT_WHY_NONE, "?" out of range. Static (translated). */
const char *ckpt_why_word(enum ckpt_why w);

/* Set each of c[0..n)'s why to the words of its code (the caller's array;
 * the strings are static). */
void ckpt_word_classes(struct ckpt_class *c, size_t n);

#endif
