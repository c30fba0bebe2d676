/*
 * fuzz_envcheck.c - envcheck_tables_load (src/core/box/envcheck.h): the input as
 * data/cuda_driver.csv, then as data/cuda_arch.csv, each with the other real.
 */
#include "core/box/envcheck.h"
#include "fuzz.h"
#include "base/util.h"

static void lookups(const struct env_tables *t)
{
	static const char *const cudas[] = {"12.4", "12.4.1", "12", "11.8", "99.9", "x", ""};
	char out[32];

	for (size_t i = 0; i < ARRAY_SIZE(cudas); i++) {
		const char *full = NULL, *compat = NULL;
		if (envcheck_cuda_needs(t, cudas[i], &full, &compat) == 0)
			FUZZ_CHECK(full != NULL && compat != NULL);   /* "" when none */
	}
	if (envcheck_cuda_for_driver(t, "550.54.15", out, sizeof(out)) == 0)
		FUZZ_CHECK(out[0] != '\0');
	else
		FUZZ_CHECK(out[0] == '\0');
	envcheck_cuda_for_driver(t, "1", out, sizeof(out));
	for (int major = 0; major <= 12; major++)
		envcheck_arch(t, major, 0);
}

static void one(const char *drv, size_t drvlen, const char *arch, size_t archlen, const char *bad)
{
	struct env_tables t;
	char err[512];

	err[0] = '\0';
	if (envcheck_tables_load(&t, drv, drvlen, "cuda_driver.csv", arch, archlen, "cuda_arch.csv",
				 err, sizeof(err))) {
		FUZZ_CHECK_LOAD_ERR(err, bad);
		return;
	}
	for (size_t i = 0; i < t.ncuda; i++) {
		FUZZ_CHECK(memchr(t.cuda[i].release, '\0', sizeof(t.cuda[i].release)) != NULL);
		FUZZ_CHECK(memchr(t.cuda[i].linux_driver, '\0', sizeof(t.cuda[i].linux_driver)) != NULL);
		FUZZ_CHECK(memchr(t.cuda[i].minor_compat, '\0', sizeof(t.cuda[i].minor_compat)) != NULL);
	}
	for (size_t i = 0; i < t.narch; i++) {
		FUZZ_CHECK(memchr(t.arch[i].arch, '\0', sizeof(t.arch[i].arch)) != NULL);
		FUZZ_CHECK(memchr(t.arch[i].first_cuda, '\0', sizeof(t.arch[i].first_cuda)) != NULL);
		FUZZ_CHECK(memchr(t.arch[i].last_cuda, '\0', sizeof(t.arch[i].last_cuda)) != NULL);
	}
	lookups(&t);
	envcheck_tables_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t dlen, alen;
	const char *drv = fuzz_data_file("cuda_driver.csv", &dlen);
	const char *arch = fuzz_data_file("cuda_arch.csv", &alen);

	one((const char *)data, size, arch, alen, "cuda_driver.csv");
	one(drv, dlen, (const char *)data, size, "cuda_arch.csv");
	return 0;
}
