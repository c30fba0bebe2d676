/*
 * secscan.h - what a rented box exposes or leaves behind (seed 000 §5.3):
 * listening sockets and what owns them, credentials in plain text in the
 * usual places, bulky leftovers in /tmp and /dev/shm. Pure: the parsers
 * (/proc/net/tcp lines, sshd's configuration, a key file's header) and the
 * verdicts over a struct of facts that src/os/netscan.c and
 * src/os/credscan.c gather; the words are src/cmd/box/secwords.c's. No fact
 * here ever holds a secret's value: only names, paths, modes, sizes and
 * counts. Thresholds and fixes: docs/env.md "Security".
 */
#ifndef GPURENT_SECSCAN_H
#define GPURENT_SECSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/box/envcheck.h"

/* A file of at least this many bytes (apparent size) in /tmp or /dev/shm,
 * owned by the user, is a leftover worth naming (docs/env.md says why). */
#define SEC_LARGE_FILE_BYTES (1024.0 * 1048576)

/* ---- listening sockets ---- */

enum sec_bind { SEC_BIND_ANY, SEC_BIND_LOOPBACK, SEC_BIND_ADDR };

/* One line of /proc/net/tcp or tcp6. */
struct sec_sock {
	bool v6;
	char addr[48];        /* "0.0.0.0", "127.0.0.1", "::", "::1", "10.0.0.5" */
	int port;
	int state;            /* 0x0A = LISTEN */
	long uid;
	uint64_t inode;
	enum sec_bind bind;
};

/*
 * Parse the text of /proc/net/tcp (v6 false) or /proc/net/tcp6 into *out
 * (caller frees with free()), *n rows, header line skipped. 0, or -1 with
 * "fname:line: field: expected ..." in err and nothing allocated.
 */
int secscan_parse_tcp(const char *buf, size_t len, const char *fname, bool v6,
		      struct sec_sock **out, size_t *n, char *err, size_t errlen);

/* What kind of program owns a socket, from its command line. */
enum sec_proc { SEC_PROC_OTHER, SEC_PROC_JUPYTER, SEC_PROC_TENSORBOARD, SEC_PROC_MODEL_SERVER,
		SEC_PROC_SSHD };

/* argv (n words) of a process, as /proc/PID/cmdline holds it. */
enum sec_proc secscan_classify(const char *const *argv, size_t n);

/* How a Jupyter server is protected. */
enum sec_auth { SEC_AUTH_DEFAULT_TOKEN, SEC_AUTH_TOKEN, SEC_AUTH_PASSWORD, SEC_AUTH_NONE };

/*
 * From its argv (n words) and the text of its configuration files (conf,
 * conflen; NULL: none; jupyter_server_config.py/.json or
 * jupyter_notebook_config.*, concatenated): SEC_AUTH_NONE when the token
 * is set empty and no password is set (command line first, then config).
 */
enum sec_auth secscan_jupyter_auth(const char *const *argv, size_t n, const char *conf,
				   size_t conflen);

/* sshd's answer on passwords: yes, no, or unknown (neither read). */
enum sec_tri { SEC_UNKNOWN = -1, SEC_NO = 0, SEC_YES = 1 };

/*
 * PasswordAuthentication from `sshd -T` output or an sshd_config (the
 * first value wins, as sshd takes it; the Match blocks are not applied;
 * OpenSSH's default is yes when it is absent from a config file, so
 * absent gives default_yes ? SEC_YES : SEC_UNKNOWN). 0 with *out, or -1
 * with "fname:line: PasswordAuthentication: expected yes or no" in err.
 */
int secscan_sshd_passwords(const char *buf, size_t len, const char *fname, bool default_yes,
			   enum sec_tri *out, char *err, size_t errlen);

/* ---- credentials ---- */

/* What a private key file's header says (its first bytes, n of them). */
enum sec_key { SEC_KEY_NOT_A_KEY, SEC_KEY_PLAIN, SEC_KEY_ENCRYPTED, SEC_KEY_UNKNOWN };
enum sec_key secscan_key_kind(const char *head, size_t n);

/* Does an environment variable name say token, key, secret or password? */
bool secscan_secret_name(const char *name);

/* The kinds of credential gpurent looks for, one per usual place. */
enum sec_cred {
	SEC_CRED_AWS,          /* ~/.aws/credentials */
	SEC_CRED_GCLOUD,       /* ~/.config/gcloud/ key and token files */
	SEC_CRED_HF,           /* ~/.cache/huggingface/token */
	SEC_CRED_NETRC,        /* ~/.netrc (wandb's api key) */
	SEC_CRED_GIT,          /* ~/.git-credentials */
	SEC_CRED_DOCKER,       /* ~/.docker/config.json "auths" with "auth" */
	SEC_CRED_SSH_KEY,      /* a private key in ~/.ssh */
	SEC_CRED_DOTENV,       /* .env in the working directory */
	SEC_CRED_COUNT
};

/* "aws", "gcloud", "huggingface", "netrc", "git-credentials", "docker",
 * "ssh-key", "dotenv". Static. */
const char *secscan_cred_name(enum sec_cred c);

/*
 * Facts from a credential file's text (buf, len): *count how many
 * credentials it holds (aws: profiles with a secret key; netrc: machines
 * with a password; git: lines; docker: auths with "auth"; dotenv:
 * assignments; others 1), *temporary (aws: every profile has a session
 * token). Never copies any value.
 */
void secscan_cred_facts(enum sec_cred c, const char *buf, size_t len, long *count,
			bool *temporary);

/* A credential file found. */
struct sec_cred_file {
	enum sec_cred kind;
	char path[512];
	unsigned mode;        /* st_mode & 07777 */
	long count;           /* secscan_cred_facts(); 0 when it holds none */
	bool temporary;       /* aws session credentials */
	enum sec_key key;     /* for SEC_CRED_SSH_KEY */
};

/* A listener with its owner, as src/os/netscan.c found it. */
struct sec_listener {
	struct sec_sock sock;
	long pid;             /* -1: no process of ours holds it (another user's, or gone) */
	char proc[64];        /* the program's base name; "" unknown */
	enum sec_proc kind;
	enum sec_auth auth;   /* for Jupyter */
	enum sec_tri sshd_passwords;  /* for sshd */
	char sshd_source[64]; /* "sshd -T" or the config file read */
};

/* A large file of the user's in a temporary place. */
struct sec_leftover {
	char path[512];
	uint64_t size;
};

#define SEC_MAX_LISTENERS 64
#define SEC_MAX_CREDS 64
#define SEC_MAX_LEFTOVERS 64
#define SEC_MAX_ENVNAMES 32

struct sec_facts {
	struct sec_listener listeners[SEC_MAX_LISTENERS];
	size_t nlisteners;
	bool net_read;                 /* /proc/net/tcp could be read */
	struct sec_cred_file creds[SEC_MAX_CREDS];
	size_t ncreds;
	char envnames[SEC_MAX_ENVNAMES][64];   /* names only, never values */
	size_t nenvnames;
	struct sec_leftover leftovers[SEC_MAX_LEFTOVERS];
	size_t nleftovers;
	char tmp_roots[256];           /* "/tmp /dev/shm", for the words */
};

/* ---- verdicts ---- */

/* Append only: the names secscan_code_name() gives are the JSON "code". */
enum sec_code {
	SEC_F_NET_UNREADABLE,      /* info: /proc/net/tcp unreadable */
	SEC_F_NET_NONE,            /* ok: nothing listens on all interfaces */
	SEC_F_LISTEN_LOOPBACK,     /* ok: listens on loopback only */
	SEC_F_LISTEN_ADDR,         /* info: listens on one address */
	SEC_F_LISTEN_ANY,          /* warn: listens on all interfaces (kind, proc) */
	SEC_F_LISTEN_FOREIGN,      /* info: on all interfaces, not our process */
	SEC_F_JUPYTER_OPEN,        /* fail: Jupyter on all interfaces without a token or password */
	SEC_F_SSHD_PASSWORD,       /* fail: sshd allows passwords */
	SEC_F_SSHD_KEYS,           /* ok: sshd on all interfaces, keys only */
	SEC_F_CREDS_NONE,          /* ok: none of the usual places holds a credential */
	SEC_F_CRED_FILE,           /* warn: a credential in plain text */
	SEC_F_CRED_TEMPORARY,      /* info: aws session (temporary) credentials */
	SEC_F_CRED_READABLE,       /* fail: group- or world-readable credential file */
	SEC_F_KEY_PLAIN,           /* warn: unencrypted private key */
	SEC_F_KEY_ENCRYPTED,       /* ok: a passphrase-protected private key */
	SEC_F_ENV_SECRET,          /* warn: environment variables named like secrets */
	SEC_F_TMP_NONE,            /* ok: no large file of the user's in /tmp, /dev/shm */
	SEC_F_TMP_LARGE,           /* warn: a large file of the user's left there */
	SEC_F_COUNT
};

struct sec_finding {
	enum env_level level;
	enum sec_code code;
	char topic[16];            /* "net", "cred", "env-vars", "tmp" */
	const struct sec_listener *listener;   /* borrowed from the facts; NULL */
	const struct sec_cred_file *cred;      /* borrowed from the facts; NULL */
	const struct sec_leftover *leftover;   /* borrowed from the facts; NULL */
	char names[512];           /* SEC_F_ENV_SECRET: the names, space-separated */
	size_t nnames;
	char roots[256];           /* SEC_F_TMP_*: where it looked */
};

struct sec_report {
	struct sec_finding *v;     /* owned */
	size_t n;
	size_t count[ENV_FAIL + 1];
	enum env_level worst;
};

/*
 * The findings of f into *r (caller frees with secscan_report_free();
 * the findings borrow from f, which must outlive r). 0, or -1 out of
 * memory.
 */
int secscan_judge(const struct sec_facts *f, struct sec_report *r);
void secscan_report_free(struct sec_report *r);

/* The stable snake_case name of a code; "?" out of range. Static. */
const char *secscan_code_name(enum sec_code c);

/* "jupyter", "tensorboard", "model-server", "sshd", "other". Static. */
const char *secscan_proc_name(enum sec_proc k);

#endif
