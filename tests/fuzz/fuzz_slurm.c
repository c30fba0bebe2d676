/*
 * fuzz_slurm.c - slurm_script_parse and slurm_lint (src/core/task/slurm.c) on
 * sbatch scripts, with sbatch's options from data/sbatch_options.csv.
 */
#include "core/task/slurm.h"
#include "fuzz.h"

#define FNAME "job.sh"

static bool no_dir(const char *dir, void *ctx)
{
	(void)ctx;
	FUZZ_CHECK(dir[0] != '\0');
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct slurm_optdb db;
	static int loaded;
	static struct slurm_script s;
	struct slurm_finding f[16];
	struct slurm_lint_env env = {.max_time_s = 3600, .dir_exists = no_dir};
	char err[512];
	size_t n, len;
	int rc;

	if (!loaded) {
		const char *buf = fuzz_data_file("sbatch_options.csv", &len);
		FUZZ_CHECK(slurm_optdb_load(buf, len, "sbatch_options.csv", &db, err, sizeof(err)) == 0);
		loaded = 1;
	}
	err[0] = '\0';
	rc = slurm_script_parse((const char *)data, size, FNAME, &db, &s, err, sizeof(err));
	FUZZ_CHECK(rc == 0 || rc == -1);
	if (rc) {
		/* only an empty file is no script: "job.sh:1: ..." on one line */
		FUZZ_CHECK(size == 0);
		FUZZ_CHECK(!strncmp(err, FNAME ":", strlen(FNAME) + 1));
		FUZZ_CHECK(fuzz_one_line(err));
		return 0;
	}
	FUZZ_CHECK(s.ndir <= SLURM_MAX_DIRECTIVES && s.nnear <= SLURM_MAX_NEAR);
	for (size_t i = 0; i < s.ndir; i++) {
		FUZZ_CHECK(s.dir[i].line >= 1 && s.dir[i].line <= s.lines);
		FUZZ_CHECK(memchr(s.dir[i].value, '\0', sizeof(s.dir[i].value)) != NULL);
		FUZZ_CHECK(!s.dir[i].name[0] || slurm_opt_find(&db, s.dir[i].name));
		FUZZ_CHECK(s.dir[i].after_command == (s.first_command && s.dir[i].line > s.first_command));
	}
	n = slurm_lint(&s, &db, &env, f, 16);
	for (size_t i = 0; i < n && i < 16; i++) {
		FUZZ_CHECK(f[i].line >= 1 && f[i].line <= (s.lines ? s.lines : 1));
		FUZZ_CHECK(f[i].code >= SLF_CRLF && f[i].code < SLF_COUNT);
		if (i)
			FUZZ_CHECK(f[i - 1].line <= f[i].line);
	}
	return 0;
}
