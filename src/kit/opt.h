/*
 * opt.h - the one option parser of every command, in the style of git's
 * parse-options: a command describes its options in a table
 * {name, type, destination, bounds, help} and opt_parse() does the rest.
 *
 * Every command gets the same behaviour from it: `--x v` and `--x=v` mean
 * the same; a flag is `--x`, `--no-x`, `--x=true|false` or `--x true`;
 * values are converted by the units_* parsers of src/core and checked
 * against the bounds here, once; a duration without a unit is refused
 * ("give a unit, e.g. 3d"); an unknown option gets a "did you mean";
 * `--help`/`-h` prints the command's usage; `--` ends the options.
 * `--list-options` prints the table ("--NAME TYPE EXAMPLE" a line) for
 * the tests and for shell completion. Errors are one line through msg.h,
 * "gpurent CMD: --NAME: what was expected, got 'VALUE'", exit status 2.
 */
#ifndef GPURENT_OPT_H
#define GPURENT_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum opt_type {
	OPT_END = 0,
	OPT_FLAG,       /* bool *                                           */
	OPT_STRING,     /* const char ** (borrowed from argv)               */
	OPT_FILE,       /* const char ** a path (not opened here)           */
	OPT_INT,        /* long *, min..max; count suffixes allowed (4k)    */
	OPT_COUNT,      /* double *: 512, 7e9, 7B, 200k                     */
	OPT_BYTES,      /* double * bytes: 24GB, 512MiB                     */
	OPT_BANDWIDTH,  /* double * bytes/s: 20GB/s, 100Gb/s                */
	OPT_DURATION,   /* double * seconds: 90s, 30m, 6h, 2d (unit needed)  */
	OPT_MONEY,      /* struct opt_money *: 2.1, $2.1, 1.88CNY            */
	OPT_PERCENT,    /* double * fraction 0..1: 40%, 0.4                  */
	OPT_NUMBER,     /* double * a plain number (a rate, a ratio)         */
	OPT_LIST,       /* struct opt_list *: repeatable, values borrowed    */
	OPT_CHOICE,     /* int *: the index in choices[] (NULL-terminated)   */
};

struct opt_money {
	double amount;
	char code[8];      /* ISO code; "USD" when none was written */
	bool has_code;     /* the value named its currency ("1.88CNY", "$2") */
};

/* Values of a repeatable option, in order. Free with opt_list_free(). */
struct opt_list {
	const char **v;
	size_t n, cap;
};
void opt_list_free(struct opt_list *l);

struct opt;
/*
 * A callback replaces the store: it gets the value as typed ("true" or
 * "false" for a flag) after the type's own check, and returns 0, or -1
 * with what was expected in err (the parser adds "--NAME: " and exits 2).
 */
typedef int (*opt_cb)(const struct opt *o, const char *value, void *ctx, char *err, size_t errlen);

struct opt {
	const char *name;          /* long name without "--": "max-price" */
	char short_name;           /* 'o' for -o, or 0 */
	enum opt_type type;
	void *dest;                /* as the type says; NULL with a callback */
	const char *arg;           /* the value's name in help ("N", "DUR") */
	const char *help;          /* one line, for --list-options and help */
	double min, max;           /* inclusive bounds of numbers; both 0: the type's own */
	const char *const *choices;
	opt_cb cb;
	const char *example;       /* a valid value (tests, completion); NULL: the type's */
	bool *seen;                /* set true when given; may be NULL */
	bool raw;                  /* with cb: hand the value over unconverted (cb checks it) */
	const void *data;          /* for the callback */
};

#define OPT_BOOL(n, d, h) {.name = (n), .type = OPT_FLAG, .dest = (d), .help = (h)}
#define OPT_STR(n, d, a, h) {.name = (n), .type = OPT_STRING, .dest = (d), .arg = (a), .help = (h)}
#define OPT_PATH(n, d, a, h) {.name = (n), .type = OPT_FILE, .dest = (d), .arg = (a), .help = (h)}
#define OPT_LONG(n, d, lo, hi, a, h) {.name = (n), .type = OPT_INT, .dest = (d), .arg = (a), \
	.help = (h), .min = (lo), .max = (hi)}
#define OPT_VAL(t, n, d, a, h) {.name = (n), .type = (t), .dest = (d), .arg = (a), .help = (h)}
#define OPT_VALB(t, n, d, lo, hi, a, h) {.name = (n), .type = (t), .dest = (d), .arg = (a), \
	.help = (h), .min = (lo), .max = (hi)}
#define OPT_ONEOF(n, d, ch, a, h) {.name = (n), .type = OPT_CHOICE, .dest = (d), .choices = (ch), \
	.arg = (a), .help = (h)}
#define OPT_MANY(n, d, a, h) {.name = (n), .type = OPT_LIST, .dest = (d), .arg = (a), .help = (h)}
#define OPT_CALL(t, n, f, a, h, ex) {.name = (n), .type = (t), .cb = (f), .arg = (a), .help = (h), \
	.example = (ex)}
#define OPT_TABLE_END {.name = NULL}

/* --progress / --quiet: the progress line of long work (src/os/progress.h)
 * forced on, or off; without either it shows on a terminal only. */
int opt_progress_cb(const struct opt *o, const char *value, void *ctx, char *err, size_t errlen);
#define OPT_PROGRESS_FLAGS \
	{.name = "progress", .type = OPT_FLAG, .cb = opt_progress_cb, \
	 .help = "show the progress line even where stderr is not a terminal"}, \
	{.name = "quiet", .short_name = 'q', .type = OPT_FLAG, .cb = opt_progress_cb, \
	 .help = "no progress line"}

/* How the command takes its operands. */
enum {
	OPT_STOP_AT_OPERAND = 1,   /* the first operand ends the options (run -- CMD) */
	OPT_KEEP_DASHDASH = 2,     /* leave "--" in the operands */
};

/* A subcommand of a command that has them (ledger, ckpt): one row each,
 * the table sorted by name. */
struct opt_sub {
	const char *name;
	int (*fn)(int argc, char **argv);
};

struct opt_cmd {
	const char *name;          /* "plan", "ledger add": messages and help */
	const char *usage;         /* printed by --help, as it is */
	unsigned flags;
	int min_operands, max_operands;   /* max < 0: any number */
	const char *operands;      /* what the operands are, for the error ("FILE") */
	void (*usage_fn)(FILE *f); /* prints the help instead of usage, when set */
	const struct opt_sub *subs; /* the subcommands, or NULL; n_subs of them */
	size_t n_subs;
};

enum { OPT_GO = -1 };

/* A callback's return for "refused, and I said why myself" (exit 2). */
enum { OPT_REPORTED = -2 };

/*
 * Parse argv[1..argc-1] against opts (ended by OPT_TABLE_END). The
 * operands (arguments that are not options) are moved to the front:
 * argv[0..*nops-1], argv[*nops] = NULL. ctx is handed to callbacks.
 * Returns OPT_GO to go on, or the exit status to return: 0 when --help or
 * --list-options was printed, 2 when an error was reported (one line).
 * Sets msg_set_cmd(c->name).
 * Besides --help and --list-options, `--list-choices` prints each option
 * with fixed values as "--NAME V1 V2 ..." and, for a command with subs,
 * `--list-subcommands` prints their names, one a line (both for shell
 * completion, src/cmd/settings/cmd_completion.c).
 */
int opt_parse(const struct opt_cmd *c, const struct opt *opts, int argc, char **argv,
	      void *ctx, int *nops);

/*
 * After opt_parse() of a command with subcommands (c->subs, flags
 * OPT_STOP_AT_OPERAND): run the one named by argv[0] with argv[0..nops),
 * or report a missing or unknown one (with "did you mean"), exit 2.
 */
int opt_run_sub(const struct opt_cmd *c, int nops, char **argv);

/* Parse one value for o, as opt_parse() would (used by callbacks that
 * parse a sub-syntax, and by the tests). 0 or -1 with err filled. */
int opt_value(const struct opt *o, const char *value, void *ctx, char *err, size_t errlen);

/* A valid example value of o's type (o->example when set). */
const char *opt_example(const struct opt *o);

/* The type's name as --list-options prints it ("duration"). */
const char *opt_type_name(enum opt_type t);

/* Is s one of true/false/yes/no/on/off? (*v gets the value) */
bool opt_bool_word(const char *s, bool *v);

#endif
