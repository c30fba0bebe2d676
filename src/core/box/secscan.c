/*
 * secscan.c - the security findings of `gpurent env` (secscan.h): the
 * parsers of /proc/net/tcp, sshd's configuration and key headers, the
 * kind of program behind a socket, and the verdicts. Reads no file and
 * keeps no secret: a credential is known by its path, mode and a count.
 */
#include "core/box/secscan.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/util.h"
#include "base/i18n.h"

/* ---- small text helpers ---- */

/* The next line of buf[*pos..len) as [s, s+*n); false at the end. */
static bool next_line(const char *buf, size_t len, size_t *pos, const char **s, size_t *n)
{
	const char *nl;

	if (*pos >= len)
		return false;
	*s = buf + *pos;
	nl = memchr(*s, '\n', len - *pos);
	*n = nl ? (size_t)(nl - *s) : len - *pos;
	*pos += *n + (nl ? 1 : 0);
	if (*n && (*s)[*n - 1] == '\r')
		(*n)--;
	return true;
}

/* Split [s, s+n) at blanks into at most max words (copied into w, each
 * < wl bytes; longer words are cut); returns how many. */
static size_t split_words(const char *s, size_t n, char w[][80], size_t max)
{
	size_t k = 0, i = 0;

	while (i < n && k < max) {
		size_t j = 0;
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i >= n)
			break;
		while (i < n && s[i] != ' ' && s[i] != '\t') {
			if (j < 79)
				w[k][j++] = s[i];
			i++;
		}
		w[k++][j] = '\0';
	}
	return k;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* n hex digits of s into *v (n <= 8); false when one is not a digit. */
static bool hex_u32(const char *s, size_t n, uint32_t *v)
{
	*v = 0;
	for (size_t i = 0; i < n; i++) {
		int d = hexval((unsigned char)s[i]);
		if (d < 0)
			return false;
		*v = *v << 4 | (uint32_t)d;
	}
	return true;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* ---- /proc/net/tcp ---- */

/*
 * "0100007F:1F90": the kernel prints each 32-bit word of the address as
 * %08X of the value in host order (net/ipv4/tcp_ipv4.c get_tcp4_sock,
 * net/ipv6/tcp_ipv6.c get_tcp6_sock), so copying the words back into
 * memory gives the address's bytes in network order.
 */
static bool parse_local(const char *w, bool v6, struct sec_sock *s)
{
	size_t alen = v6 ? 32 : 8;
	unsigned char b[16];
	uint32_t port;

	if (strlen(w) != alen + 5 || w[alen] != ':' || !hex_u32(w + alen + 1, 4, &port))
		return false;
	for (size_t i = 0; i < alen / 8; i++) {
		uint32_t word;
		if (!hex_u32(w + 8 * i, 8, &word))
			return false;
		memcpy(b + 4 * i, &word, 4);
	}
	s->port = (int)port;
	if (!v6) {
		snprintf(s->addr, sizeof(s->addr), "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
		s->bind = !(b[0] | b[1] | b[2] | b[3]) ? SEC_BIND_ANY
			  : b[0] == 127 ? SEC_BIND_LOOPBACK : SEC_BIND_ADDR;
	} else {
		static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
		bool zero10 = true, any = true;
		for (size_t i = 0; i < 16; i++)
			if (b[i])
				any = false;
		for (size_t i = 0; i < 15; i++)
			if (b[i])
				zero10 = false;
		if (!memcmp(b, mapped, 12)) {
			snprintf(s->addr, sizeof(s->addr), "::ffff:%u.%u.%u.%u", b[12], b[13], b[14], b[15]);
			s->bind = !(b[12] | b[13] | b[14] | b[15]) ? SEC_BIND_ANY
				  : b[12] == 127 ? SEC_BIND_LOOPBACK : SEC_BIND_ADDR;
		} else {
			size_t k = 0;
			for (size_t i = 0; i < 16; i += 2)
				k += (size_t)snprintf(s->addr + k, sizeof(s->addr) - k, "%s%x",
						      i ? ":" : "", (unsigned)(b[i] << 8 | b[i + 1]));
			if (any)
				snprintf(s->addr, sizeof(s->addr), "::");
			else if (zero10 && b[15] == 1)
				snprintf(s->addr, sizeof(s->addr), "::1");
			s->bind = any ? SEC_BIND_ANY : zero10 && b[15] == 1 ? SEC_BIND_LOOPBACK
									: SEC_BIND_ADDR;
		}
	}
	return true;
}

int secscan_parse_tcp(const char *buf, size_t len, const char *fname, bool v6,
		      struct sec_sock **out, size_t *n, char *err, size_t errlen)
{
	struct sec_sock *v = NULL;
	size_t cap = 0, k = 0, pos = 0, line = 0, ln;
	const char *s;

	*out = NULL;
	*n = 0;
	while (next_line(buf, len, &pos, &s, &ln)) {
		char w[12][80];
		size_t nw;
		struct sec_sock so = {.v6 = v6};
		uint32_t st;
		char *end;
		const char *bad = NULL, *want = NULL;

		line++;
		nw = split_words(s, ln, w, 12);
		if (nw == 0 || (line == 1 && !strcmp(w[0], "sl")))
			continue;
		if (nw < 10) {
			bad = "inode";
			want = "10 fields (sl local rem st queues timer retrnsmt uid timeout inode)";
		} else if (!w[0][0] || w[0][strlen(w[0]) - 1] != ':') {
			bad = "sl", want = "a slot number ending in ':'";
		} else if (!parse_local(w[1], v6, &so)) {
			bad = "local_address";
			want = v6 ? "32 hex digits, ':' and 4 hex digits" : "8 hex digits, ':' and 4 hex digits";
		} else if (strlen(w[3]) != 2 || !hex_u32(w[3], 2, &st)) {
			bad = "st", want = "2 hex digits";
		} else if (!all_digits(w[7])) {
			bad = "uid", want = "a number";
		} else if (!all_digits(w[9])) {
			bad = "inode", want = "a number";
		}
		if (bad) {
			snprintf(err, errlen, _("%s:%zu: %s: expected %s"), fname, line, bad, want);
			free(v);
			return -1;
		}
		so.state = (int)st;
		so.uid = strtol(w[7], &end, 10);
		so.inode = strtoull(w[9], &end, 10);
		if (util_grow((void **)&v, &cap, k + 1, sizeof(*v))) {
			snprintf(err, errlen, _("%s: out of memory"), fname);
			free(v);
			return -1;
		}
		v[k++] = so;
	}
	*out = v;
	*n = k;
	return 0;
}

/* ---- what a process is ---- */

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

enum sec_proc secscan_classify(const char *const *argv, size_t n)
{
	/* model servers by the words their launchers are known by
	 * (docs/env.md lists them); MUST hold no word another kind uses */
	static const char *const servers[] = {"vllm", "text-generation", "tritonserver", "ollama",
					      "sglang", "lmdeploy", "llama-server", "torchserve"};
	char prog[128] = "";
	size_t i = 0;

	if (!n || !argv[0])
		return SEC_PROC_OTHER;
	if (!strncmp(argv[0], "sshd", 4) || !strcmp(base_name(argv[0]), "sshd"))
		return SEC_PROC_SSHD;
	snprintf(prog, sizeof(prog), "%s", base_name(argv[0]));
	if (!strncmp(prog, "python", 6)) {
		/* python [-X opts] -m MODULE | SCRIPT */
		for (i = 1; i < n; i++) {
			if (!strcmp(argv[i], "-m") && i + 1 < n) {
				snprintf(prog, sizeof(prog), "%s", argv[i + 1]);
				break;
			}
			if (argv[i][0] != '-') {
				snprintf(prog, sizeof(prog), "%s", base_name(argv[i]));
				break;
			}
		}
	}
	if (strstr(prog, "jupyter"))
		return SEC_PROC_JUPYTER;
	if (strstr(prog, "tensorboard"))
		return SEC_PROC_TENSORBOARD;
	for (size_t k = 0; k < ARRAY_SIZE(servers); k++)
		if (strstr(prog, servers[k]))
			return SEC_PROC_MODEL_SERVER;
	return SEC_PROC_OTHER;
}

/* Jupyter's traitlets on the command line: "--ServerApp.token=" etc. */
enum { JV_UNSET, JV_EMPTY, JV_SET };

static bool is_token_key(const char *k, size_t n)
{
	static const char *const keys[] = {"--ServerApp.token", "--NotebookApp.token",
					   "--IdentityProvider.token"};
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (strlen(keys[i]) == n && !strncmp(k, keys[i], n))
			return true;
	return false;
}

static bool is_password_key(const char *k, size_t n)
{
	static const char *const keys[] = {"--ServerApp.password", "--NotebookApp.password",
					   "--PasswordIdentityProvider.hashed_password"};
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (strlen(keys[i]) == n && !strncmp(k, keys[i], n))
			return true;
	return false;
}

static bool quoted_empty(const char *v)
{
	return !*v || !strcmp(v, "''") || !strcmp(v, "\"\"");
}

/* In a config text: after key (".token", "\"token\""), '=' or ':' and a
 * quoted value. JV_UNSET when absent, else the last assignment's. */
static int conf_value(const char *conf, size_t len, const char *const *keys, size_t nkeys)
{
	size_t pos = 0, ln;
	const char *s;
	int r = JV_UNSET;

	while (next_line(conf, len, &pos, &s, &ln)) {
		size_t i = 0;
		while (i < ln && isspace((unsigned char)s[i]))
			i++;
		if (i < ln && s[i] == '#')
			continue;
		for (; i < ln; i++) {
			for (size_t k = 0; k < nkeys; k++) {
				size_t kl = strlen(keys[k]), j;
				char q;
				if (ln - i < kl || strncmp(s + i, keys[k], kl))
					continue;
				j = i + kl;
				while (j < ln && (s[j] == ' ' || s[j] == '\t'))
					j++;
				if (j >= ln || (s[j] != '=' && s[j] != ':'))
					continue;
				j++;
				while (j < ln && (s[j] == ' ' || s[j] == '\t'))
					j++;
				if (j >= ln || (s[j] != '\'' && s[j] != '"'))
					continue;
				q = s[j];
				r = j + 1 < ln && s[j + 1] == q ? JV_EMPTY : JV_SET;
			}
		}
	}
	return r;
}

enum sec_auth secscan_jupyter_auth(const char *const *argv, size_t n, const char *conf,
				   size_t conflen)
{
	static const char *const tok_keys[] = {".token", "\"token\""};
	static const char *const pw_keys[] = {".password", "\"password\"", ".hashed_password",
					      "\"hashed_password\""};
	int tok = JV_UNSET, pw = JV_UNSET;

	if (conf) {
		tok = conf_value(conf, conflen, tok_keys, ARRAY_SIZE(tok_keys));
		pw = conf_value(conf, conflen, pw_keys, ARRAY_SIZE(pw_keys));
	}
	for (size_t i = 1; i < n; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		size_t kl = eq ? (size_t)(eq - a) : strlen(a);
		const char *val = eq ? eq + 1 : (i + 1 < n ? argv[i + 1] : "");
		if (is_token_key(a, kl))
			tok = quoted_empty(val) ? JV_EMPTY : JV_SET;
		else if (is_password_key(a, kl))
			pw = quoted_empty(val) ? JV_EMPTY : JV_SET;
	}
	if (pw == JV_SET)
		return SEC_AUTH_PASSWORD;
	if (tok == JV_EMPTY)
		return SEC_AUTH_NONE;
	return tok == JV_SET ? SEC_AUTH_TOKEN : SEC_AUTH_DEFAULT_TOKEN;
}

/*
 * The keyword and first argument of one sshd_config line (sshd_config(5):
 * "separated by whitespace or optional whitespace and exactly one '='";
 * an argument may be in double quotes). Returns how many were found: 0
 * for a blank or comment line.
 */
static size_t sshd_words(const char *s, size_t n, char w[2][80])
{
	size_t i = 0, k;

	w[0][0] = w[1][0] = '\0';
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i >= n || s[i] == '#')
		return 0;
	for (k = 0; i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '='; i++)
		if (k + 1 < sizeof(w[0]))
			w[0][k++] = s[i];
	w[0][k] = '\0';
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i < n && s[i] == '=') {
		i++;
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
	}
	if (i >= n)
		return 1;
	if (s[i] == '"') {
		for (k = 0, i++; i < n && s[i] != '"'; i++)
			if (k + 1 < sizeof(w[1]))
				w[1][k++] = s[i];
	} else {
		for (k = 0; i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '#'; i++)
			if (k + 1 < sizeof(w[1]))
				w[1][k++] = s[i];
	}
	w[1][k] = '\0';
	return 2;
}

int secscan_sshd_passwords(const char *buf, size_t len, const char *fname, bool default_yes,
			   enum sec_tri *out, char *err, size_t errlen)
{
	size_t pos = 0, ln, line = 0;
	const char *s;

	*out = SEC_UNKNOWN;
	while (next_line(buf, len, &pos, &s, &ln)) {
		char w[2][80];
		size_t nw;

		line++;
		nw = sshd_words(s, ln, w);
		if (!nw)
			continue;
		if (!strcasecmp(w[0], "Match"))
			break;   /* conditional from here on: not applied */
		if (strcasecmp(w[0], "PasswordAuthentication"))
			continue;
		if (nw < 2 || (strcasecmp(w[1], "yes") && strcasecmp(w[1], "no"))) {
			snprintf(err, errlen, _("%s:%zu: PasswordAuthentication: expected yes or no"), fname,
				 line);
			*out = SEC_UNKNOWN;
			return -1;
		}
		if (*out == SEC_UNKNOWN)
			*out = strcasecmp(w[1], "yes") ? SEC_NO : SEC_YES;
	}
	if (*out == SEC_UNKNOWN && default_yes)
		*out = SEC_YES;
	return 0;
}

/* ---- credentials ---- */

static int b64val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Decode base64 from s (n bytes, newlines skipped) into out, at most max
 * bytes; returns how many. */
static size_t b64_prefix(const char *s, size_t n, unsigned char *out, size_t max)
{
	uint32_t acc = 0;
	int bits = 0;
	size_t k = 0;

	for (size_t i = 0; i < n && k < max; i++) {
		int v;
		if (s[i] == '\n' || s[i] == '\r')
			continue;
		if ((v = b64val((unsigned char)s[i])) < 0)
			break;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[k++] = (unsigned char)(acc >> bits);
		}
	}
	return k;
}

static const char *mem_find(const char *h, size_t n, const char *needle)
{
	size_t l = strlen(needle);

	for (size_t i = 0; i + l <= n; i++)
		if (!memcmp(h + i, needle, l))
			return h + i;
	return NULL;
}

enum sec_key secscan_key_kind(const char *head, size_t n)
{
	static const char begin[] = "-----BEGIN ", openssh[] = "OPENSSH PRIVATE KEY-----";
	size_t i = 0;

	while (i < n && isspace((unsigned char)head[i]))
		i++;
	head += i;
	n -= i;
	if (n >= 20 && !memcmp(head, "PuTTY-User-Key-File-", 20))
		return mem_find(head, n, "Encryption: none") ? SEC_KEY_PLAIN
		       : mem_find(head, n, "Encryption: ") ? SEC_KEY_ENCRYPTED : SEC_KEY_UNKNOWN;
	if (n < sizeof(begin) - 1 || memcmp(head, begin, sizeof(begin) - 1))
		return SEC_KEY_NOT_A_KEY;
	head += sizeof(begin) - 1;
	n -= sizeof(begin) - 1;
	if (n >= sizeof(openssh) - 1 && !memcmp(head, openssh, sizeof(openssh) - 1)) {
		/* PROTOCOL.key: "openssh-key-v1\0", then string ciphername */
		unsigned char b[40];
		size_t k = b64_prefix(head + sizeof(openssh) - 1, n - (sizeof(openssh) - 1), b,
				      sizeof(b)), cl;
		if (k < 19 || memcmp(b, "openssh-key-v1", 15))
			return SEC_KEY_UNKNOWN;
		cl = (size_t)b[15] << 24 | (size_t)b[16] << 16 | (size_t)b[17] << 8 | b[18];
		if (cl == 0 || 19 + cl > k)
			return SEC_KEY_UNKNOWN;
		return cl == 4 && !memcmp(b + 19, "none", 4) ? SEC_KEY_PLAIN : SEC_KEY_ENCRYPTED;
	}
	if (n >= 26 && !memcmp(head, "ENCRYPTED PRIVATE KEY-----", 26))
		return SEC_KEY_ENCRYPTED;
	{
		const char *e = mem_find(head, n < 40 ? n : 40, "PRIVATE KEY-----");
		if (!e)
			return SEC_KEY_NOT_A_KEY;
		if (mem_find(head, n, "ENCRYPTED"))
			return SEC_KEY_ENCRYPTED;   /* "Proc-Type: 4,ENCRYPTED" (RFC 1421 headers) */
		return SEC_KEY_PLAIN;
	}
}

bool secscan_secret_name(const char *name)
{
	static const char *const words[] = {"TOKEN", "KEY", "SECRET", "PASSWORD", "PASSWD"};
	char up[128];
	size_t i;

	for (i = 0; name[i] && name[i] != '=' && i + 1 < sizeof(up); i++)
		up[i] = (char)toupper((unsigned char)name[i]);
	up[i] = '\0';
	for (size_t k = 0; k < ARRAY_SIZE(words); k++)
		if (strstr(up, words[k]))
			return true;
	return false;
}

const char *secscan_cred_name(enum sec_cred c)
{
	static const char *const names[] = {"aws", "gcloud", "huggingface", "netrc",
					    "git-credentials", "docker", "ssh-key", "dotenv"};
	_Static_assert(ARRAY_SIZE(names) == SEC_CRED_COUNT, "a name per credential kind");
	return (unsigned)c < ARRAY_SIZE(names) ? names[c] : "?";
}

/* Does line [s, s+n) start (after blanks) with key, then blanks and '='? */
static bool ini_key(const char *s, size_t n, const char *key)
{
	size_t i = 0, kl = strlen(key);

	while (i < n && isspace((unsigned char)s[i]))
		i++;
	if (n - i < kl || strncasecmp(s + i, key, kl))
		return false;
	i += kl;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i < n && s[i] == '=';
}

void secscan_cred_facts(enum sec_cred c, const char *buf, size_t len, long *count,
			bool *temporary)
{
	size_t pos = 0, ln;
	const char *s;

	*count = 0;
	*temporary = false;
	switch (c) {
	case SEC_CRED_AWS: {
		bool secret = false, session = false, all_session = true;
		while (next_line(buf, len, &pos, &s, &ln)) {
			size_t i = 0;
			while (i < ln && isspace((unsigned char)s[i]))
				i++;
			if (i < ln && s[i] == '[') {
				if (secret) {
					(*count)++;
					all_session = all_session && session;
				}
				secret = session = false;
			} else if (ini_key(s, ln, "aws_secret_access_key")) {
				secret = true;
			} else if (ini_key(s, ln, "aws_session_token")) {
				session = true;
			}
		}
		if (secret) {
			(*count)++;
			all_session = all_session && session;
		}
		*temporary = *count > 0 && all_session;
		break;
	}
	case SEC_CRED_NETRC: {
		char w[16][80];
		while (next_line(buf, len, &pos, &s, &ln)) {
			size_t nw = split_words(s, ln, w, 16);
			for (size_t i = 0; i < nw; i++) {
				if (w[i][0] == '#')
					break;
				if (!strcmp(w[i], "password") && i + 1 < nw)
					(*count)++;
			}
		}
		break;
	}
	case SEC_CRED_GIT:
	case SEC_CRED_DOTENV:
		while (next_line(buf, len, &pos, &s, &ln)) {
			size_t i = 0;
			while (i < ln && isspace((unsigned char)s[i]))
				i++;
			if (i >= ln || s[i] == '#')
				continue;
			if (c == SEC_CRED_GIT ? mem_find(s + i, ln - i, "@") != NULL
					      : memchr(s + i, '=', ln - i) != NULL)
				(*count)++;
		}
		break;
	case SEC_CRED_DOCKER:
		for (size_t i = 0; i + 6 <= len; i++) {
			size_t j;
			if (memcmp(buf + i, "\"auth\"", 6))
				continue;
			j = i + 6;
			while (j < len && isspace((unsigned char)buf[j]))
				j++;
			if (j >= len || buf[j] != ':')
				continue;
			j++;
			while (j < len && isspace((unsigned char)buf[j]))
				j++;
			if (j + 1 < len && buf[j] == '"' && buf[j + 1] != '"')
				(*count)++;
		}
		break;
	default:
		*count = len > 0;
		break;
	}
}

/* ---- verdicts ---- */

const char *secscan_code_name(enum sec_code c)
{
	static const char *const names[] = {
		"net_unreadable", "net_none", "listen_loopback", "listen_addr", "listen_any",
		"listen_foreign", "jupyter_open", "sshd_password", "sshd_keys", "creds_none",
		"cred_file", "cred_temporary", "cred_readable", "key_plain", "key_encrypted",
		"env_secret", "tmp_none", "tmp_large",
	};
	_Static_assert(ARRAY_SIZE(names) == SEC_F_COUNT, "a name per code");
	return (unsigned)c < ARRAY_SIZE(names) ? names[c] : "?";
}

const char *secscan_proc_name(enum sec_proc k)
{
	static const char *const names[] = {"other", "jupyter", "tensorboard", "model-server", "sshd"};
	return (unsigned)k < ARRAY_SIZE(names) ? names[k] : "?";
}

static struct sec_finding *add(struct sec_report *r, size_t *cap, enum env_level l,
			       enum sec_code c, const char *topic)
{
	struct sec_finding *f;

	if (util_grow((void **)&r->v, cap, r->n + 1, sizeof(*r->v)))
		return NULL;
	f = &r->v[r->n++];
	memset(f, 0, sizeof(*f));
	f->level = l;
	f->code = c;
	snprintf(f->topic, sizeof(f->topic), "%s", topic);
	r->count[l]++;
	if (l > r->worst)
		r->worst = l;
	return f;
}

int secscan_judge(const struct sec_facts *fa, struct sec_report *r)
{
	size_t cap = 0, any = 0, creds = 0;
	struct sec_finding *f;

	memset(r, 0, sizeof(*r));
	r->worst = ENV_INFO;
#define ADD(l, c, t) do { if (!(f = add(r, &cap, (l), (c), (t)))) goto out_nomem; } while (0)
	if (!fa->net_read)
		ADD(ENV_INFO, SEC_F_NET_UNREADABLE, "net");
	for (size_t i = 0; i < fa->nlisteners; i++) {
		const struct sec_listener *li = &fa->listeners[i];
		enum env_level l;
		enum sec_code c;

		if (li->sock.bind == SEC_BIND_LOOPBACK) {
			l = ENV_OK, c = SEC_F_LISTEN_LOOPBACK;
		} else if (li->sock.bind == SEC_BIND_ADDR) {
			l = ENV_INFO, c = SEC_F_LISTEN_ADDR;
		} else if (li->pid < 0) {
			l = ENV_INFO, c = SEC_F_LISTEN_FOREIGN;
		} else if (li->kind == SEC_PROC_JUPYTER && li->auth == SEC_AUTH_NONE) {
			l = ENV_FAIL, c = SEC_F_JUPYTER_OPEN;
		} else if (li->kind == SEC_PROC_SSHD && li->sshd_passwords == SEC_YES) {
			l = ENV_FAIL, c = SEC_F_SSHD_PASSWORD;
		} else if (li->kind == SEC_PROC_SSHD && li->sshd_passwords == SEC_NO) {
			l = ENV_OK, c = SEC_F_SSHD_KEYS;
		} else {
			l = ENV_WARN, c = SEC_F_LISTEN_ANY;
		}
		if (li->sock.bind == SEC_BIND_ANY)
			any++;
		ADD(l, c, "net");
		f->listener = li;
	}
	if (fa->net_read && !any)
		ADD(ENV_OK, SEC_F_NET_NONE, "net");

	for (size_t i = 0; i < fa->ncreds; i++) {
		const struct sec_cred_file *cf = &fa->creds[i];
		if (cf->kind == SEC_CRED_SSH_KEY) {
			if (cf->key == SEC_KEY_NOT_A_KEY)
				continue;
			if (cf->key == SEC_KEY_ENCRYPTED)
				ADD(ENV_OK, SEC_F_KEY_ENCRYPTED, "cred");
			else
				ADD(ENV_WARN, SEC_F_KEY_PLAIN, "cred");
		} else if (cf->count <= 0) {
			continue;
		} else if (cf->temporary) {
			ADD(ENV_INFO, SEC_F_CRED_TEMPORARY, "cred");
		} else {
			ADD(ENV_WARN, SEC_F_CRED_FILE, "cred");
		}
		f->cred = cf;
		creds++;
		if (cf->mode & 077) {
			ADD(ENV_FAIL, SEC_F_CRED_READABLE, "cred");
			f->cred = cf;
		}
	}
	if (!creds)
		ADD(ENV_OK, SEC_F_CREDS_NONE, "cred");

	if (fa->nenvnames) {
		size_t k = 0;
		ADD(ENV_WARN, SEC_F_ENV_SECRET, "env-vars");
		for (size_t i = 0; i < fa->nenvnames; i++) {
			int w = snprintf(f->names + k, sizeof(f->names) - k, "%s%s", i ? " " : "",
					 fa->envnames[i]);
			if (w < 0 || (size_t)w >= sizeof(f->names) - k)
				break;
			k += (size_t)w;
			f->nnames++;
		}
	}

	for (size_t i = 0; i < fa->nleftovers; i++) {
		ADD(ENV_WARN, SEC_F_TMP_LARGE, "tmp");
		f->leftover = &fa->leftovers[i];
		snprintf(f->roots, sizeof(f->roots), "%s", fa->tmp_roots);
	}
	if (!fa->nleftovers) {
		ADD(ENV_OK, SEC_F_TMP_NONE, "tmp");
		snprintf(f->roots, sizeof(f->roots), "%s", fa->tmp_roots);
	}
#undef ADD
	return 0;
out_nomem:
	secscan_report_free(r);
	return -1;
}

void secscan_report_free(struct sec_report *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}
