/*
 * dl.h - the one door to dynamic libraries (STYLE.md "Doors, not
 * corridors"): every vendor or optional library (NVML, the CUDA runtime,
 * cuBLAS, libcrypto, libcurl) is loaded here, nvtop's way: a list of file
 * names tried in order, a table of symbols with alternative names (the
 * versioned "_v2" one first), required and optional symbols, and a
 * one-line reason instead of a crash when anything is missing.
 *
 * Nothing here prints. Thread-safety: dl_open() and dl_close() may run on
 * any thread; the table they fill belongs to the caller.
 */
#ifndef GPURENT_DL_H
#define GPURENT_DL_H

#include <stdbool.h>
#include <stddef.h>

#define DL_MAX_NAMES 4   /* alternative names per symbol */

/*
 * One function pointer to resolve: the first of names[] the library
 * exports is stored at byte offset `off` of the caller's table (a struct
 * of function pointers; use offsetof). A required symbol that is missing
 * fails the library; a missing optional one stores NULL.
 */
struct dl_sym {
	const char *names[DL_MAX_NAMES];   /* most recent first; NULL-terminated when fewer */
	size_t off;                        /* offsetof(struct <your table>, member) */
	bool required;
};

/* Why dl_open() failed (its return value, negated codes). */
enum dl_error {
	DL_ENOTFOUND = -1,   /* no file of the list could be found */
	DL_ELOAD = -2,       /* a file exists but the dynamic linker refused it */
	DL_ENOSYM = -3,      /* loaded, but a required symbol is missing */
	DL_ENOMEM = -4,
};

/* A loaded library. Opaque. */
struct dl_lib;

/*
 * Try the file names libs[0..nlibs) in order (a bare name goes through the
 * dynamic linker's search path, LD_LIBRARY_PATH included; a name with a
 * '/' is that file) with RTLD_NOW | RTLD_LOCAL. The first that loads AND
 * has every required symbol of syms[0..nsyms) wins: its symbols are
 * stored into table (optional ones missing as NULL) and *out is set; the
 * caller releases it with dl_close() (or dl_keep()). A file that loads but
 * lacks a required symbol is closed and the next one tried.
 *
 * Returns 0, or a negative enum dl_error with *out = NULL, table left
 * untouched, and one line in err: "libnvidia-ml.so.1 not found",
 * "libnvidia-ml.so.1 lacks nvmlInit_v2", "libfoo.so: cannot be loaded:
 * <the dynamic linker's words>". When several files failed, the most
 * telling reason is kept (a missing symbol, then a refused file, then
 * "not found" naming the first file and how many were tried).
 */
int dl_open(const char *const *libs, size_t nlibs, const struct dl_sym *syms, size_t nsyms,
	    void *table, struct dl_lib **out, char *err, size_t errlen);

/* The file name that was loaded, as given in libs[]. Borrowed until
 * dl_close() or dl_keep(); "" for NULL. */
const char *dl_name(const struct dl_lib *l);

/* Unload the library and free l. Every pointer of its table is invalid
 * afterwards. NULL is fine. */
void dl_close(struct dl_lib *l);

/*
 * Free l but leave the library loaded until the process exits, for
 * libraries that must not be unloaded (the CUDA runtime tears itself down
 * in exit handlers; libcurl and libcrypto keep global state). The table's
 * pointers stay valid. NULL is fine.
 */
void dl_keep(struct dl_lib *l);


#endif
