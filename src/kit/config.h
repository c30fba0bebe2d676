/*
 * config.h - defaults set once: $XDG_CONFIG_HOME/gpurent/config.yaml
 * (GPURENT_CONFIG names another file), the environment's GPURENT_* and the
 * built-in defaults, in that order under the command line. opt_parse()
 * asks here for every option the command line did not give, so a setting
 * reaches every command with that option and no command reads the file
 * itself. `gpurent config` (src/cmd/settings/cmd_config.c) reads and edits it.
 */
#ifndef GPURENT_CLI_CONFIG_H
#define GPURENT_CLI_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "core/text/config.h"

/* A setting: its key, the option it stands for, where it applies. */
struct config_key {
	const char *name;     /* "currency" */
	const char *option;   /* the option it is the default of; NULL: none */
	const char *only;     /* '|'-separated commands it applies to; NULL: all with the option */
	const char *except;   /* commands it never applies to ("ledger add": a paid currency) */
	bool list;            /* a list (access, catalog, rate) */
	const char *env;      /* GPURENT_CURRENCY */
	const char *help;
	/* checks one value: 0, or -1 with what was expected in err */
	int (*check)(const char *v, char *err, size_t errlen);
};

extern const struct config_key config_keys[];   /* sorted, ends with a NULL name */
const struct config_key *config_key_find(const char *name);

/* Where a value came from. */
enum config_source { CFG_NONE, CFG_DEFAULT, CFG_LOCALE, CFG_FILE, CFG_ENV };

struct config_value {
	const char *vals[CONFIG_MAX_VALUES];  /* borrowed from the file or the environment */
	size_t n;
	enum config_source source;
	char where[4200];    /* "FILE:LINE", "GPURENT_CURRENCY", "the zh_CN locale", "" */
};

/* The file's path (GPURENT_CONFIG, else XDG_CONFIG_HOME or ~/.config);
 * 0, or -1 when neither HOME nor XDG_CONFIG_HOME is set. */
int config_path(char *buf, size_t n);

/*
 * The file, read once and kept (a missing file is an empty config).
 * Returns it, or NULL with the one-line reason in err (unreadable, a
 * syntax error, an unknown key: "FILE:LINE: key: ...").
 */
const struct config *config_file(char *err, size_t errlen);

/* The raw text of the file read by config_file() (NULL when none). */
const char *config_file_text(size_t *len);

/*
 * The value of key below the command line: the environment, the file,
 * then the built-in default (currency: CNY under a zh_CN locale). 0 with
 * *v filled (v->n 0 and CFG_NONE when nothing sets it), or -1 with the
 * reason in err (the file could not be read; a value that fails its
 * check: "FILE:LINE: key: expected ...", "GPURENT_X: expected ...").
 */
int config_lookup(const struct config_key *k, struct config_value *v, char *err, size_t errlen);

/* From now on config_lookup() leaves the zh_CN locale's currency out (the
 * built-in USD): machine-readable output (`config list --json`) is the same
 * in every locale, as --json and --csv of the other commands are. */
void config_machine_output(void);

/* Record that opt_parse() set an option from key's value (where: as in
 * struct config_value), and ask whether it did: where, or NULL. */
void config_mark_applied(const struct config_key *k, const char *where);
const char *config_applied(const char *key);

/*
 * Where the rates of `rate` came from, for the line that shows a rate:
 * "FILE:LINE, 2026-11-30, Bank of China" (date and source when set).
 * Returns buf.
 */
char *config_rate_note(char *buf, size_t n);

/* Does key k apply to command cmd ("plan", "ledger add") for option opt? */
bool config_applies(const struct config_key *k, const char *cmd, const char *opt);

#endif
