/*
 * cmd_completion.c - `gpurent completion bash|zsh|fish` prints a completion
 * script for the shell; `gpurent completion candidates -- WORD...` is what
 * the scripts call at each TAB: the words after `gpurent` up to and
 * including the one being completed, and it prints the candidates, one a
 * line. Nothing here is a second list of options: the commands come from
 * main.c's table (cmd_table()), each command's options, fixed values and
 * subcommands from its own opt table (`CMD --list-options`, `--list-choices`,
 * `--list-subcommands`, which this runs as children of the same binary),
 * and the names of models, GPUs, presets and currencies from the data the
 * commands read. A line "@files" asks the shell for file names, "@dirs"
 * for directories.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "kit/cmd.h"
#include "kit/common.h"
#include "base/msg.h"
#include "kit/opt.h"
#include "core/text/currency.h"
#include "core/market/provider.h"
#include "core/model/gpu.h"
#include "core/model/model.h"
#include "os/child.h"
#include "base/util.h"

static const char usage[] = N_(
	"usage: gpurent completion bash|zsh|fish\n"
	"       gpurent completion candidates -- WORD...\n"
	"\n"
	"Prints a completion script for the shell. It completes commands,\n"
	"subcommands, options, the values of options with fixed values (tasks,\n"
	"precisions, frameworks, ...), model and GPU names from the data, stop\n"
	"presets, currency codes, and file names. Install it with:\n"
	"  bash: gpurent completion bash > ~/.local/share/bash-completion/completions/gpurent\n"
	"  zsh:  gpurent completion zsh > \"${fpath[1]}/_gpurent\"\n"
	"  fish: gpurent completion fish > ~/.config/fish/completions/gpurent.fish\n"
	"(`make install` puts all three in place under PREFIX.)\n"
	"\n"
	"candidates: the words after `gpurent`, the last one the word being\n"
	"completed (empty for a new word); prints one candidate a line, or\n"
	"@files / @dirs when the shell should complete paths.\n");

/* ---- what the command says about itself ---- */

/* Run this binary with args; its stdout into *out (NUL-ended, caller
 * frees). 0 when it exited 0. */
static int self_output(const char *const *args, char **out)
{
	const char *argv[8];
	struct child_opts co = {.argv = argv, .in_fd = -1, .capture = true, .err_null = true};
	struct child c;
	char err[256], *buf = NULL;
	size_t n = 0, cap = 0;
	int xe, status = 0, k = 0;
	extern char **environ;

	argv[k++] = "/proc/self/exe";
	for (size_t i = 0; args[i] && k < (int)ARRAY_SIZE(argv) - 1; i++)
		argv[k++] = args[i];
	argv[k] = NULL;
	co.envp = environ;
	*out = NULL;
	if (child_spawn(&co, &c, &xe, err, sizeof(err)))
		return -1;
	for (;;) {
		struct pollfd p = {.fd = c.out_fd, .events = POLLIN};
		if (poll(&p, 1, 10000) <= 0 && errno != EINTR)
			break;
		if (n + 4097 > cap) {
			size_t ncap = cap ? cap * 2 : 8192;
			char *nb = realloc(buf, ncap);
			if (!nb)
				break;
			buf = nb;
			cap = ncap;
		}
		ssize_t r = read(c.out_fd, buf + n, 4096);
		if (r > 0)
			n += (size_t)r;
		else if (r == 0 || (errno != EAGAIN && errno != EINTR))
			break;
	}
	close(c.out_fd);
	child_wait(c.pid, &status, 0);
	if (!buf) {
		buf = malloc(1);
		if (!buf)
			return -1;
	}
	buf[n] = '\0';
	*out = buf;
	return child_exit_code(status) == 0 ? 0 : -1;
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* The line of --list-options output for option `--name`: its type, or NULL. */
static const char *option_type(const char *listing, const char *name, char *type, size_t len)
{
	size_t nl = strlen(name);

	for (const char *p = listing; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (strncmp(p, "--", 2) || strncmp(p + 2, name, nl) || p[2 + nl] != ' ')
			continue;
		const char *t = p + 3 + nl, *e = t;
		while (*e && *e != ' ' && *e != '\n')
			e++;
		snprintf(type, len, "%.*s", (int)(e - t), t);
		return type;
	}
	return NULL;
}

/* Print each line's first word that starts with cur (prefixed by pre). */
static void print_first_words(const char *listing, const char *cur, const char *pre)
{
	for (const char *p = listing; p && *p;) {
		const char *e = p;
		while (*e && *e != ' ' && *e != '\n')
			e++;
		if (e > p && !strncmp(p, cur, strlen(cur)))
			printf("%s%.*s\n", pre, (int)(e - p), p);
		p = strchr(e, '\n');
		p = p ? p + 1 : NULL;
	}
}

/* The values after "--name " in --list-choices output that start with cur. */
static bool print_choices(const char *listing, const char *name, const char *cur, const char *pre)
{
	size_t nl = strlen(name);

	for (const char *p = listing; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (strncmp(p, "--", 2) || strncmp(p + 2, name, nl) || p[2 + nl] != ' ')
			continue;
		const char *v = p + 3 + nl;
		while (*v && *v != '\n') {
			const char *e = v;
			while (*e && *e != ' ' && *e != '\n')
				e++;
			if (!strncmp(v, cur, strlen(cur)))
				printf("%s%.*s\n", pre, (int)(e - v), v);
			v = *e == ' ' ? e + 1 : e;
		}
		return true;
	}
	return false;
}

/* Values that come from the data: model and GPU names, presets, currencies. */
static bool print_data_values(const char *opt, const char *cur, const char *pre)
{
	size_t n = strlen(cur);

	if (!strcmp(opt, "model")) {
		struct model_db mdb = {0};
		if (common_load_data(NULL, &mdb))
			return true;
		for (size_t i = 0; i < mdb.n; i++)
			if (!strncmp(mdb.v[i].name, cur, n))
				printf("%s%s\n", pre, mdb.v[i].name);
		model_db_free(&mdb);
		return true;
	}
	if (!strcmp(opt, "gpu")) {
		struct gpu_db gdb = {0};
		if (common_load_data(&gdb, NULL))
			return true;
		/* the aliases users type (H100, RTX4090): full names have
		 * spaces. A GPU's first alias when it matches, else the others
		 * that do (H100-SXM5), so that each card is offered once. */
		for (size_t i = 0; i < gdb.n; i++) {
			const char *a = gdb.v[i].aliases;
			size_t l = strcspn(a, "|");
			if (l >= n && !strncasecmp(a, cur, n)) {
				printf("%s%.*s\n", pre, (int)l, a);
				continue;
			}
			for (a += l + (a[l] == '|'); *a; a += l + (a[l] == '|')) {
				l = strcspn(a, "|");
				if (l >= n && !strncasecmp(a, cur, n))
					printf("%s%.*s\n", pre, (int)l, a);
			}
		}
		gpu_db_free(&gdb);
		return true;
	}
	if (!strcmp(opt, "preset")) {
		const struct provider_preset *p;
		for (size_t i = 0; (p = provider_preset_at(i)); i++)
			if (!strncmp(p->name, cur, n))
				printf("%s%s\n", pre, p->name);
		return true;
	}
	if (!strcmp(opt, "currency")) {
		const char *buf;
		size_t len;
		char *owned = NULL, err[256];
		const char *fname = NULL;
		struct currency_table t = {0};
		if (common_data_file("currencies.csv", &buf, &len, &owned, &fname))
			return true;
		if (!currency_table_load(&t, buf, len, fname, err, sizeof(err)))
			for (size_t i = 0; i < t.n; i++)
				if (!strncmp(t.v[i].code, cur, n))
					printf("%s%s\n", pre, t.v[i].code);
		currency_table_free(&t);
		free(owned);
		return true;
	}
	return false;
}

/* Complete the value of option `name` (of the given type) at cur. */
static void complete_value(const char *choices, const char *name, const char *type, const char *cur,
			   const char *pre)
{
	if (print_choices(choices, name, cur, pre) || print_data_values(name, cur, pre))
		return;
	if (!strcmp(type, "file") || !strcmp(type, "list") || !strcmp(type, "string"))
		puts(strstr(name, "dir") ? "@dirs" : "@files");
}

static int candidates(int nw, char **w)
{
	size_t ncmd;
	const struct cmd_row *rows = cmd_table(&ncmd);
	const char *cur = nw ? w[nw - 1] : "";
	int i = 0;
	char *subs = NULL, *opts = NULL, *choices = NULL;
	const char *path[4] = {0};

	/* global options before the command */
	while (i < nw - 1 && w[i][0] == '-') {
		if (!strcmp(w[i], "--data-dir")) {
			if (i + 1 == nw - 1) {
				puts("@dirs");
				return 0;
			}
			i++;
		}
		i++;
	}
	if (i >= nw - 1) {
		if (cur[0] == '-') {
			static const char *const globals[] = {"--data-dir", "--help", "--version"};
			for (size_t k = 0; k < ARRAY_SIZE(globals); k++)
				if (starts(globals[k], cur))
					puts(globals[k]);
			return 0;
		}
		for (size_t k = 0; k < ncmd; k++)
			if (starts(rows[k].name, cur))
				puts(rows[k].name);
		if (starts("help", cur))
			puts("help");
		return 0;
	}
	const char *cmd = w[i++];
	if (!strcmp(cmd, "help")) {
		if (i == nw - 1)
			for (size_t k = 0; k < ncmd; k++)
				if (starts(rows[k].name, cur))
					puts(rows[k].name);
		return 0;
	}
	bool known = false;
	for (size_t k = 0; k < ncmd; k++)
		known |= !strcmp(rows[k].name, cmd);
	if (!known)
		return 0;
	path[0] = cmd;
	/* a command with subcommands: the first operand names one */
	path[1] = "--list-subcommands";
	if (!self_output(path, &subs) && subs[0]) {
		path[1] = "--list-options";
		char *top = NULL, type[32];
		self_output(path, &top);
		while (i < nw - 1 && w[i][0] == '-') {
			const char *eq = strchr(w[i], '=');
			if (!eq && option_type(top ? top : "", w[i] + 2, type, sizeof(type)) &&
			    strcmp(type, "flag"))
				i++;
			i++;
		}
		if (i >= nw - 1) {
			if (i == nw - 1 && i > 0 && w[i - 1][0] == '-' &&
			    option_type(top ? top : "", w[i - 1] + 2, type, sizeof(type)) && strcmp(type, "flag"))
				complete_value("", w[i - 1] + 2, type, cur, "");
			else if (cur[0] == '-')
				print_first_words(top ? top : "", cur, "");
			else
				print_first_words(subs, cur, "");
			free(top);
			goto done;
		}
		free(top);
		path[1] = w[i++];
	} else {
		path[1] = NULL;
	}
	/* the options of CMD [SUB] */
	size_t np = path[1] ? 2 : 1;
	path[np] = "--list-options";
	path[np + 1] = NULL;
	if (self_output(path, &opts))
		goto done;
	path[np] = "--list-choices";
	if (self_output(path, &choices))
		goto done;
	/* after `--` everything is an operand (run -- CMD) */
	for (int k = i; k < nw - 1; k++)
		if (!strcmp(w[k], "--")) {
			puts("@files");
			goto done;
		}
	char type[32];
	const char *eq = cur[0] == '-' && cur[1] == '-' ? strchr(cur, '=') : NULL;
	if (eq) {
		char name[64], pre[80];
		snprintf(name, sizeof(name), "%.*s", (int)(eq - cur - 2), cur + 2);
		snprintf(pre, sizeof(pre), "--%s=", name);
		if (option_type(opts, name, type, sizeof(type)) && strcmp(type, "flag"))
			complete_value(choices, name, type, eq + 1, pre);
		goto done;
	}
	const char *prev = nw >= 2 && i <= nw - 1 ? w[nw - 2] : "";
	if (nw - 2 >= i && prev[0] == '-' && prev[1] == '-' &&
	    option_type(opts, prev + 2, type, sizeof(type)) && strcmp(type, "flag")) {
		complete_value(choices, prev + 2, type, cur, "");
		goto done;
	}
	if (cur[0] == '-') {
		print_first_words(opts, cur, "");
		if (starts("--help", cur))
			puts("--help");
		goto done;
	}
	puts("@files");
done:
	free(subs);
	free(opts);
	free(choices);
	return msg_finish(EXIT_OK);
}

/* ---- the scripts ---- */

static const char bash_script[] =
	"# bash completion for gpurent (gpurent completion bash)\n"
	"_gpurent() {\n"
	"\tlocal cur=${COMP_WORDS[COMP_CWORD]} IFS=$'\\n' c\n"
	"\tlocal -a words=(\"${COMP_WORDS[@]:1:COMP_CWORD}\")\n"
	"\t# bash splits --opt=value at '='; join them back\n"
	"\tlocal -a joined=() ; local k=0\n"
	"\twhile [ $k -lt ${#words[@]} ]; do\n"
	"\t\tif [ \"${words[k+1]-}\" = \"=\" ]; then\n"
	"\t\t\tjoined+=(\"${words[k]}=${words[k+2]-}\"); k=$((k+3))\n"
	"\t\telse joined+=(\"${words[k]}\"); k=$((k+1)); fi\n"
	"\tdone\n"
	"\t[ \"$cur\" = \"=\" ] && cur=\n"
	"\tCOMPREPLY=()\n"
	"\tfor c in $(\"${COMP_WORDS[0]}\" completion candidates -- \"${joined[@]}\" 2>/dev/null); do\n"
	"\t\tcase $c in\n"
	"\t\t@files) COMPREPLY+=($(compgen -f -- \"${cur#*=}\")); compopt -o filenames 2>/dev/null ;;\n"
	"\t\t@dirs) COMPREPLY+=($(compgen -d -- \"${cur#*=}\")); compopt -o filenames 2>/dev/null ;;\n"
	"\t\t*) case $cur in --*=*) c=${c#*=} ;; esac; COMPREPLY+=(\"$c\") ;;\n"
	"\t\tesac\n"
	"\tdone\n"
	"}\n"
	"complete -F _gpurent gpurent\n";

static const char zsh_script[] =
	"#compdef gpurent\n"
	"# zsh completion for gpurent (gpurent completion zsh)\n"
	"_gpurent() {\n"
	"\tlocal -a cands plain\n"
	"\tlocal c\n"
	"\tcands=(\"${(@f)$(${words[1]} completion candidates -- \"${(@)words[2,CURRENT]}\" 2>/dev/null)}\")\n"
	"\tfor c in $cands; do\n"
	"\t\tcase $c in\n"
	"\t\t@files) _files ;;\n"
	"\t\t@dirs) _files -/ ;;\n"
	"\t\t'') ;;\n"
	"\t\t*) plain+=(\"$c\") ;;\n"
	"\t\tesac\n"
	"\tdone\n"
	"\t(( ${#plain} )) && compadd -Q -- $plain\n"
	"\treturn 0\n"
	"}\n"
	"compdef _gpurent gpurent\n";

static const char fish_script[] =
	"# fish completion for gpurent (gpurent completion fish)\n"
	"function __gpurent_complete\n"
	"\tset -l words (commandline -opc) (commandline -ct)\n"
	"\tfor c in (command $words[1] completion candidates -- $words[2..-1] 2>/dev/null)\n"
	"\t\tswitch $c\n"
	"\t\t\tcase @files @dirs\n"
	"\t\t\t\t__fish_complete_path (commandline -ct)\n"
	"\t\t\tcase '*'\n"
	"\t\t\t\techo $c\n"
	"\t\tend\n"
	"\tend\n"
	"end\n"
	"complete -c gpurent -f -a '(__gpurent_complete)'\n";

int cmd_completion(int argc, char **argv)
{
	const struct opt opts[] = {OPT_TABLE_END};
	const struct opt_cmd oc = {.name = "completion", .usage = usage, .flags = OPT_STOP_AT_OPERAND,
				   .min_operands = 1, .max_operands = -1, .operands = N_("bash, zsh or fish")};
	int rc, nops;

	if ((rc = opt_parse(&oc, opts, argc, argv, NULL, &nops)) != OPT_GO)
		return rc;
	if (!strcmp(argv[0], "candidates")) {
		int k = 1;
		if (k < nops && !strcmp(argv[k], "--"))
			k++;
		return candidates(nops - k, argv + k);
	}
	if (nops > 1)
		return msg_usage(_("'%s': unexpected argument (see 'gpurent help completion')"), argv[1]);
	if (!strcmp(argv[0], "bash"))
		fputs(bash_script, stdout);
	else if (!strcmp(argv[0], "zsh"))
		fputs(zsh_script, stdout);
	else if (!strcmp(argv[0], "fish"))
		fputs(fish_script, stdout);
	else
		return msg_usage(_("'%s': expected bash, zsh or fish"), argv[0]);
	return msg_finish(EXIT_OK);
}
