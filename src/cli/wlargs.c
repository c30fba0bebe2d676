/*
 * wlargs.c - a workload from a YAML file and --FIELD flags (wlargs.h).
 */
#include "wlargs.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/names.h"
#include "common.h"

static void cmd_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cmd_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gpurent %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int wlargs_field_error(const char *cmd, const char *file, const struct workload *w, int bad,
		       const char *msg)
{
	if (bad >= 0 && w->line[bad] > 0) {
		fprintf(stderr, "%s:%zu: %s\n", file, w->line[bad], msg);
	} else if (bad >= 0 && (w->set >> bad) & 1) {
		/* the message starts with the field: show it as the flag was typed */
		size_t n = strcspn(msg, ":");
		fprintf(stderr, "gpurent %s: --", cmd);
		for (size_t i = 0; i < n; i++)
			fputc(msg[i] == '_' ? '-' : msg[i], stderr);
		fprintf(stderr, "%s\n", msg + n);
	} else if (file) {
		fprintf(stderr, "%s:1: %s\n", file, msg);
	} else {
		fprintf(stderr, "gpurent %s: %s\n", cmd, msg);
	}
	return EXIT_USAGE;
}

static void flag_to_key(const char *flag, char *key, size_t n)
{
	size_t k = 0;

	for (; *flag && *flag != '=' && k + 1 < n; flag++)
		key[k++] = *flag == '-' ? '_' : *flag;
	key[k] = '\0';
}

static int unknown_flag(const char *cmd, const char *flag, const char *key, const struct own_opt *own)
{
	struct names_suggest sg;
	int len = (int)strcspn(flag, "=");
	char best[128];

	names_suggest_init(&sg, key);
	for (size_t k = 0; k < workload_nfields; k++)
		names_suggest_add(&sg, workload_fields[k].name);
	for (const struct own_opt *o = own; o && o->name; o++) {
		char nk[64];
		flag_to_key(o->name + 2, nk, sizeof(nk));
		names_suggest_add(&sg, nk);
	}
	snprintf(best, sizeof(best), "%s", sg.best);
	for (char *p = best; *p; p++)
		if (*p == '_')
			*p = '-';
	if (best[0])
		cmd_error(cmd, "--%.*s: unknown option (did you mean '--%s'?)", len, flag, best);
	else
		cmd_error(cmd, "--%.*s: unknown option (see 'gpurent help %s')", len, flag, cmd);
	return EXIT_USAGE;
}

bool wlargs_is_own(const struct own_opt *own, const char *arg, bool *has_value)
{
	size_t n = strcspn(arg, "=");

	for (const struct own_opt *o = own; o && o->name; o++)
		if (strlen(o->name) == n && !strncmp(o->name, arg, n)) {
			*has_value = o->has_value && !arg[n];
			return true;
		}
	return false;
}

int wlargs_parse(const char *cmd, int argc, char **argv, const struct own_opt *own,
		 struct workload *w, const char **file)
{
	char *buf, err[512], key[64];
	size_t len;
	bool hv;
	int rc;

	*file = NULL;
	/* first pass: the file; unknown flags are reported before anything else */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (wlargs_is_own(own, a, &hv)) {
			i += hv;
		} else if (a[0] != '-') {
			if (*file) {
				cmd_error(cmd, "expected one workload file, got '%s' and '%s'", *file, a);
				return EXIT_USAGE;
			}
			*file = a;
		} else if (a[1] == '-') {
			int idx;
			flag_to_key(a + 2, key, sizeof(key));
			idx = workload_field_index(key);
			if (idx < 0 && !strncmp(key, "no_", 3) && (idx = workload_field_index(key + 3)) >= 0 &&
			    workload_fields[idx].type == F_BOOL)
				continue;
			if (idx < 0)
				return unknown_flag(cmd, a + 2, key, own);
			if (workload_fields[idx].type != F_BOOL && !strchr(a, '='))
				i++;
		} else {
			cmd_error(cmd, "%s: unknown option (options are --FIELD VALUE; see 'gpurent help %s')", a, cmd);
			return EXIT_USAGE;
		}
	}
	if (*file) {
		if (common_read_file(*file, &buf, &len, err, sizeof(err))) {
			common_error("%s", err);
			return EXIT_USAGE;
		}
		rc = workload_load_yaml(w, buf, len, *file, err, sizeof(err));
		free(buf);
		if (rc) {
			fprintf(stderr, "%s\n", err);
			return EXIT_USAGE;
		}
	}
	/* second pass: flags override the file */
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *val = NULL, *eq;
		char msg[384];
		int idx;

		if (wlargs_is_own(own, arg, &hv)) {
			i += hv;
			continue;
		}
		if (arg[0] != '-')
			continue;
		flag_to_key(arg + 2, key, sizeof(key));
		eq = strchr(arg, '=');
		idx = workload_field_index(key);
		if (idx < 0 && !strncmp(key, "no_", 3) && !eq &&
		    (idx = workload_field_index(key + 3)) >= 0 && workload_fields[idx].type == F_BOOL) {
			workload_set(w, key + 3, "false", 0, msg, sizeof(msg));
			continue;
		}
		if (idx >= 0 && workload_fields[idx].type == F_BOOL && !eq) {
			val = "true";
		} else if (eq) {
			val = eq + 1;
		} else if (i + 1 < argc) {
			val = argv[++i];
		} else {
			cmd_error(cmd, "--%s: expected a value", arg + 2);
			return EXIT_USAGE;
		}
		if (workload_set(w, key, val, 0, msg, sizeof(msg))) {
			cmd_error(cmd, "--%.*s: %s", (int)strcspn(arg + 2, "="), arg + 2, msg);
			return EXIT_USAGE;
		}
	}
	return 0;
}
