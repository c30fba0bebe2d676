/*
 * secwords.c - the sentences of the security findings (secwords.h), from
 * the codes and facts of src/core/box/secscan.c; the fixes follow seed 000
 * §5.3 (no plain-text credentials, no open service port without access
 * control, clean up before release, no bulky leftovers) and docs/env.md.
 */
#include "cmd/box/secwords.h"
#include "base/strbuf.h"

#include <stdio.h>
#include <string.h>

#include "base/i18n.h"

#define GIB 1073741824.0

/* "Jupyter", "TensorBoard", "a model server", "sshd" or "PROC". */
static const char *kind_title(const struct sec_listener *l)
{
	switch (l->kind) {
	case SEC_PROC_JUPYTER:
		return _("Jupyter");
	case SEC_PROC_TENSORBOARD:
		return _("TensorBoard");
	case SEC_PROC_MODEL_SERVER:
		return _("a model server");
	case SEC_PROC_SSHD:
		return "sshd";
	default:
		return l->proc[0] ? l->proc : _("a process");
	}
}

static void fix_bind(struct strbuf *x, const struct sec_listener *l)
{
	int p = l->sock.port;

	switch (l->kind) {
	case SEC_PROC_JUPYTER:
		strbuf_addf(x, _("restart it with --ip 127.0.0.1 and keep its token, then reach it through an "
			 "SSH tunnel from your machine: ssh -N -L %d:127.0.0.1:%d USER@BOX"), p, p);
		break;
	case SEC_PROC_TENSORBOARD:
		strbuf_addf(x, _("restart it with --host 127.0.0.1 (TensorBoard has no login), then ssh -N -L "
			 "%d:127.0.0.1:%d USER@BOX"), p, p);
		break;
	case SEC_PROC_MODEL_SERVER:
		strbuf_addf(x, _("start it with --host 127.0.0.1 and reach it through ssh -N -L "
			 "%d:127.0.0.1:%d USER@BOX, or put an API key or a proxy with access control in "
			 "front of it"), p, p);
		break;
	case SEC_PROC_SSHD:
		strbuf_addf(x, _("make sure PasswordAuthentication is no (sshd -T as root shows it): keys "
			 "only"));
		break;
	default:
		strbuf_addf(x, _("bind it to 127.0.0.1 and reach it through ssh -N -L %d:127.0.0.1:%d "
			 "USER@BOX, or put access control in front of it"), p, p);
		break;
	}
}

static const char *cred_title(enum sec_cred c)
{
	switch (c) {
	case SEC_CRED_AWS:
		return _("AWS access keys");
	case SEC_CRED_GCLOUD:
		return _("Google Cloud credentials");
	case SEC_CRED_HF:
		return _("a Hugging Face token");
	case SEC_CRED_NETRC:
		return _("netrc passwords (wandb's API key lives here)");
	case SEC_CRED_GIT:
		return _("git credentials");
	case SEC_CRED_DOCKER:
		return _("Docker registry logins");
	case SEC_CRED_DOTENV:
		return _(".env assignments");
	default:
		return _("a private key");
	}
}

static void fix_cred(struct strbuf *x, enum sec_cred c)
{
	switch (c) {
	case SEC_CRED_AWS:
		strbuf_addf(x, _("use temporary credentials (aws sts get-session-token, or an instance role) "
			 "instead of long-term access keys"));
		break;
	case SEC_CRED_GCLOUD:
		strbuf_addf(x, _("gcloud auth revoke when done, or pass a short-lived token "
			 "(gcloud auth print-access-token on your own machine)"));
		break;
	case SEC_CRED_HF:
		strbuf_addf(x, _("huggingface-cli logout when done, or give a fine-grained read-only token "
			 "as HF_TOKEN for the session only"));
		break;
	case SEC_CRED_NETRC:
		strbuf_addf(x, _("give WANDB_API_KEY for the session instead of wandb login, and delete "
			 "~/.netrc when done"));
		break;
	case SEC_CRED_GIT:
		strbuf_addf(x, _("use SSH agent forwarding (ssh -A) or git config credential.helper cache "
			 "instead of the store helper"));
		break;
	case SEC_CRED_DOCKER:
		strbuf_addf(x, _("docker logout when done, or a credential helper (credsStore)"));
		break;
	case SEC_CRED_DOTENV:
		strbuf_addf(x, _("keep secrets out of files on a rented box: set them for the session only"));
		break;
	default:
		strbuf_addf(x, _("use SSH agent forwarding (ssh -A) from your own machine instead of a key on "
			 "the box, or give it a passphrase (ssh-keygen -p -f FILE)"));
		break;
	}
	strbuf_addf(x, _("; gpurent release deletes it"));
}

void sec_word(const struct sec_finding *f, char *what, size_t whatlen, char *fix, size_t fixlen)
{
	const struct sec_listener *l = f->listener;
	const struct sec_cred_file *c = f->cred;
	struct strbuf w, x;

	strbuf_fixed(&w, what, whatlen);
	strbuf_fixed(&x, fix, fixlen);
	if (!whatlen || !fixlen)
		return;
	switch (f->code) {
	case SEC_F_NET_UNREADABLE:
		strbuf_addf(&w, _("cannot read /proc/net/tcp: listening ports not checked"));
		break;
	case SEC_F_NET_NONE:
		strbuf_addf(&w, _("nothing listens on all interfaces"));
		break;
	case SEC_F_LISTEN_LOOPBACK:
		strbuf_addf(&w, _("%s (pid %ld) listens on %s port %d: loopback only"), kind_title(l), l->pid,
			    l->sock.addr, l->sock.port);
		break;
	case SEC_F_LISTEN_ADDR:
		strbuf_addf(&w, _("%s (pid %ld) listens on %s port %d only"), kind_title(l), l->pid,
			    l->sock.addr, l->sock.port);
		break;
	case SEC_F_LISTEN_ANY:
		strbuf_addf(&w, _("%s (pid %ld) listens on all interfaces (%s port %d)"), kind_title(l),
			    l->pid, l->sock.addr, l->sock.port);
		if (l->kind == SEC_PROC_JUPYTER)
			strbuf_addf(&w, _(", with a token or password"));
		else if (l->kind == SEC_PROC_SSHD)
			strbuf_addf(&w, _(", password login unknown"));
		fix_bind(&x, l);
		break;
	case SEC_F_LISTEN_FOREIGN:
		strbuf_addf(&w, _("a process of another user listens on all interfaces (%s port %d)"),
			    l->sock.addr, l->sock.port);
		break;
	case SEC_F_JUPYTER_OPEN:
		strbuf_addf(&w, _("Jupyter (pid %ld) listens on all interfaces (%s port %d) without a token "
			 "or password: whoever reaches the port runs code as you"), l->pid, l->sock.addr,
			    l->sock.port);
		strbuf_addf(&x, _("restart it without --ServerApp.token='' (it then makes a random token) and "
			 "with --ip 127.0.0.1, then ssh -N -L %d:127.0.0.1:%d USER@BOX"), l->sock.port,
			    l->sock.port);
		break;
	case SEC_F_SSHD_PASSWORD:
		strbuf_addf(&w, _("sshd (pid %ld) listens on all interfaces (%s port %d) and allows password "
			 "login (%s)"), l->pid, l->sock.addr, l->sock.port,
			    l->sshd_source[0] ? l->sshd_source : "?");
		strbuf_addf(&x, _("set PasswordAuthentication no in sshd_config and reload sshd (keys only), "
			 "or ask the platform for key-only login"));
		break;
	case SEC_F_SSHD_KEYS:
		strbuf_addf(&w, _("sshd (pid %ld) listens on all interfaces (%s port %d), keys only (%s)"),
			    l->pid, l->sock.addr, l->sock.port, l->sshd_source);
		break;
	case SEC_F_CREDS_NONE:
		strbuf_addf(&w, _("no credentials in the usual places (~/.aws, ~/.config/gcloud, "
			 "~/.cache/huggingface, ~/.netrc, ~/.git-credentials, ~/.docker, ~/.ssh, ./.env)"));
		break;
	case SEC_F_CRED_FILE:
		strbuf_addf(&w, _("%s holds %s in plain text (%ld)"), c->path, cred_title(c->kind), c->count);
		fix_cred(&x, c->kind);
		break;
	case SEC_F_CRED_TEMPORARY:
		strbuf_addf(&w, _("%s holds temporary AWS credentials (session tokens)"), c->path);
		break;
	case SEC_F_CRED_READABLE:
		strbuf_addf(&w, _("%s is readable by group or others (mode %04o)"), c->path, c->mode);
		strbuf_addf(&x, _("chmod 600 %s"), c->path);
		break;
	case SEC_F_KEY_PLAIN:
		strbuf_addf(&w, c->key == SEC_KEY_UNKNOWN ? _("%s is a private key, encryption unknown")
			    : _("%s is a private key without a passphrase"), c->path);
		fix_cred(&x, SEC_CRED_SSH_KEY);
		break;
	case SEC_F_KEY_ENCRYPTED:
		strbuf_addf(&w, _("%s is a passphrase-protected private key"), c->path);
		break;
	case SEC_F_ENV_SECRET:
		strbuf_addf(&w, _("environment variables named like secrets (values not shown): %s"), f->names);
		strbuf_addf(&x, _("give them to one command only (NAME=... cmd), and unset %s when done"),
			    f->names);
		break;
	case SEC_F_TMP_NONE:
		strbuf_addf(&w, _("no file of yours of %.0f GiB or more in %s"), SEC_LARGE_FILE_BYTES / GIB,
			    f->roots);
		break;
	case SEC_F_TMP_LARGE:
		strbuf_addf(&w, _("%s (%.1f GiB) of yours is left in a shared temporary place"),
			    f->leftover->path, (double)f->leftover->size / GIB);
		strbuf_addf(&x, _("move it to your own disk or delete it; gpurent release deletes it"));
		break;
	default:
		strbuf_addf(&w, "?");
		break;
	}
}
