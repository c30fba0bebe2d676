/*
 * fuzz_config_edit.c - `config set` / `config unset` on any file: the
 * first byte picks the key and the operation, the bytes up to the first
 * NUL the value, the rest the file. An edit the core accepts must read
 * back with the key holding the value (or gone) and every other setting
 * as it was; an edit it refuses leaves nothing. A file that does not parse
 * may only lose the key's own lines (config unset's repair).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/text/config.h"
#include "fuzz.h"

static const char *const keys[] = {"access", "catalog", "currency", "rate", "rate_source", NULL};

/* Does every setting of a other than key stand in b with the same values? */
static bool same_but(const struct config *a, const struct config *b, const char *key)
{
	size_t na = 0, nb = 0;

	for (size_t i = 0; i < a->n; i++) {
		const struct config_entry *e = &a->v[i], *f;
		if (!strcmp(e->key, key))
			continue;
		na++;
		if (!(f = config_find(b, e->key)) || f->nvals != e->nvals)
			return false;
		for (size_t k = 0; k < e->nvals; k++)
			if (strcmp(e->vals[k], f->vals[k]))
				return false;
	}
	for (size_t i = 0; i < b->n; i++)
		nb += strcmp(b->v[i].key, key) != 0;
	return na == nb;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config c, back;
	char err[512], line[CONFIG_MAX_VALUES * (CONFIG_MAX_VALUE + 4) + 64], value[CONFIG_MAX_VALUE + 1];
	const char *key, *file, *nul;
	const char *vals[1];
	bool unset;
	size_t vlen, flen;
	char *out = NULL;
	size_t n = 0;
	int rc;

	if (size < 2)
		return 0;
	key = keys[data[0] % 5];
	unset = data[0] & 0x80;
	nul = memchr(data + 1, 0, size - 1);
	if (!nul)
		return 0;
	vlen = (size_t)(nul - (const char *)data - 1);
	if (vlen == 0 || vlen > CONFIG_MAX_VALUE)
		return 0;
	memcpy(value, data + 1, vlen);
	value[vlen] = 0;
	file = nul + 1;
	flen = size - (size_t)(file - (const char *)data);

	if (config_parse(file, flen, "f.yaml", keys, &c, err, sizeof(err))) {
		/* the repair: only the key's lines go, nothing is added */
		if (config_remove_text(file, flen, key, &out, &n) == 0) {
			FUZZ_CHECK(out && n < flen);
			free(out);
		}
		return 0;
	}
	vals[0] = value;
	if (!unset && config_render(key, vals, 1, false, line, sizeof(line))) {
		config_free(&c);
		return 0;
	}
	rc = config_edit_checked(file, flen, "f.yaml", keys, &c, key, unset ? NULL : line, &out, &n);
	if (rc == 0) {
		FUZZ_CHECK(out != NULL);
		FUZZ_CHECK(config_parse(out, n, "e.yaml", keys, &back, err, sizeof(err)) == 0);
		const struct config_entry *e = config_find(&back, key);
		if (unset) {
			FUZZ_CHECK(e == NULL);
		} else if (strspn(value, " \t") != vlen) {
			/* a value the render accepted reads back as itself */
			struct config one;
			FUZZ_CHECK(config_parse(line, strlen(line), "r.yaml", keys, &one, err, sizeof(err)) == 0);
			const struct config_entry *o = config_find(&one, key);
			FUZZ_CHECK(e && o && e->nvals == o->nvals && !strcmp(e->vals[0], o->vals[0]));
			config_free(&one);
		}
		FUZZ_CHECK(same_but(&c, &back, key));
		config_free(&back);
		free(out);
	} else {
		FUZZ_CHECK(rc != -3 || out == NULL);
		if (rc != -3)
			free(out);
	}
	config_free(&c);
	return 0;
}
