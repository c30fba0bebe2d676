/*
 * manifest.h - dataset manifests: the list of a directory tree's files
 * with size and content hash, written and read in four formats (gpurent's
 * own; the checksum tools' `HASH  NAME` lines (md5sum, sha1sum, sha256sum,
 * sha512sum, b2sum, b3sum, xxhsum, md5deep); their BSD `--tag` lines;
 * hashdeep's), and the comparison of a recorded manifest
 * with what a directory holds now. Walking the tree and reading the files
 * is the caller's job (src/os/walk.c); this module only holds, formats,
 * parses and compares.
 */
#ifndef GPURENT_MANIFEST_H
#define GPURENT_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/files/hashing.h"

/* MF_SHA256SUM is every tool's `HASH  NAME` layout, whatever the hash. */
enum mf_format { MF_GPURENT = 0, MF_SHA256SUM = 1, MF_HASHDEEP = 2, MF_BSD = 3 };

enum mf_kind {
	MF_FILE = 0,         /* regular file: size and content hash */
	MF_SYMLINK,          /* symbolic link, not followed: size and hash of its target text */
	MF_OTHER,            /* FIFO, socket, device: never recorded */
	MF_UNREADABLE,       /* could not be opened, read or followed; err says why */
	MF_DIR_UNREADABLE,   /* a directory that could not be listed; err says why */
};

struct mf_entry {
	char *path;          /* owned; relative, '/'-separated, any bytes but NUL */
	uint64_t size;
	unsigned char hash[HASH_MAX_BYTES];
	unsigned char kind;  /* enum mf_kind */
	bool has_hash;
	int err;             /* errno for the MF_*UNREADABLE kinds, else 0 */
	unsigned long line;  /* line in the manifest file it was read from; 0 when walked */
};

struct manifest {
	enum mf_format format;
	enum hash_algo algo;
	bool follow_symlinks;  /* symlinks were followed (recorded as what they point to) */
	bool has_sizes;        /* false for sha256sum and BSD files, which hold no sizes */
	bool zero;             /* read from a NUL-terminated (`sha256sum -z`) file */
	struct mf_entry *v;    /* owned */
	size_t n, cap;
};

/* An empty manifest; release with manifest_free(). */
void manifest_init(struct manifest *m, enum mf_format f, enum hash_algo a);
void manifest_free(struct manifest *m);

/*
 * Append an entry for path[0..len) (copied; must not contain NUL) with no
 * hash yet. Returns the new entry (valid until the next add), or NULL when
 * memory runs out.
 */
struct mf_entry *manifest_add(struct manifest *m, const char *path, size_t len,
			      enum mf_kind kind, uint64_t size);

/* Sort entries by path, bytewise (the order every format is written in). */
void manifest_sort(struct manifest *m);

/* Index of path in a sorted manifest, or -1. */
long manifest_find(const struct manifest *m, const char *path);

/* "gpurent", "sha256sum", "hashdeep", "bsd" (static). */
const char *manifest_format_name(enum mf_format f);
/* 0, or -1 when s names no format. */
int manifest_parse_format(const char *s, enum mf_format *out);

/* Whether the format records symlinks as symlinks (only gpurent's, when not following). */
bool manifest_records_symlinks(const struct manifest *m);

/* What a manifest may state (every number read from one is checked):
 * a file's size and the sum of the sizes at most 1 EB, the counts in
 * the header at most 1e12. */
#define MF_MAX_BYTES 1000000000000000000ULL
#define MF_MAX_FILES 1000000000000ULL

struct mf_totals {
	uint64_t files, bytes;   /* regular files and their bytes */
	uint64_t symlinks;
};
void manifest_totals(const struct manifest *m, struct mf_totals *t);

/*
 * true when the path can be written in format f with hash a: hashdeep
 * files cannot hold a newline or carriage return in a name, nor can the
 * xxHash lines in the sha256sum and BSD layouts (xxhsum 0.8.1 neither
 * escapes names nor reads escaped ones: a newline would end the line, a
 * CR at the end be read as a CRLF line end); the others escape them.
 */
bool manifest_path_fits(enum mf_format f, enum hash_algo a, const char *path);

/*
 * Whether the names of format f with hash a are escaped as coreutils does
 * (a leading '\', then "\\", "\n", "\r"): every format but hashdeep,
 * and the xxHash lines that xxhsum 0.8.1 writes raw.
 */
bool manifest_escapes(enum mf_format f, enum hash_algo a);

/*
 * Render the sorted manifest m in its format into a new buffer (*out,
 * *len; the caller frees *out). Only MF_FILE entries with a hash, and
 * MF_SYMLINK ones in the gpurent format, are written. invoked_from and
 * command fill hashdeep's "## Invoked from:" and "## $" comment lines
 * (NULL: left out). Returns 0, or -1 with a message in err (a name the
 * format cannot hold, a hash the format cannot hold, no memory).
 */
int manifest_render(const struct manifest *m, const char *invoked_from, const char *command,
		    char **out, size_t *len, char *err, size_t errlen);

/*
 * Parse a manifest in any of the three formats (detected from the first
 * line) from buf[0..len); fname names it in messages. On success m holds
 * the sorted entries (the caller frees it with manifest_free()) and 0 is
 * returned. On malformed input returns -1 with one line
 * "FNAME:LINE: what was expected" in err, and m is left empty.
 */
int manifest_parse(const char *buf, size_t len, const char *fname, struct manifest *m,
		   char *err, size_t errlen);

/*
 * What manifest_parse_opts() is told besides the bytes. algo_set: the
 * user named the hash (--hash algo); xxh3_any: the name was "xxh3",
 * meaning XXH3-128 or XXH3-64 by the digest's length.
 */
struct mf_parse_opts {
	bool algo_set;
	bool xxh3_any;
	enum hash_algo algo;
};

/*
 * manifest_parse() with o (NULL: nothing told). The hash of a checksum
 * file comes, in this order, from the BSD tag, the hashdeep column line,
 * o, the file name (manifest_algo_by_filename() of fname), the digest
 * length where unique (manifest_algo_by_length()); when none decides,
 * the file is refused with one line asking for --hash, never guessed.
 * Lines end in LF or CRLF; a file holding NUL bytes is read as the
 * NUL-terminated records of `sha256sum -z` (names not escaped).
 */
int manifest_parse_opts(const char *buf, size_t len, const char *fname,
			const struct mf_parse_opts *o, struct manifest *m, char *err, size_t errlen);

/*
 * The digest-length table (docs/manifest.md): the algorithm that hexlen
 * hex digits mean when nothing else says. Returns 1 with *out set when
 * exactly one does (8 xxh32, 40 sha1); 0 when several do (16, 32, 64,
 * 128), with their names in *names ("MD5 or XXH128", static); -1 when none.
 */
int manifest_algo_by_length(size_t hexlen, enum hash_algo *out, const char **names);

/*
 * The algorithm a checksum file's name says (the last '/' part, case
 * insensitive): MD5SUMS, SHA1SUMS, SHA256SUMS, SHA512SUMS, B2SUMS,
 * B3SUMS and the extensions .md5, .sha1, .sha256, .sha512, .b2, .blake2b,
 * .b3, .blake3, .xxh32, .xxh64, .xxh128, .xxh3 (XXH3-128 or -64: *xxh3_any
 * set). Returns 0 with *out set, or -1 when the name says nothing.
 */
int manifest_algo_by_filename(const char *fname, enum hash_algo *out, bool *xxh3_any);

/*
 * Escape a name as coreutils' sha256sum does: '\\' -> "\\\\", '\n' -> "\\n",
 * '\r' -> "\\r". Writes at most n bytes (always terminated) into out and
 * returns true when anything was escaped (the line then starts with '\\').
 */
bool manifest_escape(const char *path, char *out, size_t n);

/* ---- comparing a recorded manifest with a walked tree ---- */

enum mf_problem {
	MF_MISSING = 0,      /* recorded, not there */
	MF_EXTRA,            /* there, not recorded */
	MF_SIZE_CHANGED,
	MF_CONTENT_CHANGED,  /* same size (or size unknown), other hash; or another kind of entry */
	MF_UNREADABLE_FILE,  /* recorded, there, but cannot be read */
	MF_NPROBLEMS
};

/* "missing", "extra", "size-changed", "content-changed", "unreadable" (static). */
const char *manifest_problem_name(enum mf_problem p);

struct mf_issue {
	enum mf_problem what;
	const struct mf_entry *want;   /* borrowed from the recorded manifest; NULL for extra */
	const struct mf_entry *have;   /* borrowed from the walked one; NULL for missing */
};

struct mf_diff {
	struct mf_issue *v;            /* owned, in path order */
	size_t n, cap;
	size_t count[MF_NPROBLEMS];
	size_t expected;               /* entries in the recorded manifest */
	size_t matched;
	uint64_t matched_bytes;
};

/*
 * Which walked entries need their content hashed before comparing: the
 * regular files of have whose path is recorded in want as a regular file
 * with the same size (or with no recorded size). Writes their indices
 * into idx (room for have->n) and returns how many. Both sorted.
 */
size_t manifest_plan(const struct manifest *want, const struct manifest *have, size_t *idx);

/*
 * Compare the recorded manifest want with the walked tree have (both
 * sorted; have's planned files hashed unless quick). quick compares
 * presence and sizes only. Fills d (the caller frees it with
 * mf_diff_free(); it borrows from want and have). Returns 0, or -1 when
 * memory runs out.
 */
int manifest_compare(const struct manifest *want, const struct manifest *have, bool quick,
		     struct mf_diff *d);
void mf_diff_free(struct mf_diff *d);

#endif
