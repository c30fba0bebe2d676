/*
 * probewords.h - the words of `gpurent probe` (src/cmd/probe/cmd_probe.c): what
 * each diagnosis of src/core/estimate/probe.h is called, its evidence in a
 * sentence and the fix the seed article gives for it (000 §5.1), and the
 * loggers' names. docs/probe.md has each rule and its source.
 */
#ifndef GPURENT_PROBEWORDS_H
#define GPURENT_PROBEWORDS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/estimate/probe.h"

/* "warm-up", "data loading", ...; "?" out of range. Static, English (for
 * JSON); a human gets _() of it, the tables being marked N_(). */
const char *probe_word_title(enum probe_code c);

/* The fix, one sentence; "" when the diagnosis has none. Static. */
const char *probe_word_fix(enum probe_code c);

/* The diagnosis's facts in a sentence ("the first 2 steps took 3.20 s
 * against 0.200 s steady") into buf: in the user's language when human,
 * in English for JSON. */
void probe_word_evidence(const struct probe_diag *d, bool human, char *buf, size_t n);

/* "Hugging Face Trainer", "tqdm bar", ...; "none" for PROBE_LOG_NONE. Static. */
const char *probe_word_logger(enum probe_logger l);

#endif
