/*
 * slurmemit.c - the sbatch script written out (slurmemit.h): what
 * slurm_script_render() (src/core/task/slurm_script.c) renders, on a FILE, and
 * the log directory made where sbatch is to run.
 */
#include "cmd/slurm/slurmemit.h"
#include "base/i18n.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

int slurm_emit_write(FILE *f, const struct slurm_emit *e)
{
	struct strbuf b = STRBUF_INIT;
	int rc = 0;

	slurm_script_render(e, &b);
	if (b.oom || fwrite(b.p, 1, b.len, f) != b.len || ferror(f))
		rc = -1;
	strbuf_release(&b);
	return rc;
}

int slurm_emit_mkdirs(const struct slurm_emit *e, char *err, size_t errlen)
{
	const char *log = e->log_dir ? e->log_dir : SLURM_EMIT_LOG_DIR;
	char path[4096];
	size_t n = strlen(log);

	if (n >= sizeof(path)) {
		snprintf(err, errlen, _("%s: the path is too long"), log);
		return -1;
	}
	memcpy(path, log, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		path[i] = '\0';
		if (mkdir(path, 0777) < 0 && errno != EEXIST) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return -1;
		}
		path[i] = i < n ? '/' : '\0';
	}
	return 0;
}
