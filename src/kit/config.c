/*
 * config.c - the settings, where each applies, and the lookup in order
 * environment, file, built-in default (config.h).
 */
#include <locale.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kit/common.h"
#include "kit/config.h"
#include "base/i18n.h"
#include "core/text/currency.h"
#include "core/market/provider.h"
#include "core/model/framework.h"
#include "core/text/names.h"
#include "core/text/units.h"
#include "base/util.h"

static int check_currency(const char *v, char *err, size_t errlen)
{
	char code[CURRENCY_CODE_MAX + 1];

	if (currency_canonical(v, code)) {
		snprintf(err, errlen, "%s", _("expected a currency code (CNY, USD, EUR; RMB and ¥ are CNY)"));
		return -1;
	}
	return 0;
}

static int check_rate(const char *v, char *err, size_t errlen)
{
	struct currency_table t = {0};
	char e[256];
	int rc = currency_set_rate(&t, v, e, sizeof(e));

	currency_table_free(&t);
	if (rc) {
		snprintf(err, errlen, "%s", _("expected CODE=UNITS_PER_USD, e.g. CNY=7.12"));
		return -1;
	}
	return 0;
}

static int check_framework(const char *v, char *err, size_t errlen)
{
	struct names_suggest sg;

	for (size_t i = 0; fw_names[i]; i++)
		if (!strcmp(v, fw_names[i]))
			return 0;
	names_suggest_init(&sg, v);
	for (size_t i = 0; fw_names[i]; i++)
		names_suggest_add(&sg, fw_names[i]);
	if (sg.best[0])
		snprintf(err, errlen, _("expected one of the frameworks of 'gpurent help estimate' (did you mean '%s'?)"),
			 sg.best);
	else
		snprintf(err, errlen, "%s", _("expected one of the frameworks of 'gpurent help estimate'"));
	return -1;
}

static int check_preset(const char *v, char *err, size_t errlen)
{
	if (provider_preset_find(v))
		return 0;
	snprintf(err, errlen, "%s", _("expected a stop preset of 'gpurent help run'"));
	return -1;
}

static int check_price(const char *v, char *err, size_t errlen)
{
	double a;
	char code[8], e[256];

	if (units_parse_money(v, &a, code, e, sizeof(e)) || !(a >= 0)) {
		snprintf(err, errlen, "%s", _("expected a price per hour, e.g. 1.88CNY or 2.1"));
		return -1;
	}
	return 0;
}

static int check_date(const char *v, char *err, size_t errlen)
{
	if (!util_iso_date(v)) {
		snprintf(err, errlen, "%s", _("expected a date YYYY-MM-DD"));
		return -1;
	}
	return 0;
}

static int check_text(const char *v, char *err, size_t errlen)
{
	if (!*v) {
		snprintf(err, errlen, "%s", _("expected a value"));
		return -1;
	}
	return 0;
}

static int check_days(const char *v, char *err, size_t errlen)
{
	char *e;
	long d;

	errno = 0;
	d = strtol(v, &e, 10);
	if (*v < '0' || *v > '9' || *e || errno || d < 1 || d > 36500) {
		snprintf(err, errlen, "%s", _("expected a whole number of days, 1 to 36500"));
		return -1;
	}
	return 0;
}

/* MUST stay sorted by name. */
const struct config_key config_keys[] = {
	{"access", "access", NULL, NULL, true, "GPURENT_ACCESS",
	 N_("memberships you hold (campus clusters, institution pools): plan's --access"), check_text},
	{"catalog", "catalog", NULL, NULL, true, "GPURENT_CATALOG",
	 N_("price catalogs to read by default (files or folders): plan's and offers' --catalog"),
	 check_text},
	{"currency", "currency", NULL, "ledger add", false, "GPURENT_CURRENCY",
	 N_("the currency money is shown in (default USD; CNY under a zh_CN locale)"), check_currency},
	{"framework", "framework", NULL, NULL, false, "GPURENT_FRAMEWORK",
	 N_("the framework estimates assume (estimate, plan, probe: --framework)"), check_framework},
	{"ledger", "ledger", NULL, NULL, false, "GPURENT_LEDGER",
	 N_("the ledger database (default ~/.local/share/gpurent/ledger.db)"), check_text},
	{"preset", "preset", "run", NULL, false, "GPURENT_PRESET",
	 N_("this box's stop command for `gpurent run` (autodl, runpod, ...)"), check_preset},
	{"price", "price", "run|probe", NULL, false, "GPURENT_PRICE",
	 N_("this box's price per hour, for `gpurent run` and `probe` (1.88CNY)"), check_price},
	{"rate", "rate", NULL, NULL, true, "GPURENT_RATE",
	 N_("exchange rates CODE=UNITS_PER_USD (CNY=7.12), over data/currencies.csv"), check_rate},
	{"rate_date", NULL, NULL, NULL, false, "GPURENT_RATE_DATE",
	 N_("the date of those rates (YYYY-MM-DD), shown beside them"), check_date},
	{"rate_source", NULL, NULL, NULL, false, "GPURENT_RATE_SOURCE",
	 N_("where those rates come from, shown beside them"), check_text},
	{"stale_days", "stale-days", "plan", NULL, false, "GPURENT_STALE_DAYS",
	 N_("plan warns when the prices it ranks are older than this many days (default 30)"), check_days},
	{NULL, NULL, NULL, NULL, false, NULL, NULL, NULL},
};

const struct config_key *config_key_find(const char *name)
{
	for (const struct config_key *k = config_keys; k->name; k++)
		if (!strcmp(k->name, name))
			return k;
	return NULL;
}

int config_path(char *buf, size_t n)
{
	const char *env = getenv("GPURENT_CONFIG"), *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	int len;

	if (env && *env)
		len = snprintf(buf, n, "%s", env);
	else if (xdg && xdg[0] == '/')   /* the XDG spec: a relative value is ignored */
		len = snprintf(buf, n, "%s/gpurent/config.yaml", xdg);
	else if (home && *home)
		len = snprintf(buf, n, "%s/.config/gpurent/config.yaml", home);
	else
		return -1;
	return len < 0 || (size_t)len >= n ? -1 : 0;
}

static struct {
	bool loaded, failed;
	char path[4096];
	char *text;
	size_t len;
	struct config cfg;
	char err[1200];
} file;

const struct config *config_file(char *err, size_t errlen)
{
	static const char *names[ARRAY_SIZE(config_keys)];

	if (!file.loaded) {
		char e[1024];
		file.loaded = true;
		for (size_t i = 0; config_keys[i].name; i++)
			names[i] = config_keys[i].name;
		if (config_path(file.path, sizeof(file.path))) {
			file.path[0] = '\0';
		} else if (common_read_file(file.path, &file.text, &file.len, e, sizeof(e))) {
			free(file.text);
			file.text = NULL;
			file.len = 0;
			/* a missing file is an empty config; anything else is an error */
			if (access(file.path, F_OK) == 0) {
				file.failed = true;
				snprintf(file.err, sizeof(file.err), "%s", e);
			}
		} else if (config_parse(file.text, file.len, file.path, names, &file.cfg, e, sizeof(e))) {
			file.failed = true;
			snprintf(file.err, sizeof(file.err), "%s", e);
		}
	}
	if (file.failed) {
		snprintf(err, errlen, "%s", file.err);
		return NULL;
	}
	return &file.cfg;
}

const char *config_file_text(size_t *len)
{
	*len = file.len;
	return file.text;
}

static bool machine_output;

void config_machine_output(void)
{
	machine_output = true;
}

/* Is the zh_CN locale the one messages follow (and the output for people)? */
static bool locale_zh_cn(void)
{
	const char *l = setlocale(LC_MESSAGES, NULL);

	return !machine_output && l && !strncmp(l, "zh_CN", 5);
}

/* Split a GPURENT_X list value at commas into v (pointers into buf). */
static void split_env(const struct config_key *k, char *buf, struct config_value *v)
{
	if (!k->list) {
		v->vals[v->n++] = buf;
		return;
	}
	for (char *s = buf, *e; s && v->n < CONFIG_MAX_VALUES; s = e ? e + 1 : NULL) {
		if ((e = strchr(s, ',')))
			*e = '\0';
		while (*s == ' ')
			s++;
		if (*s)
			v->vals[v->n++] = s;
	}
}

int config_lookup(const struct config_key *k, struct config_value *v, char *err, size_t errlen)
{
	static char envbuf[ARRAY_SIZE(config_keys)][CONFIG_MAX_VALUE + 1];
	const char *env = k->env ? getenv(k->env) : NULL;
	char e[512];

	memset(v, 0, sizeof(*v));
	if (env && *env) {
		size_t idx = (size_t)(k - config_keys);
		if (strlen(env) > CONFIG_MAX_VALUE) {
			snprintf(err, errlen, _("%s: expected a value of at most %d bytes"), k->env, CONFIG_MAX_VALUE);
			return -1;
		}
		snprintf(envbuf[idx], sizeof(envbuf[idx]), "%s", env);
		split_env(k, envbuf[idx], v);
		v->source = CFG_ENV;
		snprintf(v->where, sizeof(v->where), "%s", k->env);
		for (size_t i = 0; i < v->n; i++)
			if (k->check && k->check(v->vals[i], e, sizeof(e))) {
				snprintf(err, errlen, _("%s: %s, got '%s'"), k->env, e, v->vals[i]);
				return -1;
			}
		return 0;
	}
	const struct config *c = config_file(err, errlen);
	if (!c)
		return -1;
	const struct config_entry *ce = config_find(c, k->name);
	if (ce) {
		if (ce->is_list && !k->list) {
			snprintf(err, errlen, _("%s:%zu: %s: expected one value, not a list"), file.path, ce->line,
				 k->name);
			return -1;
		}
		for (size_t i = 0; i < ce->nvals; i++) {
			if (k->check && k->check(ce->vals[i], e, sizeof(e))) {
				snprintf(err, errlen, _("%s:%zu: %s: %s, got '%s'"), file.path, ce->line, k->name, e,
					 ce->vals[i]);
				return -1;
			}
			v->vals[v->n++] = ce->vals[i];
		}
		v->source = CFG_FILE;
		snprintf(v->where, sizeof(v->where), "%s:%zu", file.path, ce->line);
		return 0;
	}
	if (!strcmp(k->name, "currency")) {
		if (locale_zh_cn()) {
			v->vals[v->n++] = "CNY";
			v->source = CFG_LOCALE;
			/* stays English here (JSON, the plan line); `config list` shows msg_tr() of it */
			snprintf(v->where, sizeof(v->where), "%s", N_("the zh_CN locale"));
		} else {
			v->vals[v->n++] = "USD";
			v->source = CFG_DEFAULT;
		}
	}
	return 0;
}

bool config_applies(const struct config_key *k, const char *cmd, const char *opt)
{
	if (!k->option || strcmp(k->option, opt))
		return false;
	if (k->only && !names_in_list(cmd, k->only))
		return false;
	if (k->except && names_in_list(cmd, k->except))
		return false;
	return true;
}

static char applied[ARRAY_SIZE(config_keys)][sizeof(((struct config_value *)0)->where)];

void config_mark_applied(const struct config_key *k, const char *where)
{
	size_t i = (size_t)(k - config_keys);

	snprintf(applied[i], sizeof(applied[i]), "%s", where[0] ? where : k->name);
}

const char *config_applied(const char *key)
{
	const struct config_key *k = config_key_find(key);

	return k && applied[k - config_keys][0] ? applied[k - config_keys] : NULL;
}

char *config_rate_note(char *buf, size_t n)
{
	const char *where = config_applied("rate");
	struct config_value d, s;
	char err[64];

	snprintf(buf, n, "%s", where ? where : "--rate");
	if (!config_lookup(config_key_find("rate_date"), &d, err, sizeof(err)) && d.n)
		snprintf(buf + strlen(buf), n - strlen(buf), ", %s", d.vals[0]);
	if (!config_lookup(config_key_find("rate_source"), &s, err, sizeof(err)) && s.n)
		snprintf(buf + strlen(buf), n - strlen(buf), ", %s", s.vals[0]);
	return buf;
}
