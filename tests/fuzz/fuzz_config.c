/*
 * fuzz_config.c - the defaults file parser (src/core/text/config.h) on any
 * bytes, then a render and an edit of every entry it accepted.
 */
#include <stdlib.h>
#include <string.h>

#include "core/text/config.h"
#include "fuzz.h"

static const char *const keys[] = {"access", "catalog", "currency", "rate", "rate_source", NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config c;
	char err[512], line[CONFIG_MAX_VALUES * (CONFIG_MAX_VALUE + 4) + 64];

	if (config_parse((const char *)data, size, "f.yaml", keys, &c, err, sizeof(err))) {
		/* "-1 with fname:line: ... in err and *c empty" */
		FUZZ_CHECK(!strncmp(err, "f.yaml", 6));
		FUZZ_CHECK(c.n == 0 && c.v == NULL);
		return 0;
	}
	for (size_t i = 0; i < c.n; i++) {
		const struct config_entry *e = &c.v[i];
		char *out;
		size_t n;
		FUZZ_CHECK(e->nvals >= 1 && e->line >= 1 && e->end_line >= e->line);
		for (size_t k = 0; k < e->nvals; k++)
			for (const char *p = e->vals[k]; *p; p++)
				FUZZ_CHECK((unsigned char)*p >= 0x20 && *p != 0x7f);
		if (config_render(e->key, (const char *const *)e->vals, e->nvals, e->is_list, line, sizeof(line)))
			continue;
		/* what render writes, the parser reads back as the same values */
		struct config back;
		FUZZ_CHECK(config_parse(line, strlen(line), "r.yaml", keys, &back, err, sizeof(err)) == 0);
		FUZZ_CHECK(back.n == 1 && back.v[0].nvals == e->nvals);
		for (size_t k = 0; k < e->nvals; k++)
			FUZZ_CHECK(!strcmp(back.v[0].vals[k], e->vals[k]));
		config_free(&back);
		if (!config_edit((const char *)data, size, &c, e->key, NULL, &out, &n)) {
			FUZZ_CHECK(n <= size);
			free(out);
		}
	}
	config_free(&c);
	return 0;
}
