/*
 * estwords.h - the words of `gpurent estimate`: the sentences the
 * assumptions and warnings of src/core/estimate/estimate*.c state, and the link its
 * communication is timed over, made from their codes and facts, every one
 * marked for translation.
 */
#ifndef GPURENT_ESTWORDS_H
#define GPURENT_ESTWORDS_H

#include <stddef.h>

#include "core/estimate/estimate.h"

/* The buffer sizes `gpurent estimate` words into (longer sentences are
 * cut there, as they always were). */
#define EST_NOTE_MAX 200
#define EST_WARNING_MAX 320
#define EST_LINK_MAX 96
/* nodes > 1: how many, the link between them, the collective's bandwidth
 * (empty for one node); out of EST_NODES_MAX bytes */
#define EST_NODES_MAX 192
void est_word_nodes(const struct estimate *e, char *out, size_t len);

/*
 * The note n (an assumption or a warning) in words into out (len bytes,
 * NUL-terminated, cut to fit); the caller owns out, n is only read.
 */
void est_word(const struct est_note *n, char *out, size_t len);

/* The link of e's communication in words ("PCIe 4.0 x16, 65% of 31.5 GB/s
 * per direction"; "" when there is none) into out (len bytes). */
void est_word_link(const struct estimate *e, char *out, size_t len);

#endif
