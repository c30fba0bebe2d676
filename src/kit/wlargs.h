/*
 * wlargs.h - the workload on a command line: an optional YAML file and
 * --FIELD VALUE options (flags win over the file), shared by `estimate`
 * and `plan`. Every field of the workload table (src/core/model/workload.c) is
 * an option of the one parser (opt.h), beside the command's own options.
 */
#ifndef GPURENT_WLARGS_H
#define GPURENT_WLARGS_H

#include <stdio.h>

#include "core/model/workload.h"
#include "kit/opt.h"

/*
 * Parse argv with the command's own options `own` (ended by
 * OPT_TABLE_END) and every workload field; load the file (the one
 * operand, optional) into w (workload_init() first), then apply the
 * --FIELD options over it. *file is the file's name or NULL (borrowed
 * from argv). With task non-NULL a second operand is allowed: *task is
 * its name (borrowed, not read here: a SkyPilot task file), or NULL.
 * Returns OPT_GO, or the exit status (help printed: 0; an error
 * reported: 2).
 */
int wlargs_parse(const struct opt_cmd *c, const struct opt *own, int argc, char **argv,
		 struct workload *w, const char **file, const char **task);

/* Report a resolve/estimate error about field `bad` (its index; -1 none)
 * where the field came from (file:line, or the --flag); msg starts with the
 * field's name when bad names one. Returns 2. */
int wlargs_field_error(const char *file, const struct workload *w, int bad, const char *msg);

/* The workload fields as flags, one line each with help and default
 * ("  --micro-batch  samples per GPU ... [1]"), for a command's usage. */
void wlargs_print_fields(FILE *f);

#endif
