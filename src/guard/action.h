/*
 * run_action.h - what `gpurent run` does when it stops: a shell command
 * (--on-stop, or a platform preset of core/market/provider.h) and/or an
 * HTTP POST with a bearer token (--stop-url, through libcurl loaded by
 * src/os/dl.c). The token is
 * kept in memory only: never in argv, the environment of children, logs,
 * messages or the ledger.
 */
#ifndef GPURENT_RUN_ACTION_H
#define GPURENT_RUN_ACTION_H

#include <stdbool.h>
#include <stddef.h>

struct action_cfg {
	const char *shell;        /* --on-stop or a preset's command; NULL: none */
	const char *url;          /* --stop-url; NULL: none */
	char *token;              /* owned (action_token_free); NULL: no Authorization */
	const char *token_from;   /* "$VAR" or the file name, for messages */
	double timeout_s;         /* per HTTP attempt, and for the shell command */
	int retries;              /* HTTP attempts after the first */
	bool dry_run;             /* say what would be done, do nothing */
};

/* What happened, told to the action (environment and JSON body). */
struct action_event {
	const char *reason;       /* guard_reason_name() */
	int exit_status;          /* CMD's, -1 when it never ran */
	double elapsed_s;
	double cost;              /* < 0 when no price */
	const char *currency;
	const char *host;
	const char *log_path;
	long long ledger_id;      /* -1 when not recorded */
};

/* Lines of progress ("POST ... attempt 2 of 3: ...") go to say(ctx, line). */
typedef void action_say_fn(void *ctx, const char *line);

/*
 * Fire the actions of a, the shell command first. Returns 0 when every
 * configured action succeeded (or there is none), -1 with a sentence in
 * err (never containing the token) otherwise.
 */
int action_fire(const struct action_cfg *a, const struct action_event *ev,
		action_say_fn *say, void *ctx, char *err, size_t errlen);

/*
 * The token from environment variable var: copied into *token (caller
 * frees with action_token_free), and the variable's value overwritten and
 * removed from the environment so that children and `ps e` do not see it.
 * 0, or -1 with a sentence in err.
 */
int action_token_from_env(const char *var, char **token, char *err, size_t errlen);

/*
 * The token from file path (first line, surrounding blanks removed).
 * Refuses a file that group or others may read or write. 0, or -1 with a
 * sentence in err.
 */
int action_token_from_file(const char *path, char **token, char *err, size_t errlen);

/*
 * The first line of a file that holds a secret (surrounding blanks
 * removed), into buf (n bytes, the caller's; zero it after use). Opened
 * without blocking: a FIFO, a device or a directory is refused ("OPT PATH:
 * expected a regular file, got a FIFO"), as is a file that group or others
 * may read or write. 0, or -1 with a sentence in err.
 */
int action_read_private_file(const char *opt, const char *path, char *buf, size_t n,
			     char *err, size_t errlen);

/* The environment variable a stop URL may come from (never passed on). */
#define ACTION_URL_ENV "GPURENT_STOP_URL"

/*
 * Settle a->url, the stop URL, so that its secrets (user info, query) stay
 * out of argv and of children's environment: from --stop-url (a->url
 * points into argv: copied, then overwritten there with the redacted URL,
 * so that ps shows no secret from now on, in this process and its forks),
 * else from --stop-url-file `file` (action_read_private_file()), else
 * from $GPURENT_STOP_URL. That variable is blanked and removed from the
 * environment in every case. On success a->url is *owned (NULL: no URL;
 * caller frees with action_token_free()). 0, or -1 with a sentence in err
 * (never the URL).
 */
int action_url_load(struct action_cfg *a, const char *file, int argc, char **argv, char **owned,
		    char *err, size_t errlen);

/* Zero and free a token. NULL is fine. */
void action_token_free(char *token);

/* url without user info, query and fragment, into buf (for messages). */
char *action_url_redacted(const char *url, char *buf, size_t n);

#endif
