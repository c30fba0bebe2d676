/*
 * ckpt.h - which checkpoint in a directory to resume from, and which to
 * prune, decided from a list of directory entries (the command layer reads
 * the directory). The rules, also in docs/checkpoints.md:
 *
 *  - A checkpoint is an entry whose name carries a step number: the last
 *    run of digits once extensions with letters are stripped ("step_1000.pt"
 *    is 1000, "epoch=3-step=1000.ckpt" is 1000, "model_v2.h5" is 2). Steps
 *    compare as numbers, so step_1000 comes after step_999.
 *  - Temporary files are never checkpoints: hidden names (".step_10.tmp"),
 *    names with a ".tmp" or "tmp." part, "~", ".part", ".partial",
 *    ".incomplete", ".lock", ".swp" endings, and a mkstemp-style last
 *    suffix of six letters and digits that is not all lower case.
 *  - Markers: "NAME.complete", "NAME.done" (any case) beside an entry NAME,
 *    or a marker file inside a checkpoint directory (the command layer
 *    looks for COMPLETE, DONE, .complete, .metadata, trainer_state.json).
 *  - Complete: when any entry in the directory has a marker, the writer
 *    uses markers, and an entry is complete only with its marker. Otherwise
 *    the writer is taken to use the atomic protocol (temp file, fsync,
 *    rename), under which anything at its final name is whole: complete
 *    unless it is empty (a zero-length file, an empty directory), which is
 *    the signature of a torn write.
 *  - Newest: the highest step; equal steps by modification time, then name.
 */
#ifndef GPURENT_CKPT_H
#define GPURENT_CKPT_H

/*
 * Bounds of `gpurent ckpt interval` (docs/checkpoints.md "Bounds"): an
 * expected overhead above CKPT_OVERHEAD_MAX (1000%: the job would take
 * more than 11x its work) is "cannot make useful progress" (exit 1);
 * other overheads above it print as "over 1000%"; a wall time without
 * checkpoints above CKPT_NO_CKPT_MAX_STRETCH x the work is "not viable"
 * (as spot in `cost`, BILLING_SPOT_MAX_STRETCH); expected interruptions
 * above CKPT_INTERRUPTIONS_MAX print as "over 1000000"; a --price whose
 * bound price x 11 x work could pass CKPT_MONEY_MAX is refused (exit 2).
 */
#define CKPT_OVERHEAD_MAX 10.0
#define CKPT_NO_CKPT_MAX_STRETCH 100.0
#define CKPT_INTERRUPTIONS_MAX 1e6
#define CKPT_MONEY_MAX 1e15

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One directory entry as the command layer saw it. */
struct ckpt_entry {
	const char *name;     /* borrowed; no '/' */
	bool is_dir;
	bool empty;           /* zero-length file or directory with no entries */
	bool has_marker;      /* a directory holding a completion marker file */
	int64_t mtime_ns;     /* modification time, for equal steps */
};

enum ckpt_kind {
	CKPT_OTHER,       /* no step number: not a checkpoint (README, last.ckpt, ...) */
	CKPT_TEMP,        /* a temporary file: ignored, never pruned */
	CKPT_MARKER,      /* a completion marker beside another entry */
	CKPT_COMPLETE,    /* a checkpoint to resume from */
	CKPT_TORN,        /* a checkpoint name whose content is not known whole */
};

/* Why an entry is what it is (the words are the command layer's:
 * src/cmd/box/ckptwords.c; ckpt_why_name() gives stable names). Append, never
 * renumber. */
enum ckpt_why {
	CKPT_WHY_NONE,        /* complete, or a marker: nothing to explain */
	CKPT_WHY_NO_STEP,     /* other: no step number in the name */
	CKPT_WHY_TEMP,        /* temp: a temporary file name */
	CKPT_WHY_NO_MARKER,   /* torn: no completion marker where other checkpoints have one */
	CKPT_WHY_EMPTY_DIR,   /* torn: an empty directory */
	CKPT_WHY_EMPTY_FILE,  /* torn: an empty file */
	CKPT_WHY_COUNT
};

/* The verdict on one entry. */
struct ckpt_class {
	enum ckpt_kind kind;
	uint64_t step;        /* valid for CKPT_COMPLETE and CKPT_TORN */
	enum ckpt_why code;
	/* The words of code, for the command layer to fill (ckpt_word_classes(),
	 * src/cmd/box/ckptwords.c) before it prints them; ckpt_classify() leaves
	 * it NULL. Static when set. */
	const char *why;
};

/* "none", "no_step", "temp_name", "no_marker", "empty_dir", "empty_file";
 * "?" out of range. Static. */
const char *ckpt_why_name(enum ckpt_why w);

/* true for a temporary file name (rules above). */
bool ckpt_name_is_temp(const char *name);

/* Extract the step number; returns true and sets *step, or false when the
 * name carries none (or more than 19 digits). */
bool ckpt_name_step(const char *name, uint64_t *step);

/* If name is "X.complete"/"X.done" (any case), the length of X, else 0. */
size_t ckpt_name_marker_base(const char *name);

/* true when name is one of the marker files looked for inside a directory. */
bool ckpt_is_dir_marker(const char *name);

/*
 * Classify n entries into out[n] (caller's array). Returns true when the
 * directory is in marker mode (some entry has a marker). Pure.
 */
bool ckpt_classify(const struct ckpt_entry *e, size_t n, struct ckpt_class *out);

/*
 * Index of the newest complete checkpoint among e[0..n), or -1 for none.
 * Pure.
 */
long ckpt_latest(const struct ckpt_entry *e, size_t n);

/*
 * Which entries `prune --keep keep` removes: complete checkpoints beyond
 * the `keep` newest, their sibling markers, and torn checkpoints older
 * than the newest complete one (leftovers of a crash; a torn entry newer
 * than that may be a write in progress and is left alone), and the atomic
 * protocol's own temp files (".NAME.tmp.XXXXXX") last modified before the
 * newest complete checkpoint. Other temporary files are never chosen.
 * keep >= 1. Writes indices into victims (caller's array of n) and
 * returns how many. Pure.
 */
size_t ckpt_prune(const struct ckpt_entry *e, size_t n, size_t keep, size_t *victims);

#endif
