/*
 * cmd_config.c - `gpurent config list|get|set|unset|path`: the defaults
 * file (src/kit/config.h says where it is and in what order it counts).
 * set and unset edit the file as text, so comments and the other settings
 * stay as they were; the new file replaces the old in one rename.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kit/cmd.h"
#include "kit/common.h"
#include "kit/config.h"
#include "base/msg.h"
#include "kit/opt.h"
#include "core/text/names.h"
#include "base/quote.h"
#include "base/out.h"
#include "base/util.h"

static const char usage[] = N_(
	"usage: gpurent config list [--json]\n"
	"       gpurent config get KEY\n"
	"       gpurent config set KEY VALUE...\n"
	"       gpurent config unset KEY\n"
	"       gpurent config path\n"
	"\n"
	"Defaults set once, for every command that has the option. The order:\n"
	"the command line, then the environment (GPURENT_KEY), then the file\n"
	"$XDG_CONFIG_HOME/gpurent/config.yaml (~/.config/gpurent/config.yaml;\n"
	"GPURENT_CONFIG names another), then the built-in default. `list` shows\n"
	"each value with where it came from.\n"
	"\n"
	"Settings:\n"
	"  access       memberships you hold (plan's access): SJTU-HPC,PKU\n"
	"  catalog      price catalogs read by default (plan, offers)\n"
	"  currency     the currency money is shown in (default USD; CNY under\n"
	"               a zh_CN locale, with the rate's source shown)\n"
	"  framework    the framework estimates assume (estimate, plan, probe)\n"
	"  ledger       the ledger database\n"
	"  preset       this box's stop preset for `gpurent run`\n"
	"  price        this box's price per hour for `gpurent run` and `probe`\n"
	"  rate         exchange rates CODE=UNITS_PER_USD, over data/currencies.csv\n"
	"  rate_date    the date of those rates (YYYY-MM-DD)\n"
	"  rate_source  where they come from (a bank, a site)\n"
	"  stale_days   plan warns when the prices it ranks are older (default 30)\n"
	"A list takes several values (config set access SJTU-HPC PKU) or one with\n"
	"commas. A bad value in the file is `FILE:LINE: key: what was expected`,\n"
	"exit 2, for every command that would use it.\n"
	"\n"
	"  gpurent config set currency CNY\n"
	"  gpurent config set rate CNY=7.12 && gpurent config set rate_date 2026-11-30\n"
	"  gpurent config list\n");

static const char *source_name(enum config_source s)
{
	switch (s) {
	case CFG_ENV: return N_("environment");
	case CFG_FILE: return N_("file");
	case CFG_LOCALE: return N_("locale");
	case CFG_DEFAULT: return N_("default");
	case CFG_NONE: break;
	}
	return N_("unset");
}

static int config_list(int argc, char **argv)
{
	bool json = false;
	const struct opt opts[] = {
		OPT_BOOL("json", &json, N_("the settings as JSON")),
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = "config list", .usage = usage, .max_operands = 0};
	char path[4096], err[4800];
	int rc, nops, bad = 0;
	struct json j;

	if ((rc = opt_parse(&oc, opts, argc, argv, NULL, &nops)) != OPT_GO)
		return rc;
	if (config_path(path, sizeof(path)))
		path[0] = '\0';
	if (!config_file(err, sizeof(err)))
		return msg_usage("%s", err);
	if (json) {
		config_machine_output();   /* USD, as every --json: the same bytes in every locale */
		json_init(&j, stdout);
		json_obj_begin(&j, NULL);
		json_str(&j, "file", path);
		json_arr_begin(&j, "settings");
	} else {
		printf(_("file: %s\n"), path[0] ? path : _("(none: set HOME or XDG_CONFIG_HOME)"));
	}
	for (const struct config_key *k = config_keys; k->name; k++) {
		struct config_value v;
		char val[CONFIG_MAX_VALUE * 2] = "", shown[CONFIG_MAX_VALUE * 2];

		if (config_lookup(k, &v, err, sizeof(err))) {
			msg_error("%s", err);
			bad = 1;
			continue;
		}
		for (size_t i = 0; i < v.n; i++)
			snprintf(val + strlen(val), sizeof(val) - strlen(val), "%s%s", i ? "," : "", v.vals[i]);
		if (json) {
			json_obj_begin(&j, NULL);
			json_str(&j, "key", k->name);
			if (v.n)
				json_str(&j, "value", val);
			else
				json_null(&j, "value");
			json_str(&j, "source", source_name(v.source));
			json_str(&j, "where", v.where);
			json_obj_end(&j);
			continue;
		}
		msg_escape(val, shown, sizeof(shown));
		if (!v.n)
			printf("  %-12s %-24s %s\n", k->name, "-", _("(unset)"));
		else if (v.where[0])
			printf(_("  %-12s %-24s (%s: %s)\n"), k->name, shown, _(source_name(v.source)),
			       v.source == CFG_LOCALE ? msg_tr(v.where) : v.where);
		else
			printf(_("  %-12s %-24s (%s)\n"), k->name, shown, _(source_name(v.source)));
	}
	if (json) {
		json_arr_end(&j);
		json_obj_end(&j);
		putchar('\n');
	}
	return msg_finish(bad ? EXIT_USAGE : EXIT_OK);
}

static const struct config_key *key_arg(const char *name)
{
	const struct config_key *k = config_key_find(name);

	if (!k) {
		struct names_suggest sg;
		names_suggest_init(&sg, name);
		for (const struct config_key *q = config_keys; q->name; q++)
			names_suggest_add(&sg, q->name);
		if (sg.best[0])
			msg_usage(_("'%s': not a setting (did you mean '%s'?)"), name, sg.best);
		else
			msg_usage(_("'%s': not a setting (see 'gpurent help config')"), name);
	}
	return k;
}

static int config_get(int argc, char **argv)
{
	const struct opt opts[] = {OPT_TABLE_END};
	const struct opt_cmd oc = {.name = "config get", .usage = usage, .min_operands = 1, .max_operands = 1,
				   .operands = "KEY"};
	const struct config_key *k;
	struct config_value v;
	char err[4800];
	int rc, nops;

	if ((rc = opt_parse(&oc, opts, argc, argv, NULL, &nops)) != OPT_GO)
		return rc;
	if (!(k = key_arg(argv[0])))
		return EXIT_USAGE;
	if (config_lookup(k, &v, err, sizeof(err)))
		return msg_usage("%s", err);
	if (!v.n)
		return EXIT_RUNTIME;   /* unset: nothing printed, as git config does */
	for (size_t i = 0; i < v.n; i++) {
		char shown[CONFIG_MAX_VALUE * 2];
		msg_escape(v.vals[i], shown, sizeof(shown));
		printf("%s%s", i ? "," : "", shown);
	}
	putchar('\n');
	return msg_finish(EXIT_OK);
}

/* Write text to path through a temporary file and rename(). */
static int write_file(const char *path, const char *text, size_t len)
{
	char tmp[4200], dir[4096];
	char *slash;
	int fd;

	snprintf(dir, sizeof(dir), "%s", path);
	if ((slash = strrchr(dir, '/')) && slash != dir) {
		*slash = '\0';
		/* ~/.config/gpurent: its parent may be missing on a new box */
		char *p = dir;
		while ((p = strchr(p + 1, '/'))) {
			*p = '\0';
			if (mkdir(dir, 0755) && errno != EEXIST)
				break;
			*p = '/';
		}
		if (mkdir(dir, 0755) && errno != EEXIST)
			return msg_fail(_("%s: cannot create the folder: %s"), dir, strerror(errno));
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0)
		return msg_fail(_("%s: cannot write: %s"), tmp, strerror(errno));
	for (size_t at = 0; at < len;) {
		ssize_t w = write(fd, text + at, len - at);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int e = errno;
			close(fd);
			unlink(tmp);
			return msg_fail(_("%s: cannot write: %s"), tmp, strerror(e));
		}
		at += (size_t)w;
	}
	if (fsync(fd) || close(fd) || rename(tmp, path)) {
		int e = errno;
		unlink(tmp);
		return msg_fail(_("%s: cannot write: %s"), path, strerror(e));
	}
	return 0;
}

/* set (vals != NULL) or unset key in the file. */
static int edit(const struct config_key *k, const char *const *vals, size_t n)
{
	char path[4096], err[4800], line[CONFIG_MAX_VALUES * (CONFIG_MAX_VALUE + 4) + 64];
	const struct config *c;
	const char *text;
	size_t len, outlen;
	char *out;
	int rc;

	if (config_path(path, sizeof(path)))
		return msg_fail(_("no config file: set HOME or XDG_CONFIG_HOME (or GPURENT_CONFIG)"));
	static const char *names[64];

	for (size_t i = 0; config_keys[i].name && i + 1 < ARRAY_SIZE(names); i++)
		names[i] = config_keys[i].name;
	/* a file that does not parse is not rewritten, but for unset: its
	 * key's lines go when the rest then parses (the repair of a bad value) */
	if (!(c = config_file(err, sizeof(err)))) {
		struct config fixed;
		char e2[512];
		text = config_file_text(&len);
		if (vals || !text || config_remove_text(text, len, k->name, &out, &outlen))
			return msg_usage("%s", err);
		if (config_parse(out, outlen, path, names, &fixed, e2, sizeof(e2))) {
			free(out);
			return msg_usage("%s", err);
		}
		config_free(&fixed);
		rc = write_file(path, out, outlen);
		free(out);
		return rc ? rc : msg_finish(EXIT_OK);
	}
	text = config_file_text(&len);
	if (vals && config_render(k->name, vals, n, k->list, line, sizeof(line)))
		return msg_usage(_("%s: the value is too long"), k->name);
	if (!vals && !config_find(c, k->name))
		return msg_finish(EXIT_OK);   /* nothing to unset */
	rc = config_edit_checked(text ? text : "", text ? len : 0, path, names, c, k->name, vals ? line : NULL,
				 &out, &outlen);
	if (rc == -3)
		return msg_usage(_("%s: config %s cannot edit this file line by line without changing what it "
				   "says (a block without a final newline, CR line ends, UTF-16 text); the file is "
				   "unchanged: edit it by hand"), path, vals ? "set" : "unset");
	if (rc == -2)
		return msg_usage(_("%s: written as one {...} mapping: config set and unset edit one setting a "
				   "line; write it one setting a line (or edit it by hand)"), path);
	if (rc)
		return msg_fail(_("out of memory"));
	rc = write_file(path, out, outlen);
	free(out);
	return rc ? rc : msg_finish(EXIT_OK);
}

static int config_set(int argc, char **argv)
{
	const struct opt opts[] = {OPT_TABLE_END};
	const struct opt_cmd oc = {.name = "config set", .usage = usage, .flags = OPT_STOP_AT_OPERAND,
				   .min_operands = 2, .max_operands = -1, .operands = "KEY VALUE"};
	const char *vals[CONFIG_MAX_VALUES];
	const struct config_key *k;
	size_t n = 0;
	int rc, nops;
	char err[512];

	if ((rc = opt_parse(&oc, opts, argc, argv, NULL, &nops)) != OPT_GO)
		return rc;
	if (!(k = key_arg(argv[0])))
		return EXIT_USAGE;
	if (!k->list && nops > 2)
		return msg_usage(_("%s: expected one value, got %d"), k->name, nops - 1);
	for (int i = 1; i < nops; i++) {
		/* a list's value may carry several, comma-separated */
		char *s = argv[i], *e;
		do {
			if (k->list && (e = strchr(s, ',')))
				*e = '\0';
			else
				e = NULL;
			while (*s == ' ')
				s++;
			if (!*s && !e && !k->list)
				return msg_usage(_("%s: expected a value"), k->name);
			if (*s) {
				if (n >= CONFIG_MAX_VALUES)
					return msg_usage(_("%s: expected at most %d values"), k->name, CONFIG_MAX_VALUES);
				if (strlen(s) > CONFIG_MAX_VALUE)
					return msg_usage(_("%s: expected a value of at most %d bytes"), k->name,
							 CONFIG_MAX_VALUE);
				if (quote_has_control(s, strlen(s)))
					return msg_usage(_("%s: expected text without control characters"), k->name);
				for (size_t at = 0, sl = strlen(s); at < sl;) {
					size_t u = (unsigned char)s[at] < 0x80 ? 1 :
						   out_utf8_len((const unsigned char *)s + at, sl - at);
					if (!u)
						return msg_usage(_("%s: expected UTF-8 text, got byte 0x%02x at byte %zu"),
								 k->name, (unsigned char)s[at], at + 1);
					at += u;
				}
				if (k->check && k->check(s, err, sizeof(err))) {
					char shown[CONFIG_MAX_VALUE * 4];
					return msg_usage(_("%s: %s, got '%s'"), k->name, err,
							 msg_escape(s, shown, sizeof(shown)));
				}
				vals[n++] = s;
			}
			s = e ? e + 1 : NULL;
		} while (s);
	}
	if (!n)
		return msg_usage(_("%s: expected a value"), k->name);
	return edit(k, vals, n);
}

static int config_unset(int argc, char **argv)
{
	const struct opt opts[] = {OPT_TABLE_END};
	const struct opt_cmd oc = {.name = "config unset", .usage = usage, .min_operands = 1, .max_operands = 1,
				   .operands = "KEY"};
	const struct config_key *k;
	int rc, nops;

	if ((rc = opt_parse(&oc, opts, argc, argv, NULL, &nops)) != OPT_GO)
		return rc;
	if (!(k = key_arg(argv[0])))
		return EXIT_USAGE;
	return edit(k, NULL, 0);
}

static int config_path_cmd(int argc, char **argv)
{
	const struct opt opts[] = {OPT_TABLE_END};
	const struct opt_cmd oc = {.name = "config path", .usage = usage, .max_operands = 0};
	char path[4096];
	int rc, nops;

	if ((rc = opt_parse(&oc, opts, argc, argv, NULL, &nops)) != OPT_GO)
		return rc;
	if (config_path(path, sizeof(path)))
		return msg_fail(_("no config file: set HOME or XDG_CONFIG_HOME (or GPURENT_CONFIG)"));
	printf("%s\n", path);
	return msg_finish(EXIT_OK);
}

/* MUST stay sorted by name. */
static const struct opt_sub subs[] = {
	{"get", config_get},
	{"list", config_list},
	{"path", config_path_cmd},
	{"set", config_set},
	{"unset", config_unset},
};

int cmd_config(int argc, char **argv)
{
	const struct opt opts[] = {OPT_TABLE_END};
	const struct opt_cmd oc = {.name = "config", .usage = usage, .flags = OPT_STOP_AT_OPERAND,
				   .max_operands = -1, .subs = subs, .n_subs = ARRAY_SIZE(subs)};
	int rc, nops;

	if ((rc = opt_parse(&oc, opts, argc, argv, NULL, &nops)) != OPT_GO)
		return rc;
	return opt_run_sub(&oc, nops, argv);
}
