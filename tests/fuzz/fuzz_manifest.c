/*
 * fuzz_manifest.c - manifest_parse (src/core/files/manifest.h) on the input, in any
 * of its formats, under a file name that names a hash or none (picked by the
 * input's length); what parses is rendered and parsed back with that hash.
 */
#include "core/files/manifest.h"
#include "fuzz.h"

static bool renderable(const struct manifest *m, const struct mf_entry *e)
{
	return (e->kind == MF_FILE && e->has_hash) || (e->kind == MF_SYMLINK && m->format == MF_GPURENT);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct manifest m, back;
	struct mf_totals t;
	char err[512], *out = NULL;
	size_t len = 0, nrender = 0;
	uint64_t biggest = 0;
	int rc;

	static const char *const fnames[] = {"fuzz.mf", "SHA256SUMS", "fuzz.md5", "fuzz.xxh3"};
	const char *fname = fnames[size % 4];
	struct mf_parse_opts again = {.algo_set = true};

	err[0] = '\0';
	rc = manifest_parse((const char *)data, size, fname, &m, err, sizeof(err));
	FUZZ_CHECK(rc == 0 || rc == -1);
	if (rc) {
		/* "FNAME:LINE: what was expected", and m left empty */
		FUZZ_CHECK(!strncmp(err, fname, strlen(fname)) && err[strlen(fname)] == ':');
		FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL);
		FUZZ_CHECK(m.n == 0);
		manifest_free(&m);
		return 0;
	}
	FUZZ_CHECK(m.format == MF_GPURENT || m.format == MF_SHA256SUM || m.format == MF_HASHDEEP ||
		   m.format == MF_BSD);
	FUZZ_CHECK(hash_size(m.algo) > 0);
	FUZZ_CHECK(manifest_format_name(m.format) != NULL);
	for (size_t i = 0; i < m.n; i++) {
		const struct mf_entry *e = &m.v[i];
		long at;

		FUZZ_CHECK(e->path != NULL);
		FUZZ_CHECK(e->line >= 1);
		if (i > 0)   /* "On success m holds the sorted entries" */
			FUZZ_CHECK(strcmp(m.v[i - 1].path, e->path) <= 0);
		at = manifest_find(&m, e->path);
		FUZZ_CHECK(at >= 0 && (size_t)at < m.n && !strcmp(m.v[at].path, e->path));
		if (e->kind == MF_FILE && e->size > biggest)
			biggest = e->size;
		nrender += renderable(&m, e);
	}
	manifest_totals(&m, &t);
	FUZZ_CHECK(t.files + t.symlinks <= m.n);
	FUZZ_STRICT_CHECK(t.bytes >= biggest);   /* the byte total does not wrap (known bug) */

	/* what was read can be written, and reads back the same */
	err[0] = '\0';
	if (manifest_render(&m, NULL, NULL, &out, &len, err, sizeof(err)) == 0) {
		err[0] = '\0';
		again.algo = m.algo;   /* the layout may not name the hash: the file name did */
		rc = manifest_parse_opts(out, len, "render.mf", &again, &back, err, sizeof(err));
		if (rc)
			fprintf(stderr, "re-parse: %s\n", err);
		FUZZ_CHECK(rc == 0);
		/* XXH3-64 in the sha256sum layout is written as xxhsum -H3 writes it: tag lines */
		FUZZ_CHECK(back.format == (m.format == MF_SHA256SUM && m.algo == HASH_XXH3_64 ? MF_BSD
					   : m.format) && back.algo == m.algo);
		FUZZ_CHECK(back.n == nrender);
		for (size_t i = 0, j = 0; i < m.n && j < back.n; i++) {
			if (!renderable(&m, &m.v[i]))
				continue;
			FUZZ_CHECK(!strcmp(m.v[i].path, back.v[j].path));
			FUZZ_CHECK(m.v[i].kind == back.v[j].kind);
			if (m.has_sizes)
				FUZZ_CHECK(m.v[i].size == back.v[j].size);
			FUZZ_CHECK(!memcmp(m.v[i].hash, back.v[j].hash, HASH_MAX_BYTES));
			j++;
		}
		manifest_free(&back);
		free(out);
	} else {
		FUZZ_CHECK(err[0] != '\0');
	}
	manifest_free(&m);
	return 0;
}
