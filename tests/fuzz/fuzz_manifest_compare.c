/*
 * fuzz_manifest_compare.c - manifest_plan and manifest_compare (manifest.h)
 * on two manifests, the recorded and the walked one, split at the first NUL.
 */
#include "core/files/manifest.h"
#include "fuzz.h"

static void check_diff(const struct manifest *want, const struct manifest *have,
		       const struct mf_diff *d)
{
	size_t sum = 0;
	uint64_t want_bytes = 0;

	FUZZ_CHECK(d->expected == want->n);
	FUZZ_CHECK(d->matched <= d->expected);
	for (int k = 0; k < MF_NPROBLEMS; k++) {
		sum += d->count[k];
		FUZZ_CHECK(manifest_problem_name((enum mf_problem)k) != NULL);
	}
	FUZZ_CHECK(sum == d->n);
	FUZZ_CHECK(d->count[MF_EXTRA] <= have->n);
	FUZZ_CHECK(d->count[MF_MISSING] <= want->n);
	for (size_t i = 0; i < d->n; i++) {
		const struct mf_issue *is = &d->v[i];
		const struct mf_entry *e = is->want ? is->want : is->have;

		FUZZ_CHECK(is->what < MF_NPROBLEMS);
		FUZZ_CHECK(e != NULL);
		if (is->what == MF_EXTRA)
			FUZZ_CHECK(!is->want && is->have);
		else if (is->what == MF_MISSING)
			FUZZ_CHECK(is->want && !is->have);
		else
			FUZZ_CHECK(is->want && is->have && !strcmp(is->want->path, is->have->path));
		if (i > 0) {   /* "in path order" */
			const struct mf_issue *p = &d->v[i - 1];
			const struct mf_entry *pe = p->want ? p->want : p->have;
			FUZZ_CHECK(strcmp(pe->path, e->path) <= 0);
		}
	}
	for (size_t i = 0; i < want->n; i++)
		if (want->v[i].kind == MF_FILE && !__builtin_add_overflow(want_bytes, want->v[i].size, &want_bytes))
			continue;
		else if (want->v[i].kind == MF_FILE)
			want_bytes = UINT64_MAX;
	FUZZ_STRICT_CHECK(d->matched_bytes <= want_bytes);   /* no wrap (known bug) */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	size_t wlen = nul ? (size_t)(nul - data) : size;
	struct manifest want, have;
	struct mf_diff d;
	char err[512];
	size_t *idx, n;

	if (manifest_parse((const char *)data, wlen, "want.mf", &want, err, sizeof(err)))
		return manifest_free(&want), 0;
	if (!nul)   /* one manifest: compared with itself */
		wlen = 0;
	else
		wlen++;
	if (manifest_parse((const char *)(wlen ? data + wlen : data), wlen ? size - wlen : size,
			   "have.mf", &have, err, sizeof(err))) {
		manifest_free(&have);
		manifest_free(&want);
		return 0;
	}
	idx = malloc((have.n ? have.n : 1) * sizeof(*idx));
	FUZZ_CHECK(idx != NULL);
	n = manifest_plan(&want, &have, idx);
	FUZZ_CHECK(n <= have.n);
	for (size_t i = 0; i < n; i++) {
		FUZZ_CHECK(idx[i] < have.n);
		FUZZ_CHECK(have.v[idx[i]].kind == MF_FILE);   /* "the regular files of have" */
		FUZZ_CHECK(manifest_find(&want, have.v[idx[i]].path) >= 0);
	}
	free(idx);
	for (int quick = 0; quick <= 1; quick++) {
		memset(&d, 0, sizeof(d));
		FUZZ_CHECK(manifest_compare(&want, &have, quick, &d) == 0);
		check_diff(&want, &have, &d);
		if (!nul && !quick)   /* a manifest matches itself */
			FUZZ_CHECK(d.n == 0 || d.count[MF_UNREADABLE_FILE] == d.n);
		mf_diff_free(&d);
	}
	manifest_free(&have);
	manifest_free(&want);
	return 0;
}
