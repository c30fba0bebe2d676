/*
 * envcheck.c - the verdicts of `gpurent env` from a struct of facts, and
 * the two tables they use: the driver each CUDA needs and the CUDA each
 * GPU architecture needs (envcheck.h). Every threshold is in docs/env.md.
 */
#include "core/box/envcheck.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/text/csv.h"
#include "core/text/names.h"
#include "base/util.h"
#include "base/i18n.h"

#define GIB 1073741824.0

const char *env_level_name(enum env_level l)
{
	switch (l) {
	case ENV_INFO: return "info";
	case ENV_OK: return "ok";
	case ENV_WARN: return "warn";
	case ENV_FAIL: return "fail";
	}
	return "?";
}

const char *env_virt_name(int virt)
{
	switch (virt) {
	case ENV_VIRT_NONE: return "none";
	case ENV_VIRT_PASSTHROUGH: return "passthrough";
	case ENV_VIRT_VGPU: return "vGPU";
	case ENV_VIRT_HOST_VGPU: return "host vGPU";
	case ENV_VIRT_HOST_VSGA: return "host vSGA";
	default: return "unknown";
	}
}

void envcheck_facts_init(struct env_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->driver_cuda_major = f->driver_cuda_minor = -1;
	f->cpus = f->cpus_online = -1;
}

/* ---- versions ---- */

int envcheck_version_parse(const char *s, long v[3])
{
	int k = 0;

	v[0] = v[1] = v[2] = 0;
	while (k < 3 && isdigit((unsigned char)*s)) {
		char *end;
		v[k++] = strtol(s, &end, 10);
		s = end;
		if (*s != '.')
			break;
		s++;
	}
	return k;
}

int envcheck_version_cmp(const char *a, const char *b)
{
	/* Compare component by component, as many as either has. */
	while (*a || *b) {
		long x = 0, y = 0;
		char *end;
		if (isdigit((unsigned char)*a)) {
			x = strtol(a, &end, 10);
			a = end;
		} else {
			a += strlen(a);
		}
		if (isdigit((unsigned char)*b)) {
			y = strtol(b, &end, 10);
			b = end;
		} else {
			b += strlen(b);
		}
		if (x != y)
			return x < y ? -1 : 1;
		a += *a == '.';
		b += *b == '.';
		if (*a && !isdigit((unsigned char)*a))
			a += strlen(a);
		if (*b && !isdigit((unsigned char)*b))
			b += strlen(b);
	}
	return 0;
}

/* ---- tables ---- */

/* Every row says where it comes from. */
static int need_source(const struct csv *c, const struct csv_row *r, const char *fname,
		       char *err, size_t errlen)
{
	int i = csv_col(c, "source");

	if (i < 0 || !*csv_get(r, i)) {
		snprintf(err, errlen, _("%s:%zu: source: expected where the row comes from"), fname, r->line);
		return -1;
	}
	return 0;
}

static int cuda_row(const struct csv *c, const struct csv_row *r, const char *fname,
		    void *record, char *err, size_t errlen)
{
	struct env_cuda_row *row = record;
	char ver[32];
	long v[3];

	if (csv_field_str(c, r, "cuda", true, fname, ver, sizeof(ver), err, errlen) ||
	    csv_field_str(c, r, "release", true, fname, row->release, sizeof(row->release), err, errlen) ||
	    csv_field_str(c, r, "linux_driver", true, fname, row->linux_driver,
			  sizeof(row->linux_driver), err, errlen) ||
	    csv_field_str(c, r, "minor_compat_driver", false, fname, row->minor_compat,
			  sizeof(row->minor_compat), err, errlen) ||
	    need_source(c, r, fname, err, errlen))
		return -1;
	if (envcheck_version_parse(ver, v) != 3) {
		snprintf(err, errlen, _("%s:%zu: cuda: expected major.minor.update, got '%s'"),
			 fname, r->line, ver);
		return -1;
	}
	if (!isdigit((unsigned char)row->linux_driver[0]) ||
	    (row->minor_compat[0] && !isdigit((unsigned char)row->minor_compat[0]))) {
		snprintf(err, errlen, _("%s:%zu: linux_driver: expected a driver version like 550.54.15"),
			 fname, r->line);
		return -1;
	}
	row->major = (int)v[0];
	row->minor = (int)v[1];
	row->update = (int)v[2];
	return 0;
}

static int arch_row(const struct csv *c, const struct csv_row *r, const char *fname,
		    void *record, char *err, size_t errlen)
{
	struct env_arch_row *row = record;
	char cc[16];
	long v[3];

	if (csv_field_str(c, r, "compute_capability", true, fname, cc, sizeof(cc), err, errlen) ||
	    csv_field_str(c, r, "architecture", true, fname, row->arch, sizeof(row->arch), err, errlen) ||
	    csv_field_str(c, r, "examples", false, fname, row->examples, sizeof(row->examples),
			  err, errlen) ||
	    csv_field_str(c, r, "first_cuda", false, fname, row->first_cuda,
			  sizeof(row->first_cuda), err, errlen) ||
	    csv_field_str(c, r, "last_cuda", false, fname, row->last_cuda,
			  sizeof(row->last_cuda), err, errlen) ||
	    need_source(c, r, fname, err, errlen))
		return -1;
	if (envcheck_version_parse(cc, v) != 2) {
		snprintf(err, errlen, _("%s:%zu: compute_capability: expected major.minor, got '%s'"),
			 fname, r->line, cc);
		return -1;
	}
	row->cc_major = (int)v[0];
	row->cc_minor = (int)v[1];
	return 0;
}

int envcheck_tables_load(struct env_tables *t, const char *drv, size_t drvlen,
			 const char *drvname, const char *arch, size_t archlen,
			 const char *archname, char *err, size_t errlen)
{
	void *p;

	memset(t, 0, sizeof(*t));
	if (csv_load_table(drv, drvlen, drvname, sizeof(struct env_cuda_row), cuda_row, &p,
			   &t->ncuda, err, errlen))
		return -1;
	t->cuda = p;
	if (!t->ncuda) {
		snprintf(err, errlen, _("%s: no rows"), drvname);
		goto out_free_cuda;
	}
	if (csv_load_table(arch, archlen, archname, sizeof(struct env_arch_row), arch_row, &p,
			   &t->narch, err, errlen))
		goto out_free_cuda;
	t->arch = p;
	return 0;
out_free_cuda:
	free(t->cuda);
	memset(t, 0, sizeof(*t));
	return -1;
}

void envcheck_tables_free(struct env_tables *t)
{
	free(t->cuda);
	free(t->arch);
	memset(t, 0, sizeof(*t));
}

int envcheck_cuda_needs(const struct env_tables *t, const char *cuda, const char **full,
			const char **compat)
{
	long v[3];
	int k = envcheck_version_parse(cuda, v);
	const struct env_cuda_row *best = NULL, *exact = NULL, *family = NULL;

	*full = *compat = "";
	if (k == 0)
		return -1;
	for (size_t i = 0; i < t->ncuda; i++) {
		const struct env_cuda_row *r = &t->cuda[i];
		if (r->major != v[0])
			continue;
		family = r;
		if (k == 1 || r->minor != v[1])
			continue;
		if (k == 3 && r->update == v[2])
			exact = r;
		if (!best || envcheck_version_cmp(r->linux_driver, best->linux_driver) < 0)
			best = r;
	}
	if (!family || (k > 1 && !best))
		return -1;
	*compat = family->minor_compat;
	if (k > 1)
		*full = (exact ? exact : best)->linux_driver;
	return 0;
}

int envcheck_cuda_for_driver(const struct env_tables *t, const char *driver, char *out, size_t n)
{
	const struct env_cuda_row *best = NULL;

	if (n)
		out[0] = '\0';
	if (!driver || !isdigit((unsigned char)driver[0]))
		return -1;
	for (size_t i = 0; i < t->ncuda; i++) {
		const struct env_cuda_row *r = &t->cuda[i];
		if (envcheck_version_cmp(r->linux_driver, driver) > 0)
			continue;
		if (!best || r->major > best->major ||
		    (r->major == best->major && r->minor > best->minor))
			best = r;
	}
	if (!best)
		return -1;
	snprintf(out, n, "%d.%d", best->major, best->minor);
	return 0;
}

const struct env_arch_row *envcheck_arch(const struct env_tables *t, int cc_major, int cc_minor)
{
	for (size_t i = 0; i < t->narch; i++)
		if (t->arch[i].cc_major == cc_major && t->arch[i].cc_minor == cc_minor)
			return &t->arch[i];
	return NULL;
}

/* ---- GPU names ---- */

const struct gpu_spec *envcheck_find_gpu(const struct gpu_db *db, const char *nvml_name,
					 uint64_t mem_total)
{
	static const char *const prefixes[] = {"NVIDIA ", "Tesla ", "GeForce ", "GRID ", "Quadro "};
	const struct gpu_spec *g, *best = NULL;
	const char *s = nvml_name;
	char fam[64], f2[64];
	double gb = mem_total / 1e9, bestd = 1e300;
	bool again = true;

	if (!db || !nvml_name || !*nvml_name)
		return NULL;
	if ((g = gpu_db_find(db, nvml_name)))
		return g;
	while (again) {
		again = false;
		for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
			if (!strncmp(s, prefixes[i], strlen(prefixes[i]))) {
				s += strlen(prefixes[i]);
				again = true;
			}
	}
	if ((g = gpu_db_find(db, s)))
		return g;
	/* "H100 80GB HBM3", "RTX 6000 Ada Generation": the family, and the
	 * memory to choose between its sizes. NVML's total is a little above
	 * the datasheet's GB on most cards (81559 MiB for an 80 GB H100), so
	 * the nearest size wins. */
	names_family(s, fam, sizeof(fam));
	if (!fam[0])
		return NULL;
	for (size_t i = 0; i < db->n; i++) {
		double d;
		names_family(db->v[i].name, f2, sizeof(f2));
		if (strcmp(fam, f2))
			continue;
		d = gb > 0 ? fabs(db->v[i].memory_bytes / 1e9 - gb) : 0;
		if (!best || d < bestd) {
			best = &db->v[i];
			bestd = d;
		}
	}
	return best;
}

/* ---- verdicts ---- */

const char *env_code_name(enum env_code c)
{
	static const char *const names[ENV_F_COUNT] = {
		[ENV_F_NO_DRIVER] = "no_driver",
		[ENV_F_DRIVER] = "driver",
		[ENV_F_DRIVER_NO_GPU] = "driver_no_gpu",
		[ENV_F_GPU] = "gpu",
		[ENV_F_GPU_MIG] = "gpu_mig",
		[ENV_F_GPU_VGPU] = "gpu_vgpu",
		[ENV_F_GPU_SLICED] = "gpu_sliced",
		[ENV_F_GPU_WHOLE] = "gpu_whole",
		[ENV_F_GPU_UNKNOWN] = "gpu_unknown",
		[ENV_F_GPU_BUSY] = "gpu_busy",
		[ENV_F_PCIE_GEN] = "pcie_gen",
		[ENV_F_PCIE_WIDTH] = "pcie_width",
		[ENV_F_CUDA_NONE] = "cuda_none",
		[ENV_F_CUDA_SYSTEM] = "cuda_system",
		[ENV_F_CUDART_TOO_NEW] = "cudart_too_new",
		[ENV_F_NVCC_TOO_NEW] = "nvcc_too_new",
		[ENV_F_NO_PYTHON] = "no_python",
		[ENV_F_PYTHON] = "python",
		[ENV_F_FW_IMPORT_FAILED] = "fw_import_failed",
		[ENV_F_FW_CPU_ONLY] = "fw_cpu_only",
		[ENV_F_FW_CPU_ONLY_NO_GPU] = "fw_cpu_only_no_gpu",
		[ENV_F_FW_NO_DRIVER] = "fw_no_driver",
		[ENV_F_FW_DRIVER_UNKNOWN] = "fw_driver_unknown",
		[ENV_F_FW_CUDA_UNKNOWN] = "fw_cuda_unknown",
		[ENV_F_FW_DRIVER_OK] = "fw_driver_ok",
		[ENV_F_FW_DRIVER_OK_FAMILY] = "fw_driver_ok_family",
		[ENV_F_FW_MINOR_COMPAT] = "fw_minor_compat",
		[ENV_F_DRIVER_TOO_OLD] = "driver_too_old",
		[ENV_F_FW_NO_GPU] = "fw_no_gpu",
		[ENV_F_FW_SOME_GPUS] = "fw_some_gpus",
		[ENV_F_FW_PTX_ONLY] = "fw_ptx_only",
		[ENV_F_FW_NO_KERNELS] = "fw_no_kernels",
		[ENV_F_FW_ARCH_DROPPED] = "fw_arch_dropped",
		[ENV_F_FW_CUDA_BEFORE_ARCH] = "fw_cuda_before_arch",
		[ENV_F_CPU_FEW] = "cpu_few",
		[ENV_F_CPU_OK] = "cpu_ok",
		[ENV_F_RAM_LOW] = "ram_low",
		[ENV_F_RAM_OK] = "ram_ok",
		[ENV_F_SHM_MISSING] = "shm_missing",
		[ENV_F_SHM_SMALL] = "shm_small",
		[ENV_F_SHM_OK] = "shm_ok",
		[ENV_F_DIR_MISSING] = "dir_missing",
		[ENV_F_DIR_ERROR] = "dir_error",
		[ENV_F_DISK_LOW] = "disk_low",
		[ENV_F_DISK_OK] = "disk_ok",
	};

	if ((unsigned)c >= ENV_F_COUNT || !names[c])
		return "?";
	return names[c];
}

static struct env_finding *push(struct env_report *r, enum env_level lv, enum env_code code,
				const char *topic)
{
	struct env_finding *v;

	if (r->n == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 32;
		struct env_finding *nv = realloc(r->v, ncap * sizeof(*nv));
		if (!nv)
			return NULL;
		r->v = nv;
		r->cap = ncap;
	}
	v = &r->v[r->n++];
	memset(v, 0, sizeof(*v));
	v->level = lv;
	v->code = code;
	v->gpu_index = -1;
	snprintf(v->topic, sizeof(v->topic), "%s", topic);
	r->count[lv]++;
	if (lv > r->worst)
		r->worst = lv;
	return v;
}

/* Copy a string fact into a field of the finding (truncating). */
#define SET(dst, src) snprintf((dst), sizeof(dst), "%s", (src))
#define PUSH(var, lv, code, topic) \
	do { if (!((var) = push(r, (lv), (code), (topic)))) goto out_oom; } while (0)

/* What the judge works out once and passes around. */
struct judge {
	const struct env_facts *f;
	const struct env_tables *t;
	const struct gpu_db *db;
	char dmax[24];             /* newest CUDA the driver runs, "12.4"; "" unknown */
	bool datacenter;           /* every GPU is a datacenter card (forward compatibility) */
	bool driver_too_old[ENV_MAX_FW];
};

static int judge_driver(struct judge *J, struct env_report *r)
{
	const struct env_facts *f = J->f;
	struct env_finding *v;

	if (!f->nvml) {
		PUSH(v, ENV_WARN, ENV_F_NO_DRIVER, "driver");
		SET(v->text, f->nvml_error);
		return 0;
	}
	PUSH(v, ENV_OK, ENV_F_DRIVER, "driver");
	SET(v->driver, f->driver);
	SET(v->dmax, J->dmax);
	v->ngpus = f->ngpus;
	if (!f->ngpus)
		PUSH(v, ENV_WARN, ENV_F_DRIVER_NO_GPU, "driver");
	return 0;
out_oom:
	return -1;
}

/* A finding on GPU i, with the GPU and its data/gpus.csv row. */
static struct env_finding *push_gpu(struct env_report *r, enum env_level lv, enum env_code code,
				    const char *topic, const struct env_gpu *g, size_t i,
				    const struct gpu_spec *spec)
{
	struct env_finding *v = push(r, lv, code, topic);

	if (!v)
		return NULL;
	v->gpu_index = (int)i;
	v->gpu = *g;
	if (spec) {
		SET(v->spec, spec->name);
		v->nominal = spec->memory_bytes;
		v->spec_pcie_gen = spec->pcie_gen;
	}
	return v;
}

#define PUSH_GPU(var, lv, code) \
	do { if (!((var) = push_gpu(r, (lv), (code), topic, g, i, spec))) goto out_oom; } while (0)

static int judge_gpu(struct judge *J, struct env_report *r, size_t i)
{
	const struct env_gpu *g = &J->f->gpus[i];
	const struct gpu_spec *spec = envcheck_find_gpu(J->db, g->name, g->mem_total);
	struct env_finding *v;
	char topic[16];
	double used = (g->mem_total - g->mem_free) / GIB;
	double nominal = spec ? spec->memory_bytes : 0;
	bool sliced = g->mem_total && nominal > 0 && g->mem_total < ENV_SLICED_RATIO * nominal;

	snprintf(topic, sizeof(topic), "gpu%zu", i);
	PUSH_GPU(v, ENV_INFO, ENV_F_GPU);

	/* A whole card, a slice, or a share? */
	if (g->mig == 1) {
		PUSH_GPU(v, ENV_WARN, ENV_F_GPU_MIG);
		v->sliced = sliced;
	} else if (g->virt == ENV_VIRT_VGPU) {
		PUSH_GPU(v, ENV_WARN, ENV_F_GPU_VGPU);
	} else if (spec && sliced) {
		PUSH_GPU(v, ENV_WARN, ENV_F_GPU_SLICED);
		v->sliced = true;
	} else if (spec && g->mem_total) {
		PUSH_GPU(v, ENV_OK, ENV_F_GPU_WHOLE);
	} else if (!spec && g->name[0]) {
		PUSH_GPU(v, ENV_INFO, ENV_F_GPU_UNKNOWN);
	}

	/* Someone else on it? */
	if (g->mem_total && g->mem_free <= g->mem_total && used * GIB > ENV_BUSY_BYTES &&
	    used * GIB > 0.05 * g->mem_total)
		PUSH_GPU(v, ENV_WARN, ENV_F_GPU_BUSY);

	/* The link to the host. */
	if (spec && spec->pcie_gen > 0 && g->pcie_gen_max > 0 && g->pcie_gen_max < spec->pcie_gen)
		PUSH_GPU(v, ENV_WARN, ENV_F_PCIE_GEN);
	if (g->pcie_width_max > 0 && g->pcie_width_max < 16)
		PUSH_GPU(v, ENV_WARN, ENV_F_PCIE_WIDTH);
	return 0;
out_oom:
	return -1;
}

static void cuda_str(int v, char *out, size_t n)
{
	snprintf(out, n, "%d.%d", v / 1000, (v % 1000) / 10);
}

/* A system CUDA (runtime or compiler, by code) newer than the driver runs. */
static int judge_system_cuda(struct judge *J, struct env_report *r, enum env_code code,
			     const char *ver)
{
	const struct env_facts *f = J->f;
	const char *full, *compat;
	struct env_finding *v;

	if (!f->nvml || !f->driver[0] || envcheck_cuda_needs(J->t, ver, &full, &compat))
		return 0;
	if (envcheck_version_cmp(f->driver, full) >= 0)
		return 0;
	PUSH(v, ENV_WARN, code, "cuda");
	SET(v->cuda, ver);
	SET(v->need, full);
	SET(v->compat, compat);
	SET(v->driver, f->driver);
	SET(v->dmax, J->dmax);
	v->compat_covers = compat[0] && envcheck_version_cmp(f->driver, compat) >= 0;
	return 0;
out_oom:
	return -1;
}

static int judge_cuda(struct judge *J, struct env_report *r)
{
	const struct env_facts *f = J->f;
	struct env_finding *v;
	char rt[16] = "";

	if (!f->cudart_version && !f->nvcc_version[0]) {
		PUSH(v, ENV_INFO, ENV_F_CUDA_NONE, "cuda");
		return 0;
	}
	PUSH(v, ENV_INFO, ENV_F_CUDA_SYSTEM, "cuda");
	if (f->cudart_version) {
		cuda_str(f->cudart_version, rt, sizeof(rt));
		SET(v->cuda, rt);
		SET(v->lib, f->cudart_lib);
	}
	SET(v->nvcc, f->nvcc_version);
	if (f->cudart_version && judge_system_cuda(J, r, ENV_F_CUDART_TOO_NEW, rt))
		return -1;
	if (f->nvcc_version[0] && (!f->cudart_version || strcmp(rt, f->nvcc_version)) &&
	    judge_system_cuda(J, r, ENV_F_NVCC_TOO_NEW, f->nvcc_version))
		return -1;
	return 0;
out_oom:
	return -1;
}

/* Does a torch arch list ("sm_80 sm_90 compute_90") run on cc maj.min?
 * 2 native cubin, 1 PTX JIT only, 0 no. A cubin runs on the same major
 * and an equal or higher minor; "sm_90a" only on 9.0 itself; PTX on any
 * capability at least its own. */
static int arch_list_runs(const char *list, int maj, int min)
{
	int best = 0;
	const char *p = list;

	while (*p) {
		bool sm = !strncmp(p, "sm_", 3), ptx = !strncmp(p, "compute_", 8);
		const char *q = p + (sm ? 3 : ptx ? 8 : 0);
		size_t len = strcspn(p, " ,");
		if ((sm || ptx) && isdigit((unsigned char)*q)) {
			long n = strtol(q, (char **)&q, 10);
			int am = (int)(n / 10), an = (int)(n % 10);
			bool suffix = isalpha((unsigned char)*q);
			if (sm && am == maj && (suffix ? an == min : an <= min))
				best = 2;
			else if (ptx && !suffix && (am < maj || (am == maj && an <= min)) && best < 1)
				best = 1;
		}
		p += len;
		p += strspn(p, " ,");
	}
	return best;
}

/* A finding on framework w: its name, version and CUDA, the driver. */
static struct env_finding *push_fw(struct judge *J, struct env_report *r, enum env_level lv,
				   enum env_code code, const struct env_framework *w)
{
	struct env_finding *v = push(r, lv, code, w->name);

	if (!v)
		return NULL;
	SET(v->fw, w->name);
	SET(v->version, w->version);
	SET(v->cuda, w->cuda);
	SET(v->driver, J->f->driver);
	SET(v->dmax, J->dmax);
	SET(v->text, w->error);
	v->datacenter = J->datacenter;
	v->ngpus = J->f->ngpus;
	return v;
}

#define PUSH_FW(var, lv, code) \
	do { if (!((var) = push_fw(J, r, (lv), (code), w))) goto out_oom; } while (0)

/* The framework against each GPU's architecture. */
static int judge_fw_arch(struct judge *J, struct env_report *r, const struct env_framework *w)
{
	const struct env_facts *f = J->f;
	struct env_finding *v;

	for (size_t i = 0; i < f->ngpus; i++) {
		const struct env_gpu *g = &f->gpus[i];
		const struct env_arch_row *a;
		enum env_code code = ENV_F_COUNT;
		enum env_level lv = ENV_WARN;
		bool seen = false;

		if (g->cc_major < 0)
			continue;
		for (size_t k = 0; k < i; k++)
			seen |= f->gpus[k].cc_major == g->cc_major && f->gpus[k].cc_minor == g->cc_minor;
		if (seen)
			continue;
		a = envcheck_arch(J->t, g->cc_major, g->cc_minor);
		if (w->archs[0]) {
			int runs = arch_list_runs(w->archs, g->cc_major, g->cc_minor);
			if (runs == 2)
				continue;
			code = runs ? ENV_F_FW_PTX_ONLY : ENV_F_FW_NO_KERNELS;
			lv = runs ? ENV_WARN : ENV_FAIL;
		} else if (!a || !w->cuda[0]) {
			continue;
		} else {
			long c[3], fc[3];
			int k = envcheck_version_parse(w->cuda, c);
			char mm[48];

			snprintf(mm, sizeof(mm), "%ld.%ld", c[0], k > 1 ? c[1] : 0L);
			envcheck_version_parse(a->first_cuda, fc);
			if (a->last_cuda[0] && envcheck_version_cmp(mm, a->last_cuda) > 0) {
				code = ENV_F_FW_ARCH_DROPPED;
				lv = ENV_FAIL;
			} else if (a->first_cuda[0] &&
				   /* "12" (jax) is the whole family: older only if the major is */
				   ((k == 1 && c[0] < fc[0]) ||
				    (k > 1 && envcheck_version_cmp(w->cuda, a->first_cuda) < 0))) {
				code = ENV_F_FW_CUDA_BEFORE_ARCH;
			} else {
				continue;
			}
		}
		PUSH_FW(v, lv, code);
		v->gpu_index = (int)i;
		v->gpu = *g;
		SET(v->text, w->archs);
		if (a) {
			SET(v->arch, a->arch);
			SET(v->first_cuda, a->first_cuda);
			SET(v->last_cuda, a->last_cuda);
		}
	}
	return 0;
out_oom:
	return -1;
}

static bool cvd_hides_all(const struct env_facts *f)
{
	const char *s = f->cuda_visible_devices;

	return f->cvd_set && (!*s || !strcmp(s, "-1") || !strcasecmp(s, "none") ||
			      !strcasecmp(s, "void"));
}

static int judge_framework(struct judge *J, struct env_report *r, size_t idx)
{
	const struct env_facts *f = J->f;
	const struct env_framework *w = &f->fw[idx];
	const char *full, *compat;
	struct env_finding *v;

	if (!w->installed)
		return 0;
	if (w->import_failed) {
		PUSH_FW(v, ENV_WARN, ENV_F_FW_IMPORT_FAILED);
		return 0;
	}
	if (!w->cuda[0]) {
		if (f->ngpus)
			PUSH_FW(v, ENV_FAIL, ENV_F_FW_CPU_ONLY);
		else
			PUSH_FW(v, ENV_INFO, ENV_F_FW_CPU_ONLY_NO_GPU);
		return 0;
	}
	/* A CUDA build: does its CUDA run on this driver? */
	if (!f->nvml || !f->driver[0]) {
		if (f->nvml)
			PUSH_FW(v, ENV_INFO, ENV_F_FW_DRIVER_UNKNOWN);
		else
			PUSH_FW(v, ENV_WARN, ENV_F_FW_NO_DRIVER);
		return 0;
	}
	if (envcheck_cuda_needs(J->t, w->cuda, &full, &compat)) {
		PUSH_FW(v, ENV_WARN, ENV_F_FW_CUDA_UNKNOWN);
	} else if (full[0] && envcheck_version_cmp(f->driver, full) >= 0) {
		PUSH_FW(v, ENV_OK, ENV_F_FW_DRIVER_OK);
		SET(v->need, full);
		SET(v->compat, compat);
	} else if (!full[0] && compat[0] && envcheck_version_cmp(f->driver, compat) >= 0) {
		PUSH_FW(v, ENV_OK, ENV_F_FW_DRIVER_OK_FAMILY);
		SET(v->compat, compat);
		v->compat_covers = true;
	} else if (full[0] && compat[0] && envcheck_version_cmp(f->driver, compat) >= 0) {
		PUSH_FW(v, ENV_WARN, ENV_F_FW_MINOR_COMPAT);
		SET(v->need, full);
		SET(v->compat, compat);
		v->compat_covers = true;
	} else {
		J->driver_too_old[idx] = true;
		PUSH_FW(v, ENV_FAIL, ENV_F_DRIVER_TOO_OLD);
		SET(v->need, full[0] ? full : compat);
		SET(v->compat, compat);
		v->driver_too_old = true;
	}
	/* Does it see the GPUs? */
	if (f->ngpus && w->gpus == 0) {
		PUSH_FW(v, ENV_FAIL, ENV_F_FW_NO_GPU);
		v->cvd_set = f->cvd_set;
		v->cvd_hides_all = cvd_hides_all(f);
		v->driver_too_old = J->driver_too_old[idx];
		SET(v->cvd, f->cuda_visible_devices);
	} else if (f->ngpus && w->gpus > 0 && (size_t)w->gpus < f->ngpus) {
		PUSH_FW(v, ENV_INFO, ENV_F_FW_SOME_GPUS);
		v->gpus_seen = w->gpus;
		v->cvd_set = f->cvd_set;
		SET(v->cvd, f->cuda_visible_devices);
	}
	return judge_fw_arch(J, r, w);
out_oom:
	return -1;
}

static int judge_python(struct judge *J, struct env_report *r)
{
	const struct env_facts *f = J->f;
	struct env_finding *v;

	if (!f->python) {
		PUSH(v, ENV_INFO, ENV_F_NO_PYTHON, "python");
		SET(v->text, f->python_error);
		return 0;
	}
	PUSH(v, ENV_INFO, ENV_F_PYTHON, "python");
	SET(v->version, f->python_version);
	for (size_t i = 0; i < f->nfw && i < ENV_MAX_FW; i++) {
		const struct env_framework *w = &f->fw[i];
		struct env_fw_brief *b = &v->fws[v->nfws++];
		SET(b->name, w->name);
		b->installed = w->installed;
		b->import_failed = w->import_failed;
		SET(b->version, w->version);
		SET(b->cuda, w->cuda);
	}
	for (size_t i = 0; i < f->nfw; i++)
		if (judge_framework(J, r, i))
			return -1;
	return 0;
out_oom:
	return -1;
}

static int judge_host(struct judge *J, struct env_report *r)
{
	const struct env_facts *f = J->f;
	struct env_finding *v;
	double gpumem = 0;

	for (size_t i = 0; i < f->ngpus; i++)
		gpumem += (double)f->gpus[i].mem_total;
	if (f->cpus > 0) {
		if (f->ngpus && f->cpus < ENV_CPUS_PER_GPU * (long)f->ngpus)
			PUSH(v, ENV_WARN, ENV_F_CPU_FEW, "cpu");
		else
			PUSH(v, ENV_OK, ENV_F_CPU_OK, "cpu");
		v->cpus = f->cpus;
		v->cpus_online = f->cpus_online;
		v->ngpus = f->ngpus;
		v->cpus_per_gpu = ENV_CPUS_PER_GPU;
	}
	if (f->ram_total) {
		if (f->ngpus && (double)f->ram_total < gpumem)
			PUSH(v, ENV_WARN, ENV_F_RAM_LOW, "ram");
		else
			PUSH(v, ENV_OK, ENV_F_RAM_OK, "ram");
		v->ram_total = f->ram_total;
		v->ram_avail = f->ram_avail;
		v->ram_host = f->ram_host;
		v->gpu_mem = gpumem;
		v->ngpus = f->ngpus;
	}
	/* /dev/shm: PyTorch's DataLoader workers pass batches through it. */
	if (!f->shm_exists)
		PUSH(v, ENV_WARN, ENV_F_SHM_MISSING, "shm");
	else if (f->shm_free < ENV_SHM_WARN_BYTES)
		PUSH(v, f->shm_free < ENV_SHM_FAIL_BYTES ? ENV_FAIL : ENV_WARN, ENV_F_SHM_SMALL, "shm");
	else
		PUSH(v, ENV_OK, ENV_F_SHM_OK, "shm");
	SET(v->path, f->shm_path);
	v->free_bytes = f->shm_free;
	v->total_bytes = f->shm_total;
	for (size_t i = 0; i < f->ndirs; i++) {
		const struct env_dir *d = &f->dirs[i];
		if (d->error[0])
			PUSH(v, ENV_WARN, ENV_F_DIR_ERROR, "disk");
		else if (!d->exists)
			PUSH(v, ENV_WARN, ENV_F_DIR_MISSING, "disk");
		else if (d->free_bytes < ENV_DISK_WARN_BYTES)
			PUSH(v, d->free_bytes < ENV_DISK_FAIL_BYTES ? ENV_FAIL : ENV_WARN, ENV_F_DISK_LOW,
			     "disk");
		else
			PUSH(v, ENV_OK, ENV_F_DISK_OK, "disk");
		SET(v->path, d->path);
		SET(v->role, d->role);
		SET(v->text, d->error);
		v->free_bytes = d->free_bytes;
		v->total_bytes = d->total_bytes;
	}
	return 0;
out_oom:
	return -1;
}

int envcheck_judge(const struct env_facts *f, const struct env_tables *t,
		   const struct gpu_db *db, struct env_report *r, char *err, size_t errlen)
{
	struct judge J = {.f = f, .t = t, .db = db, .datacenter = f->ngpus > 0};

	memset(r, 0, sizeof(*r));
	r->worst = ENV_INFO;
	if (f->driver_cuda_major > 0)
		snprintf(J.dmax, sizeof(J.dmax), "%d.%d", f->driver_cuda_major,
			 f->driver_cuda_minor > 0 ? f->driver_cuda_minor : 0);
	else if (f->nvml && f->driver[0])
		envcheck_cuda_for_driver(t, f->driver, J.dmax, sizeof(J.dmax));
	for (size_t i = 0; i < f->ngpus; i++) {
		const struct gpu_spec *s = envcheck_find_gpu(db, f->gpus[i].name, f->gpus[i].mem_total);
		if (!s || s->cls != GPU_DATACENTER)
			J.datacenter = false;
	}
	if (judge_driver(&J, r))
		goto out_oom;
	for (size_t i = 0; i < f->ngpus && i < ENV_MAX_GPUS; i++)
		if (judge_gpu(&J, r, i))
			goto out_oom;
	if (judge_cuda(&J, r) || judge_python(&J, r) || judge_host(&J, r))
		goto out_oom;
	return 0;
out_oom:
	snprintf(err, errlen, _("out of memory"));
	envcheck_report_free(r);
	return -1;
}

void envcheck_report_free(struct env_report *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}
