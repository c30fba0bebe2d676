/*
 * slurm.h - sbatch scripts as facts: the parser of a script (its directives
 * with their lines, the first command, the near-directives sbatch takes for
 * comments), the table of sbatch's documented options (data/sbatch_options.csv),
 * the lint rules as codes and facts (src/cmd/slurm/slurmemit.c words them), the
 * Slurm durations, and what the script generator decides (which lines) from
 * an estimate and the options. Pure: no I/O. The story: docs/slurm.md.
 */
#ifndef GPURENT_SLURM_H
#define GPURENT_SLURM_H

#include <stdbool.h>
#include <stddef.h>

/* ---- sbatch's options ---- */

enum slurm_arg { SLURM_ARG_NONE, SLURM_ARG_REQUIRED, SLURM_ARG_OPTIONAL };

/* How lint checks an option's value. */
enum slurm_kind {
	SLURM_K_TEXT, SLURM_K_FLAG, SLURM_K_TIME, SLURM_K_COUNT, SLURM_K_RANGE, SLURM_K_MEM,
	SLURM_K_SIGNAL, SLURM_K_OPEN_MODE, SLURM_K_GRES, SLURM_K_GPUS, SLURM_K_PATH, SLURM_K_ARRAY,
	SLURM_K_PLUGIN,   /* a SPANK plugin's option (shifter's --image): sbatch takes it only where it is installed */
};

struct slurm_opt {
	char name[32];        /* long name without "--" */
	char shortname;       /* the one-letter alias, 0 none */
	enum slurm_arg arg;
	enum slurm_kind kind;
};

struct slurm_optdb {
	struct slurm_opt *opts;   /* sorted by name; owned */
	size_t n;
};

/*
 * Load data/sbatch_options.csv (buf, len bytes; fname for messages). 0 and
 * *db filled (caller frees with slurm_optdb_free()), or -1 with
 * "FILE:LINE: COLUMN: expected ..." in err.
 */
int slurm_optdb_load(const char *buf, size_t len, const char *fname, struct slurm_optdb *db,
		     char *err, size_t errlen);
void slurm_optdb_free(struct slurm_optdb *db);
/* The option called name (long), or NULL. Borrowed from db. */
const struct slurm_opt *slurm_opt_find(const struct slurm_optdb *db, const char *name);
/* The option with one-letter alias c, or NULL. */
const struct slurm_opt *slurm_opt_short(const struct slurm_optdb *db, char c);

/*
 * A Slurm duration ("minutes", "minutes:seconds", "hours:minutes:seconds",
 * "days-hours", "days-hours:minutes", "days-hours:minutes:seconds"; sbatch(1)
 * --time) into *s seconds; "UNLIMITED"/"INFINITE" and 0 (sbatch: no limit) give -1. 0, or -1 when it
 * is not one.
 */
int slurm_parse_time(const char *v, double *s);
/* s seconds (> 0) as Slurm's D-HH:MM:SS (days only when > 0), rounded up to a minute;
 * no limit (s < 0, as slurm_parse_time() gives), NaN or past any day count:
 * "UNLIMITED". */
void slurm_format_time(double s, char *buf, size_t n);

/* ---- the script ---- */

/* What slurm_sbatch_arg() read. */
enum slurm_sbarg {
	SLURM_SBARG_UNMATCHED = -2,   /* a quote not closed on the line: sbatch refuses the script */
	SLURM_SBARG_COLON = -1,       /* a word starts with ':': sbatch refuses the script */
	SLURM_SBARG_END = 0,          /* no more words: the line's end, a '#', an empty word, "hetjob" */
	SLURM_SBARG_WORD = 1,
};

/*
 * One word of an #SBATCH line (p, len bytes, after "#SBATCH") from *pos,
 * read as sbatch's get_argument() (src/sbatch/opt.c of Slurm 24.05) reads
 * it: isspace() separates; '\' makes the next byte plain, in quotes too
 * ("\ " a space of the word: before 24.05 the space ends the word); ' and "
 * group; an unescaped '#' ends the line; a word that copies nothing ('')
 * ends it too; a NUL ends the line. The word into out (cap bytes, cut
 * there, terminated), its full length in *outlen; *pos moves past it.
 * Returns an enum slurm_sbarg.
 */
int slurm_sbatch_arg(const char *p, size_t len, size_t *pos, char *out, size_t cap, size_t *outlen);

struct slurm_directive {
	size_t line;
	char name[32];        /* long name ("" when the word is no option of db) */
	char word[64];        /* as written: "--gres", "-p", "--tiem" */
	char value[256];
	bool has_value;
	bool after_command;   /* below the first command: sbatch ignores it */
	bool non_ascii;       /* a byte >= 0x80 in the line */
	bool templ;           /* the line is a template's ({{ }}, {% %}, {name}, $VAR, ${VAR}) */
	unsigned comp;        /* the heterogeneous job's component (0, then 1 after "#SBATCH hetjob", ...) */
};

struct slurm_near {       /* a line sbatch reads as a comment that was meant as a directive */
	size_t line;
	char text[64];        /* its opening as written ("## SBATCH", "#sbatch") */
	char rest[128];       /* the options after it */
	bool gpu;             /* it asks for GPUs (--gres=gpu, --gpus...) */
	bool kept;            /* each of its options is also an active #SBATCH line: a kept alternative */
	bool idiom;           /* "##SBATCH", "###SBATCH" at the line's start: a directive switched off */
};

/* What is wrong with a "#!" line's options (the kernel passes all of the
 * rest of the line to the interpreter as one argument). */
enum slurm_shebang_bad {
	SLURM_SHEBANG_OK = 0,
	SLURM_SHEBANG_DASH,      /* an en/em dash or other non-ASCII byte where '-' was meant */
	SLURM_SHEBANG_OPTION,    /* an option bash/sh does not take as one argument ("-l -e", "-q") */
	SLURM_SHEBANG_ENV_ARGS,  /* env with two words and no -S: env looks for a program "bash -l" */
};

#define SLURM_MAX_SOURCED 8

#define SLURM_MAX_DIRECTIVES 128
#define SLURM_MAX_NEAR 32

struct slurm_script {
	struct slurm_directive dir[SLURM_MAX_DIRECTIVES];
	size_t ndir;
	struct slurm_near near[SLURM_MAX_NEAR];
	size_t nnear;
	size_t lines;
	size_t first_command;     /* line of the first command, 0 none */
	size_t sbatch_stop_line;  /* first #SBATCH line sbatch refuses to read (above the first command), 0 none */
	int sbatch_stop;          /* and why: SLURM_SBARG_UNMATCHED or SLURM_SBARG_COLON */
	size_t crlf_line;         /* first line ending in CR LF, 0 none */
	size_t shebang_line;      /* line of a "#!", 0 none */
	int shebang_bad;          /* enum slurm_shebang_bad of line 1's "#!" */
	char shebang_arg[64];     /* the argument it passes, as written */
	char shebang_prog[32];    /* the interpreter's base name (env's program) */
	size_t gpu_cmd_line;      /* first command running python/torchrun/accelerate/deepspeed */
	char gpu_cmd[32];
	size_t gpu_hint_line;     /* first command that shows the job wants a GPU (nvidia-smi, CUDA_*, */
	char gpu_hint[32];        /* torch.cuda, torchrun, deepspeed, accelerate launch, --nv), and which */
	size_t conda_line;        /* first `conda activate` */
	bool conda_hook;          /* a hook before it: module load anaconda*|miniconda*|conda|miniforge*|mamba*,
				   * conda.sh sourced, the shell hook evaluated, `source activate`, or a file
				   * sourced from an absolute or variable path (it may) */
	struct { size_t line; char path[256]; } sourced[SLURM_MAX_SOURCED];
	size_t nsourced;          /* files sourced by a relative path before conda activate: lint asks env */
	size_t template_line;     /* first directive line of a template, 0 none */
	unsigned ncomp;           /* components of a heterogeneous job (1 without hetjob) */
	bool checkpoints;         /* a command mentions checkpoints (--ckpt-dir, GPURENT_RESUME, resume) */
};

/*
 * Parse an sbatch script (buf, len bytes; NUL bytes allowed) into *s: every
 * "#SBATCH" line (options split as sbatch's own parser does: words, quotes,
 * '#' starting a comment), those below the first command marked; each
 * option's long name from db (a short alias resolved; "" when db lacks it;
 * db NULL: long names as written, short ones ""). 0, or -1
 * with "FILE:LINE: ..." in err for a script sbatch cannot take at all (empty).
 */
int slurm_script_parse(const char *buf, size_t len, const char *fname, const struct slurm_optdb *db,
		       struct slurm_script *s, char *err, size_t errlen);

/* The last directive (above the first command) with long name, or NULL. */
const struct slurm_directive *slurm_script_get(const struct slurm_script *s, const char *name);

/* true when the script asks for GPUs (--gres=gpu..., --gpus, --gpus-per-*), in any component. */
bool slurm_script_gpus(const struct slurm_script *s);

/*
 * Whether a shell file (buf, len bytes) sets up conda's shell function the
 * way slurm_script_parse() recognises in a script (conda.sh sourced, the
 * hook evaluated, an anaconda/miniconda/miniforge/conda module loaded), or
 * sources a file of its own (which may): for a file a script sources.
 */
bool slurm_text_conda_hook(const char *buf, size_t len);

/* ---- lint ---- */

enum slurm_finding_code {
	SLF_CRLF = 1,          /* line: DOS line endings */
	SLF_NO_SHEBANG,        /* line 1 is no "#!" */
	SLF_SHEBANG_MISPLACED, /* line: a "#!" below line 1 */
	SLF_NEAR_DIRECTIVE,    /* line, text, arg (the options); gpu: num = 1 */
	SLF_AFTER_COMMAND,     /* line, arg (the option); num = the first command's line */
	SLF_UNKNOWN_OPTION,    /* line, arg (as written), suggest */
	SLF_MISSING_VALUE,     /* line, arg */
	SLF_UNEXPECTED_VALUE,  /* line, arg, value */
	SLF_BAD_VALUE,         /* line, arg, value; kind (what was expected) */
	SLF_NON_ASCII,         /* line */
	SLF_NO_GPU,            /* line (the command), arg (its program) */
	SLF_TIME_OVER_LIMIT,   /* line, num (the --time), num2 (the limit) */
	SLF_NO_RESUME,         /* line (--time), num, num2: longer than the limit, nothing resumes it */
	SLF_OUTPUT_DIR,        /* line, arg (the option), value (the directory) */
	SLF_CONDA_NO_HOOK,     /* line */
	SLF_MEM_BOTH,          /* line (the second), arg, value (the other option) */
	SLF_GRES_AND_GPUS,     /* line, arg, value */
	SLF_ARRAY_OUTPUT,      /* line (--output), arg (the option), value (its name) */
	SLF_SBATCH_STOP,       /* line; num: SLURM_SBARG_UNMATCHED (a quote not closed) or _COLON */
	SLF_SHEBANG_OPTION,    /* line 1; num: enum slurm_shebang_bad; arg: the argument; value: the program */
	SLF_TEMPLATE,          /* line (the first template line; one per script) */
	SLF_KEPT_ALTERNATIVE,  /* line, text, arg (the options): a note, not an error */
	SLF_PLUGIN_OPTION,     /* line, arg (the option): a SPANK plugin's; a note */
	SLF_COUNT
};

/* The rule's id (docs/slurm.md: "crlf", "no-gpu", ...), "" for no code. Static. */
const char *slurm_finding_id(enum slurm_finding_code c);
/* true for a note (kept-alternative, plugin-option), which is no problem: lint exits 0 on notes alone. */
bool slurm_finding_is_note(enum slurm_finding_code c);

struct slurm_finding {
	enum slurm_finding_code code;
	size_t line;
	char arg[64];
	char value[256];
	char suggest[64];
	enum slurm_kind kind;
	double num, num2;
};

/* What lint knows besides the script. */
struct slurm_lint_env {
	double max_time_s;    /* the partition's limit; 0 unknown, -1 unlimited */
	/* whether directory dir (as written in --output, relative to where sbatch
	 * runs) exists, or cannot be told here (true: not asserted); NULL: not checked */
	bool (*dir_exists)(const char *dir, void *ctx);
	/* whether a file the script sources by a relative path sets up conda
	 * (slurm_text_conda_hook()), true when it cannot be read; NULL: assumed so */
	bool (*sources_hook)(const char *path, void *ctx);
	void *ctx;
};

/*
 * The problems of s, in line order, into out (max entries; the count found
 * is returned, which may exceed max). db: sbatch's options.
 */
size_t slurm_lint(const struct slurm_script *s, const struct slurm_optdb *db,
		  const struct slurm_lint_env *env, struct slurm_finding *out, size_t max);

/*
 * The directory part of an --output/--error pattern ("logs/%j.out" ->
 * "logs"), into buf; "" when the name has none (the submit directory).
 */
void slurm_output_dir(const char *pattern, char *buf, size_t n);

/* ---- the generator's facts ---- */

/* What the script is for. Strings borrowed. */
struct slurm_gen_in {
	const char *job_name, *partition, *account, *gpu_type;
	long nodes, gpus_per_node;
	double time_s;        /* --time asked; 0: from the estimate */
	double wall_s;        /* the estimate's wall time of the whole job; 0 unknown */
	double limit_s;       /* the partition's limit; 0 unknown */
	double ckpt_write_s;  /* one checkpoint write; 0: the default lead */
	long cpus_per_task;   /* 0: SLURM_GEN_CPUS_PER_GPU per GPU */
	double mem_bytes;     /* per node; 0: SLURM_GEN_MEM_PER_GPU per GPU */
};

/* Seed 004 §3.5's script asks for 8 CPUs for its one GPU. */
#define SLURM_GEN_CPUS_PER_GPU 8
/* Host memory per GPU (assumption, docs/slurm.md "Resources"). */
#define SLURM_GEN_MEM_PER_GPU (32.0 * 1024 * 1024 * 1024)
/* The lead of --signal without a checkpoint time, and its floor (docs/slurm.md). */
#define SLURM_GEN_LEAD_S 120.0
/* A job asks for the estimate plus this share, at least 10 minutes (docs/slurm.md). */
#define SLURM_GEN_MARGIN 0.2
#define SLURM_GEN_MARGIN_MIN_S 600.0

struct slurm_gen {
	double time_s;        /* --time of each job (whole minutes) */
	double lead_s;        /* --signal=B:USR1@lead */
	bool chained;         /* longer than one job: --requeue, --open-mode=append */
	long jobs;            /* how many jobs the work takes (1 when it fits) */
	long cpus_per_task;
	double mem_bytes;     /* per node */
	long tasks_per_node;  /* one guard per node */
};

/* Decide the lines of the script; 0, or -1 with a sentence in err (nothing to size it by). */
int slurm_gen_plan(const struct slurm_gen_in *in, struct slurm_gen *out, char *err, size_t errlen);

#endif
