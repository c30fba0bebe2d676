/*
 * wlargs.h - the workload on a command line: an optional YAML file and
 * --FIELD VALUE flags (flags win), shared by `estimate` and `plan`. The
 * calling command's own options are listed so they are left to it.
 */
#ifndef GPURENT_WLARGS_H
#define GPURENT_WLARGS_H

#include <stdbool.h>

#include "../core/workload.h"

struct own_opt {
	const char *name;   /* "--json" */
	bool has_value;
};

/*
 * Parse argv into w (workload_init() first) and *file. Errors print one
 * line prefixed "gpurent CMD: " (or file:line: field:) and return the exit
 * code; 0 on success. --help is not handled here.
 */
int wlargs_parse(const char *cmd, int argc, char **argv, const struct own_opt *own,
		 struct workload *w, const char **file);

/* Report a resolve/estimate error where the field came from (file:line, or
 * the --flag); returns 2. */
int wlargs_field_error(const char *cmd, const char *file, const struct workload *w, int bad,
		       const char *msg);

/* true when argv[i] is one of own; *skip_value tells whether it takes one. */
bool wlargs_is_own(const struct own_opt *own, const char *arg, bool *has_value);

#endif
