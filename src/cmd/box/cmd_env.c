/*
 * cmd_env.c - `gpurent env`: is this rented box what was paid for, and do
 * its versions agree? Gathers the facts (NVML, the system CUDA runtime and
 * nvcc, the python3 on PATH and its frameworks, CPUs, RAM, /dev/shm, free
 * disk) and prints the verdicts of src/core/box/envcheck.c, or --json.
 */
#define _GNU_SOURCE   /* sched_getaffinity, CPU_COUNT */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/box/envcheck.h"
#include "hw/cuda.h"
#include "hw/nvml.h"
#include "kit/cmd.h"
#include "kit/common.h"
#include "kit/opt.h"
#include "cmd/box/envwords.h"
#include "base/out.h"
#include "cmd/box/secwords.h"
#include "core/box/secscan.h"
#include "os/credscan.h"
#include "os/netscan.h"
#include "os/child.h"
#include "os/sys.h"
#include "base/util.h"

extern char **environ;

static const char usage[] = N_(
	"usage: gpurent env [--json] [--security] [--dir PATH]... [--shm-path PATH] [--python CMD]\n"
	"                   [--no-python]\n"
	"\n"
	"Check the box you rented: the NVIDIA driver and the newest CUDA it runs; each\n"
	"GPU's memory, MIG or vGPU mode, compute capability and PCIe link, and whether\n"
	"it is a whole card (against data/gpus.csv); the system CUDA runtime and nvcc;\n"
	"for the python3 on PATH, torch / tensorflow / jax (version, the CUDA they were\n"
	"built for, whether they see the GPU) and whether that CUDA runs on this driver\n"
	"(data/cuda_driver.csv, from NVIDIA's release notes) and on this GPU\n"
	"(data/cuda_arch.csv); CPU cores, RAM, /dev/shm, free disk. Each check prints\n"
	"ok, warn or fail, and what to do when it is not ok.\n"
	"\n"
	"Then what the box exposes or keeps (seed 000 §5.3): TCP ports listening on\n"
	"all interfaces and what holds them (Jupyter without a token, TensorBoard, a\n"
	"model server, sshd allowing passwords); credentials in plain text in the usual\n"
	"places (~/.aws/credentials, ~/.config/gcloud, ~/.cache/huggingface/token,\n"
	"~/.netrc, ~/.git-credentials, ~/.docker/config.json, unencrypted keys in\n"
	"~/.ssh, ./.env) and their modes; environment variables named like secrets\n"
	"(names only); your files of 1 GiB or more in /tmp and /dev/shm. No secret's\n"
	"value is ever printed or stored.\n"
	"\n"
	"  --security       only the security findings\n"
	"  --dir PATH       also check free space there (logs, checkpoints); repeatable.\n"
	"                   The working directory is always checked\n"
	"  --shm-path PATH  the shared-memory mount to check (default /dev/shm, or\n"
	"                   GPURENT_SHM_PATH)\n"
	"  --python CMD     ask this Python instead of the python3 on PATH\n"
	"  --no-python      do not run Python at all\n"
	"  --json           the facts and the verdicts as JSON (schema gpurent.env/1)\n"
	"\n"
	"Works without a GPU, a driver or Python, and says so. Exit status: 0 when no\n"
	"check fails, 1 when one does, 2 for bad usage. See docs/env.md.\n");

/* How long python3 may take to import three frameworks (TensorFlow is slow). */
#define PY_TIMEOUT_S 90
#define NVCC_TIMEOUT_S 20

/*
 * The probe the python3 on PATH runs. It prints one line per fact, fields
 * separated by tabs (docs/env.md, "The Python probe"; the fake python3 of
 * tests/cli/env.sh prints the same lines):
 *   python <TAB> 3.11.9
 *   fw <TAB> NAME <TAB> missing
 *   fw <TAB> NAME <TAB> error <TAB> MESSAGE
 *   fw <TAB> NAME <TAB> ok <TAB> VERSION <TAB> CUDA <TAB> GPUS <TAB> ARCHS <TAB> ERROR
 * CUDA is "" for a CPU-only build; GPUS -1 when unknown. The frameworks
 * are told not to grab GPU memory or log.
 */
static const char py_probe[] =
	"import os, sys, re\n"
	"os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '3')\n"
	"os.environ.setdefault('XLA_PYTHON_CLIENT_PREALLOCATE', 'false')\n"
	"def c(x):\n"
	"    return ' '.join(str(x).split())[:180]\n"
	"def out(*f):\n"
	"    print('\\t'.join(c(x) for x in f)); sys.stdout.flush()\n"
	"def why(e):\n"
	"    return type(e).__name__ + ': ' + str(e)\n"
	"out('python', sys.version.split()[0])\n"
	"import importlib.util as u\n"
	"def probe(name, fn):\n"
	"    try:\n"
	"        if u.find_spec(name) is None:\n"
	"            out('fw', name, 'missing'); return\n"
	"    except BaseException:\n"
	"        out('fw', name, 'missing'); return\n"
	"    try:\n"
	"        m = __import__(name)\n"
	"    except BaseException as e:\n"
	"        out('fw', name, 'error', why(e)); return\n"
	"    try:\n"
	"        out('fw', name, 'ok', *fn(m))\n"
	"    except BaseException as e:\n"
	"        out('fw', name, 'ok', getattr(m, '__version__', '?'), '', -1, '', why(e))\n"
	"def torch_(t):\n"
	"    cu, err = t.version.cuda or '', ''\n"
	"    try:\n"
	"        n = t.cuda.device_count() if t.cuda.is_available() else 0\n"
	"    except BaseException as e:\n"
	"        n, err = -1, why(e)\n"
	"    if cu and n == 0:\n"
	"        try:\n"
	"            t.cuda.init()\n"
	"        except BaseException as e:\n"
	"            err = why(e)\n"
	"    try:\n"
	"        a = ' '.join(t.cuda.get_arch_list()) if cu and n > 0 else ''\n"
	"    except BaseException:\n"
	"        a = ''\n"
	"    return t.__version__, cu, n, a, err\n"
	"def tf_(tf):\n"
	"    b = tf.sysconfig.get_build_info()\n"
	"    cu = b.get('cuda_version', '') if b.get('is_cuda_build') else ''\n"
	"    return tf.__version__, cu, len(tf.config.list_physical_devices('GPU')), '', ''\n"
	"def jax_(j):\n"
	"    cu, err, n = '', '', 0\n"
	"    for m in ('jax_cuda13_plugin', 'jax_cuda12_plugin', 'jax_cuda11_plugin'):\n"
	"        try:\n"
	"            if u.find_spec(m):\n"
	"                cu = m[8:10]; break\n"
	"        except BaseException:\n"
	"            pass\n"
	"    if not cu:\n"
	"        try:\n"
	"            import jaxlib\n"
	"            g = re.search(r'cuda(\\d+)', jaxlib.__version__)\n"
	"            cu = g.group(1) if g else ''\n"
	"        except BaseException:\n"
	"            pass\n"
	"    try:\n"
	"        n = len([d for d in j.devices() if d.platform in ('gpu', 'cuda')])\n"
	"    except BaseException as e:\n"
	"        err = why(e)\n"
	"    return j.__version__, cu, n, '', err\n"
	"probe('torch', torch_)\n"
	"probe('tensorflow', tf_)\n"
	"probe('jax', jax_)\n";

/* ---- running a helper program ---- */

/*
 * Run argv (looked up in PATH) with stdin and stderr on /dev/null, in a
 * process group of its own, and collect up to cap-1 bytes of its stdout
 * into buf (NUL-terminated). After timeout_s seconds the group is killed.
 * Returns the exit status (0-255, 128+signal), or -1 with a sentence in
 * err when it could not run or timed out.
 */
static int capture(char *const argv[], char *buf, size_t cap, int timeout_s, char *err,
		   size_t errlen)
{
	struct child_opts co = {0};
	struct child c;
	double t0;
	size_t len = 0;
	int status = 0, rc = -1, eno;
	bool timed_out = false;

	buf[0] = '\0';
	co.argv = (const char *const *)argv;
	co.envp = environ;
	co.in_fd = -1;          /* /dev/null */
	co.capture = true;
	co.err_null = true;
	if (child_spawn(&co, &c, &eno, err, errlen)) {
		if (eno == ENOENT)
			snprintf(err, errlen, _("%s not found on PATH"), argv[0]);
		else if (eno)
			snprintf(err, errlen, "%s %s", argv[0], strerror(eno));
		return -1;
	}
	t0 = util_now_mono();
	for (;;) {
		struct pollfd p = {.fd = c.out_fd, .events = POLLIN};
		char chunk[4096];
		long left;
		ssize_t got;

		left = timeout_s * 1000L - (long)((util_now_mono() - t0) * 1000);
		if (left <= 0) {
			timed_out = true;
			kill(-c.pid, SIGKILL);
			break;
		}
		if (poll(&p, 1, (int)left) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		got = read(c.out_fd, chunk, sizeof(chunk));
		if (got < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (got <= 0)
			break;
		if (len + 1 < cap) {
			size_t n = (size_t)got < cap - 1 - len ? (size_t)got : cap - 1 - len;
			memcpy(buf + len, chunk, n);
			len += n;
			buf[len] = '\0';
		}
	}
	child_wait(c.pid, &status, 0);
	if (timed_out) {
		snprintf(err, errlen, _("%s took longer than %d s and was stopped"), argv[0], timeout_s);
		goto out_close;
	}
	rc = child_exit_code(status);
out_close:
	close(c.out_fd);
	return rc;
}

/* ---- gathering facts ---- */

/* Copy field k (0-based) of a tab-separated line into out. */
static void tab_field(const char *line, int k, char *out, size_t n)
{
	const char *p = line;
	size_t len;

	for (int i = 0; i < k && p; i++)
		if ((p = strchr(p, '\t')))
			p++;
	if (!p) {
		if (n)
			out[0] = '\0';
		return;
	}
	len = strcspn(p, "\t\n");
	snprintf(out, n, "%.*s", (int)len, p);
}

static void gather_python(struct env_facts *f, const char *python)
{
	static const char *const names[] = {"torch", "tensorflow", "jax"};
	char *out, *line, *save = NULL, err[192];
	char *argv[] = {(char *)python, (char *)"-c", (char *)py_probe, NULL};
	size_t cap = 65536;
	int rc;

	f->nfw = ENV_MAX_FW;
	for (size_t i = 0; i < ENV_MAX_FW; i++)
		snprintf(f->fw[i].name, sizeof(f->fw[i].name), "%s", names[i]), f->fw[i].gpus = -1;
	if (!(out = malloc(cap))) {
		snprintf(f->python_error, sizeof(f->python_error), "%s", _("out of memory"));
		return;
	}
	rc = capture(argv, out, cap, PY_TIMEOUT_S, err, sizeof(err));
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char tag[16], name[16], status[16];
		tab_field(line, 0, tag, sizeof(tag));
		if (!strcmp(tag, "python")) {
			f->python = true;
			tab_field(line, 1, f->python_version, sizeof(f->python_version));
			continue;
		}
		if (strcmp(tag, "fw"))
			continue;
		tab_field(line, 1, name, sizeof(name));
		tab_field(line, 2, status, sizeof(status));
		for (size_t i = 0; i < ENV_MAX_FW; i++) {
			struct env_framework *w = &f->fw[i];
			char gpus[16];
			if (strcmp(w->name, name))
				continue;
			w->installed = strcmp(status, "missing") != 0;
			if (!strcmp(status, "error")) {
				w->import_failed = true;
				tab_field(line, 3, w->error, sizeof(w->error));
			} else if (!strcmp(status, "ok")) {
				tab_field(line, 3, w->version, sizeof(w->version));
				tab_field(line, 4, w->cuda, sizeof(w->cuda));
				tab_field(line, 5, gpus, sizeof(gpus));
				w->gpus = gpus[0] ? atoi(gpus) : -1;
				tab_field(line, 6, w->archs, sizeof(w->archs));
				tab_field(line, 7, w->error, sizeof(w->error));
			}
		}
	}
	if (!f->python) {
		if (rc < 0)
			snprintf(f->python_error, sizeof(f->python_error), "%s", err);
		else
			snprintf(f->python_error, sizeof(f->python_error),
				 _("%s ran but did not answer the probe (exit status %d)"), python, rc);
		f->nfw = 0;
	} else if (rc != 0) {
		snprintf(f->python_error, sizeof(f->python_error), "%s",
			 rc < 0 ? err : _("the probe stopped early"));
	}
	free(out);
}

static void gather_nvcc(struct env_facts *f)
{
	char out[4096], err[128], *p;
	char *argv[] = {(char *)"nvcc", (char *)"--version", NULL};
	int maj, min;

	if (capture(argv, out, sizeof(out), NVCC_TIMEOUT_S, err, sizeof(err)) != 0)
		return;
	/* "Cuda compilation tools, release 12.4, V12.4.131" */
	if ((p = strstr(out, "release ")) && sscanf(p + 8, "%d.%d", &maj, &min) == 2)
		snprintf(f->nvcc_version, sizeof(f->nvcc_version), "%d.%d", maj, min);
}

static void gather_cuda(struct env_facts *f)
{
	struct cuda *c;
	char err[192];

	if (cuda_open(&c, false, err, sizeof(err)))
		return;
	f->cudart_version = cuda_runtime_version(c);
	if (f->cudart_version < 0)
		f->cudart_version = 0;
	snprintf(f->cudart_lib, sizeof(f->cudart_lib), "%s", cuda_runtime_library(c));
	cuda_close(c);
}

static void gather_nvml(struct env_facts *f)
{
	struct nvml *n;
	unsigned count;

	if (nvml_open(&n, f->nvml_error, sizeof(f->nvml_error)))
		return;
	f->nvml = true;
	nvml_driver_version(n, f->driver, sizeof(f->driver));
	nvml_cuda_driver_version(n, &f->driver_cuda_major, &f->driver_cuda_minor);
	count = nvml_device_count(n);
	for (unsigned i = 0; i < count && f->ngpus < ENV_MAX_GPUS; i++) {
		struct nvml_device_info d;
		struct env_gpu *g = &f->gpus[f->ngpus];
		char err[160];
		if (nvml_device_info(n, i, &d, err, sizeof(err)))
			continue;
		snprintf(g->name, sizeof(g->name), "%s", d.name);
		g->mem_total = d.mem_total;
		g->mem_free = d.mem_free;
		g->mig = d.mig_current;
		g->mig_mem_total = d.mig_mem_total;
		g->virt = d.virt_mode;
		g->cc_major = d.cc_major;
		g->cc_minor = d.cc_minor;
		g->pcie_gen = d.pcie_gen;
		g->pcie_gen_max = d.pcie_gen_max;
		g->pcie_width = d.pcie_width;
		g->pcie_width_max = d.pcie_width_max;
		g->nvlink_active = d.nvlink_active;
		f->ngpus++;
	}
	nvml_close(n);
}

static void gather_host(struct env_facts *f)
{
	FILE *fp;
	char line[512];
	struct sys_memory mem;

	if ((fp = fopen("/proc/cpuinfo", "r"))) {
		long n = 0;
		while (fgets(line, sizeof(line), fp)) {
			if (!strncmp(line, "processor", 9))
				n++;
			else if (!f->cpu_model[0] && !strncmp(line, "model name", 10) && strchr(line, ':')) {
				char *p = strchr(line, ':') + 1;
				p += strspn(p, " \t");
				p[strcspn(p, "\n")] = '\0';
				snprintf(f->cpu_model, sizeof(f->cpu_model), "%s", p);
			}
		}
		fclose(fp);
		f->cpus_online = n ? n : -1;
	}
	if (f->cpus_online < 0)
		f->cpus_online = sysconf(_SC_NPROCESSORS_ONLN);
	/* affinity and cgroup quotas, the answer every command uses (src/os/sys.h) */
	f->cpus = sys_usable_cpus();
	sys_memory(&mem);
	f->ram_host = mem.host;
	f->ram_total = mem.total;
	f->ram_avail = mem.avail;
}

static void gather_space(const char *path, bool *exists, uint64_t *freeb, uint64_t *total,
			 char *err, size_t errlen)
{
	struct statvfs s;
	struct stat st;

	*exists = false;
	*freeb = *total = 0;
	if (stat(path, &st)) {
		if (errno != ENOENT)
			snprintf(err, errlen, _("cannot read it: %s"), strerror(errno));
		return;
	}
	*exists = true;
	if (statvfs(path, &s)) {
		snprintf(err, errlen, _("cannot read its free space: %s"), strerror(errno));
		return;
	}
	*freeb = (uint64_t)s.f_bavail * s.f_frsize;
	*total = (uint64_t)s.f_blocks * s.f_frsize;
}

static void add_dir(struct env_facts *f, const char *role, const char *path)
{
	struct env_dir *d;

	if (f->ndirs >= ENV_MAX_DIRS)
		return;
	d = &f->dirs[f->ndirs++];
	snprintf(d->role, sizeof(d->role), "%s", role);
	snprintf(d->path, sizeof(d->path), "%s", path);
	gather_space(path, &d->exists, &d->free_bytes, &d->total_bytes, d->error, sizeof(d->error));
}

/* ---- tables ---- */

static int load_tables(struct env_tables *t, struct gpu_db *gdb)
{
	const char *drv, *arch, *path;
	char *own_drv = NULL, *own_arch = NULL, err[512], drvname[4096];
	size_t dl, al;
	int rc;

	if ((rc = common_data_file("cuda_driver.csv", &drv, &dl, &own_drv, &path)))
		return rc;
	snprintf(drvname, sizeof(drvname), "%s", path);
	if ((rc = common_data_file("cuda_arch.csv", &arch, &al, &own_arch, &path)))
		goto out_free;
	if (envcheck_tables_load(t, drv, dl, drvname, arch, al, path, err, sizeof(err))) {
		msg_error("%s", err);
		rc = common_data_dir ? EXIT_USAGE : EXIT_RUNTIME;
		goto out_free;
	}
	if ((rc = common_load_data(gdb, NULL)))
		envcheck_tables_free(t);
out_free:
	free(own_drv);
	free(own_arch);
	return rc;
}

/* ---- output ---- */

/* The security findings' lines, as the others'. */
static void print_sec_lines(const struct sec_report *sr)
{
	for (size_t i = 0; i < sr->n; i++) {
		char what[ENV_WHAT_MAX + 256], fix[ENV_FIX_MAX];

		sec_word(&sr->v[i], what, sizeof(what), fix, sizeof(fix));
		printf("%-5s %-10s ", env_level_name(sr->v[i].level), sr->v[i].topic);
		out_puts_safe(stdout, what);   /* paths and names come from the box */
		putchar('\n');
		if (fix[0]) {
			printf("%-16s %s", "", _("fix: "));
			out_puts_safe(stdout, fix);
			putchar('\n');
		}
	}
}

static enum env_level worst_of(const struct env_report *r, const struct sec_report *sr)
{
	enum env_level w = r ? r->worst : ENV_INFO;

	return sr && sr->worst > w ? sr->worst : w;
}

static size_t count_of(const struct env_report *r, const struct sec_report *sr, int l)
{
	return (r ? r->count[l] : 0) + (sr ? sr->count[l] : 0);
}

/* r NULL: --security, the security findings alone. */
static void print_text(const struct env_facts *f, const struct env_report *r,
		       const struct sec_report *sr, const char *host)
{
	printf(_("gpurent env on %s\n"), host);
	for (size_t i = 0; r && i < r->n; i++) {
		const struct env_finding *v = &r->v[i];
		char what[ENV_WHAT_MAX], fix[ENV_FIX_MAX];

		env_word(v, what, sizeof(what), fix, sizeof(fix));
		printf("%-5s %-10s %s\n", env_level_name(v->level), v->topic, what);
		if (fix[0])
			printf("%-16s %s%s\n", "", _("fix: "), fix);
	}
	if (sr)
		print_sec_lines(sr);
	printf(!r || f->ngpus ? _("verdict: %s (%zu fail, %zu warn, %zu ok)\n")
			      : _("verdict: %s (%zu fail, %zu warn, %zu ok); no GPU on this machine\n"),
	       env_level_name(worst_of(r, sr)), count_of(r, sr, ENV_FAIL), count_of(r, sr, ENV_WARN),
	       count_of(r, sr, ENV_OK));
}

static void json_sec_checks(struct json *j, const struct sec_report *sr)
{
	for (size_t i = 0; sr && i < sr->n; i++) {
		const struct sec_finding *v = &sr->v[i];
		char what[ENV_WHAT_MAX + 256], fix[ENV_FIX_MAX];

		sec_word(v, what, sizeof(what), fix, sizeof(fix));
		json_obj_begin(j, NULL);
		json_str(j, "level", env_level_name(v->level));
		json_str(j, "topic", v->topic);
		json_str(j, "code", secscan_code_name(v->code));
		json_str(j, "message", what);
		if (fix[0])
			json_str(j, "fix", fix);
		else
			json_null(j, "fix");
		if (v->cred)
			json_str(j, "path", v->cred->path);
		else if (v->leftover)
			json_str(j, "path", v->leftover->path);
		if (v->listener) {
			json_str(j, "address", v->listener->sock.addr);
			json_int(j, "port", v->listener->sock.port);
			json_int(j, "pid", v->listener->pid);
			json_str(j, "process", secscan_proc_name(v->listener->kind));
		}
		json_obj_end(j);
	}
}

/* --security --json: the security findings alone. */
static void print_json_sec(const struct sec_report *sr, const char *host)
{
	struct json j;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", "gpurent.env/1");
	json_str(&j, "host", host);
	json_str(&j, "verdict", env_level_name(sr->worst));
	json_obj_begin(&j, "counts");
	for (int l = ENV_INFO; l <= ENV_FAIL; l++)
		json_int(&j, env_level_name((enum env_level)l), (long)sr->count[l]);
	json_obj_end(&j);
	json_arr_begin(&j, "checks");
	json_sec_checks(&j, sr);
	json_arr_end(&j);
	json_obj_end(&j);
	fputc('\n', stdout);
}

/* key: v, or null when v is negative (unknown) */
static void json_int_or_null(struct json *j, const char *key, long v)
{
	if (v >= 0)
		json_int(j, key, v);
	else
		json_null(j, key);
}

/* "driver": NVML, the driver's version and the CUDA it supports. */
static void json_driver(struct json *j, const struct env_facts *f)
{
	char buf[32];

	json_obj_begin(j, "driver");
	json_bool(j, "nvml", f->nvml);
	if (f->nvml) {
		json_str(j, "version", f->driver);
		if (f->driver_cuda_major > 0) {
			snprintf(buf, sizeof(buf), "%d.%d", f->driver_cuda_major, f->driver_cuda_minor);
			json_str(j, "cuda", buf);
		} else {
			json_null(j, "cuda");
		}
	} else {
		json_str(j, "error", f->nvml_error);
	}
	json_obj_end(j);
}

/* "gpus": each GPU as NVML sees it, and its data/gpus.csv row (gdb). */
static void json_gpus(struct json *j, const struct env_facts *f, const struct gpu_db *gdb)
{
	char buf[32];

	json_arr_begin(j, "gpus");
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct env_gpu *g = &f->gpus[i];
		const struct gpu_spec *s = envcheck_find_gpu(gdb, g->name, g->mem_total);
		json_obj_begin(j, NULL);
		json_int(j, "index", (long)i);
		json_str(j, "name", g->name);
		json_num(j, "memory_total_bytes", (double)g->mem_total);
		json_num(j, "memory_free_bytes", (double)g->mem_free);
		if (g->mig >= 0)
			json_bool(j, "mig", g->mig == 1);
		else
			json_null(j, "mig");
		json_str(j, "virtualization", env_virt_name(g->virt));
		if (g->cc_major >= 0) {
			snprintf(buf, sizeof(buf), "%d.%d", g->cc_major, g->cc_minor);
			json_str(j, "compute_capability", buf);
		} else {
			json_null(j, "compute_capability");
		}
		json_int_or_null(j, "pcie_gen", g->pcie_gen);
		json_int_or_null(j, "pcie_gen_max", g->pcie_gen_max);
		json_int_or_null(j, "pcie_width", g->pcie_width);
		json_int_or_null(j, "pcie_width_max", g->pcie_width_max);
		json_int_or_null(j, "nvlink_active", g->nvlink_active);
		if (s) {
			json_str(j, "spec", s->name);
			json_num(j, "nominal_memory_bytes", s->memory_bytes);
		} else {
			json_null(j, "spec");
		}
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* "cuda": the runtime, nvcc and CUDA_VISIBLE_DEVICES. */
static void json_cuda(struct json *j, const struct env_facts *f)
{
	char buf[32];

	json_obj_begin(j, "cuda");
	if (f->cudart_version) {
		snprintf(buf, sizeof(buf), "%d.%d", f->cudart_version / 1000,
			 (f->cudart_version % 1000) / 10);
		json_str(j, "runtime", buf);
		json_str(j, "runtime_library", f->cudart_lib);
	} else {
		json_null(j, "runtime");
	}
	if (f->nvcc_version[0])
		json_str(j, "nvcc", f->nvcc_version);
	else
		json_null(j, "nvcc");
	if (f->cvd_set)
		json_str(j, "cuda_visible_devices", f->cuda_visible_devices);
	json_obj_end(j);
}

/* "python": the interpreter and each framework it imports. */
static void json_python(struct json *j, const struct env_facts *f)
{
	json_obj_begin(j, "python");
	json_bool(j, "found", f->python);
	if (f->python)
		json_str(j, "version", f->python_version);
	if (f->python_error[0])
		json_str(j, "error", f->python_error);
	json_arr_begin(j, "frameworks");
	for (size_t i = 0; i < f->nfw; i++) {
		const struct env_framework *w = &f->fw[i];
		json_obj_begin(j, NULL);
		json_str(j, "name", w->name);
		json_bool(j, "installed", w->installed);
		if (w->installed && !w->import_failed) {
			json_str(j, "version", w->version);
			if (w->cuda[0])
				json_str(j, "cuda", w->cuda);
			else
				json_null(j, "cuda");
			json_int_or_null(j, "gpus", w->gpus);
			if (w->archs[0])
				json_str(j, "archs", w->archs);
		}
		if (w->error[0])
			json_str(j, "error", w->error);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

/* "host_resources" (CPUs, memory, /dev/shm) and "dirs" (the disks that matter). */
static void json_host(struct json *j, const struct env_facts *f)
{
	json_obj_begin(j, "host_resources");
	json_int_or_null(j, "cpus", f->cpus);
	json_int_or_null(j, "cpus_online", f->cpus_online);
	json_str(j, "cpu_model", f->cpu_model);
	json_num(j, "ram_bytes", (double)f->ram_total);
	json_num(j, "ram_available_bytes", (double)f->ram_avail);
	json_num(j, "ram_host_bytes", (double)f->ram_host);
	json_obj_begin(j, "shm");
	json_str(j, "path", f->shm_path);
	json_bool(j, "exists", f->shm_exists);
	json_num(j, "total_bytes", (double)f->shm_total);
	json_num(j, "free_bytes", (double)f->shm_free);
	json_obj_end(j);
	json_obj_end(j);

	json_arr_begin(j, "dirs");
	for (size_t i = 0; i < f->ndirs; i++) {
		const struct env_dir *d = &f->dirs[i];
		json_obj_begin(j, NULL);
		json_str(j, "role", d->role);
		json_str(j, "path", d->path);
		json_bool(j, "exists", d->exists);
		json_num(j, "free_bytes", (double)d->free_bytes);
		json_num(j, "total_bytes", (double)d->total_bytes);
		if (d->error[0])
			json_str(j, "error", d->error);
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* The environment's findings, each an element of "checks". */
static void json_env_checks(struct json *j, const struct env_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct env_finding *v = &r->v[i];
		char what[ENV_WHAT_MAX], fix[ENV_FIX_MAX];

		env_word(v, what, sizeof(what), fix, sizeof(fix));
		json_obj_begin(j, NULL);
		json_str(j, "level", env_level_name(v->level));
		json_str(j, "topic", v->topic);
		json_str(j, "code", env_code_name(v->code));
		json_str(j, "message", what);
		if (fix[0])
			json_str(j, "fix", fix);
		else
			json_null(j, "fix");
		json_obj_end(j);
	}
}

/* --json: every fact, then the checks, the security's among them. */
static void print_json(const struct env_facts *f, const struct env_report *r,
		       const struct sec_report *sr, const struct gpu_db *gdb, const char *host)
{
	struct json j;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", "gpurent.env/1");
	json_str(&j, "host", host);
	json_str(&j, "verdict", env_level_name(worst_of(r, sr)));
	json_obj_begin(&j, "counts");
	for (int l = ENV_INFO; l <= ENV_FAIL; l++)
		json_int(&j, env_level_name((enum env_level)l), (long)count_of(r, sr, l));
	json_obj_end(&j);
	json_driver(&j, f);
	json_gpus(&j, f, gdb);
	json_cuda(&j, f);
	json_python(&j, f);
	json_host(&j, f);
	json_arr_begin(&j, "checks");
	json_env_checks(&j, r);
	json_sec_checks(&j, sr);
	json_arr_end(&j);
	json_obj_end(&j);
	fputc('\n', stdout);
}

/* The security facts: listeners, credentials, secret-named variables,
 * leftovers in $GPURENT_TMP_ROOT (/tmp) and the shared-memory mount. */
static void gather_security(struct sec_facts *s, const char *shm, const char *cwd)
{
	const char *roots[2] = {credscan_tmp_root(), shm};
	char err[512];

	memset(s, 0, sizeof(*s));
	if (netscan_listeners(s, err, sizeof(err)))
		msg_warn(_("listening ports not checked: %s"), err);
	credscan_files(s, getenv("HOME"), cwd);
	credscan_env(s, environ);
	credscan_leftovers(s, roots, strcmp(roots[0], roots[1]) ? 2 : 1, SEC_LARGE_FILE_BYTES);
}

/* ---- the command ---- */

/* --shm-path, --python: not empty. */
static int nonempty_path(const struct opt *o, const char *v, void *ctx, char *err, size_t n)
{
	(void)ctx;
	if (!*v) {
		snprintf(err, n, "%s", _("expected a path, got ''"));
		return -1;
	}
	*(const char **)o->dest = v;
	return 0;
}

int cmd_env(int argc, char **argv)
{
	const char *dirs[ENV_MAX_DIRS], *shm = getenv("GPURENT_SHM_PATH"), *python = "python3";
	const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
	size_t ndirs = 0;
	bool json = false, no_python = false, security = false;
	struct env_facts *f;
	struct sec_facts *sf = NULL;
	struct sec_report sr = {0};
	struct env_tables t;
	struct env_report r;
	struct gpu_db gdb;
	char host[256], cwd[4096], err[256];
	int rc;
	struct opt_list dir_list = {0};
	const struct opt opts[] = {
		OPT_BOOL("json", &json, N_("the facts and the verdicts as JSON")),
		OPT_BOOL("security", &security, N_("only the security findings (ports, credentials, leftovers)")),
		{.name = "dir", .type = OPT_LIST, .dest = &dir_list, .arg = "PATH", .example = ".",
		 .help = N_("also check free space there (repeatable)")},
		{.name = "shm-path", .type = OPT_FILE, .cb = nonempty_path, .dest = &shm, .arg = "PATH",
		 .help = N_("the shared-memory mount to check"), .example = "/dev/shm"},
		{.name = "python", .type = OPT_STRING, .cb = nonempty_path, .dest = &python, .arg = "CMD",
		 .help = N_("ask this Python instead of the python3 on PATH"), .example = "python3"},
		OPT_BOOL("no-python", &no_python, N_("do not run Python at all")),
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = "env", .usage = usage, .flags = 0, .min_operands = 0,
				   .max_operands = 0, .operands = NULL};

	rc = opt_parse(&oc, opts, argc, argv, NULL, NULL);
	for (size_t i = 0; rc == OPT_GO && i < dir_list.n; i++) {
		if (!*dir_list.v[i])
			rc = msg_usage(_("--dir: expected a path, got ''"));
		else if (ndirs + 1 >= ENV_MAX_DIRS)
			rc = msg_usage(_("--dir: at most %d directories"), ENV_MAX_DIRS - 1);
		else
			dirs[ndirs++] = dir_list.v[i];
	}
	opt_list_free(&dir_list);
	if (rc != OPT_GO)
		return rc;
	/* The facts' words (a probe's error, the host) go into JSON too: English
	 * from here on under --json, as json_init() does, in every locale. */
	if (json)
		msg_untranslated();
	else
		hw_tr = msg_tr;   /* the loaders' words are shown, not stored */
	if (!(sf = malloc(sizeof(*sf)))) {
		msg_error(_("out of memory"));
		return EXIT_RUNTIME;
	}
	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "%s", _("(unknown host)"));
	host[sizeof(host) - 1] = '\0';
	gather_security(sf, shm && *shm ? shm : "/dev/shm", getcwd(cwd, sizeof(cwd)) ? cwd : ".");
	if (secscan_judge(sf, &sr)) {
		msg_error(_("out of memory"));
		free(sf);
		return EXIT_RUNTIME;
	}
	if (security) {
		if (json)
			print_json_sec(&sr, host);
		else
			print_text(NULL, NULL, &sr, host);
		rc = msg_finish(sr.worst == ENV_FAIL ? EXIT_RUNTIME : EXIT_OK);
		goto out_sec;
	}
	if ((rc = load_tables(&t, &gdb)))
		goto out_sec;
	if (!(f = malloc(sizeof(*f)))) {
		msg_error(_("out of memory"));
		rc = EXIT_RUNTIME;
		goto out_tables;
	}
	envcheck_facts_init(f);
	gather_nvml(f);
	gather_cuda(f);
	gather_nvcc(f);
	if (no_python)
		snprintf(f->python_error, sizeof(f->python_error), "--no-python");
	else
		gather_python(f, python);
	if (cvd) {
		f->cvd_set = true;
		snprintf(f->cuda_visible_devices, sizeof(f->cuda_visible_devices), "%s", cvd);
	}
	gather_host(f);
	snprintf(f->shm_path, sizeof(f->shm_path), "%s", shm && *shm ? shm : "/dev/shm");
	{
		char shm_err[128] = "";
		gather_space(f->shm_path, &f->shm_exists, &f->shm_free, &f->shm_total, shm_err,
			     sizeof(shm_err));
	}
	add_dir(f, "working", getcwd(cwd, sizeof(cwd)) ? cwd : ".");
	for (size_t i = 0; i < ndirs; i++)
		add_dir(f, "dir", dirs[i]);

	if (envcheck_judge(f, &t, &gdb, &r, err, sizeof(err))) {
		msg_error("%s", err);
		rc = EXIT_RUNTIME;
		goto out_facts;
	}
	if (json)
		print_json(f, &r, &sr, &gdb, host);
	else
		print_text(f, &r, &sr, host);
	rc = msg_finish(worst_of(&r, &sr) == ENV_FAIL ? EXIT_RUNTIME : EXIT_OK);
	envcheck_report_free(&r);
out_facts:
	free(f);
	gpu_db_free(&gdb);
out_tables:
	envcheck_tables_free(&t);
out_sec:
	secscan_report_free(&sr);
	free(sf);
	return rc;
}
