/*
 * common.h - what the commands share: loading the data tables (from
 * --data-dir or the copies embedded in the binary), reading files, the
 * exit codes, and a small JSON writer.
 */
#ifndef GPURENT_COMMON_H
#define GPURENT_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>

#include "core/market/billing.h"
#include "core/model/gpu.h"
#include "core/model/model.h"

#include "base/msg.h"   /* EXIT_OK, EXIT_RUNTIME, EXIT_USAGE and the messages */

/* Set by `gpurent --data-dir DIR` (or GPURENT_DATA_DIR); NULL = embedded. */
extern const char *common_data_dir;

/* Embedded copies of every data/ CSV file, by file name, ending with a
 * NULL name (build/embedded.c, made by tools/embed.c). */
struct embedded_file {
	const char *name;
	const char *data;
	size_t len;
};
extern const struct embedded_file embedded_files[];

/*
 * The contents of data file `name` (e.g. "gpus.csv"): from --data-dir when
 * given, else the embedded copy. *path names it for messages ("gpus.csv"
 * or "DIR/gpus.csv"; static storage, valid until the next call). When the
 * file was read from disk *owned is the buffer to free(), else NULL.
 * Returns 0, or prints one line and returns the exit code (2).
 */
int common_data_file(const char *name, const char **buf, size_t *len, char **owned,
		     const char **path);

/*
 * Load data/gpus.csv and data/models.csv (either may be NULL to skip).
 * Prints one line to stderr on failure and returns the exit code to use
 * (2 for a bad data file), 0 on success. Caller frees with the _free()s.
 */
int common_load_data(struct gpu_db *gdb, struct model_db *mdb);

/*
 * Load data/billing.csv (the billing profiles). Prints one line to stderr
 * on failure and returns the exit code to use, 0 on success. Caller frees
 * with billing_db_free().
 */
int common_load_billing(struct billing_db *db);

/*
 * Read a whole regular file; caller frees *buf. 0, or -1 with a message
 * in err ("PATH: expected a regular file, got a FIFO" for anything else:
 * FIFOs are refused without waiting for a writer).
 */
int common_read_file(const char *path, char **buf, size_t *len, char *err, size_t errlen);

/*
 * Open path read-only when it is a regular file, without blocking on a
 * FIFO (O_NONBLOCK, then fstat). Returns the descriptor (caller closes;
 * O_NONBLOCK cleared) with *st filled, or -1 with "PATH: cannot open: ..."
 * or "PATH: expected a regular file, got a FIFO" in err.
 */
int common_open_regular(const char *path, struct stat *st, char *err, size_t errlen);

/* "a FIFO", "a directory", "a socket", ... for messages; static storage. */
const char *common_file_kind(mode_t mode);

/* true when a money argument names its currency ("$1.2", "1.32CNY", "¥2"), not "1e3" */
bool common_money_has_code(const char *v);


/* Minimal JSON writer to stdout: objects/arrays with comma bookkeeping. */
struct json {
	FILE *f;
	int depth;
	bool need_comma[32];
};
/* Also turns translation off (msg_untranslated()): JSON never changes with the locale. */
void json_init(struct json *j, FILE *f);
void json_obj_begin(struct json *j, const char *key);  /* key NULL in arrays/top */
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j, const char *key);
void json_arr_end(struct json *j);
void json_num(struct json *j, const char *key, double v);   /* non-finite -> null */
void json_int(struct json *j, const char *key, long v);
void json_str(struct json *j, const char *key, const char *v);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);

/*
 * Report walk_tree()'s failure r (src/os/walk.h) on dir with its message
 * err, one line. Returns the exit code: 2 for a tree nested too deep
 * (r == -2), else 1.
 */
int common_walk_error(const char *dir, int r, const char *err);

#endif
