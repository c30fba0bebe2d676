/*
 * envcheck.c - the verdicts of `gpurent env` from a struct of facts, and
 * the two tables they use: the driver each CUDA needs and the CUDA each
 * GPU architecture needs (envcheck.h). Every threshold is in docs/env.md.
 */
#include "envcheck.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "csv.h"
#include "names.h"

#define GIB 1073741824.0
#define MIB 1048576.0

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

/* Parse up to three dotted numbers; returns how many were read. */
static int parse_version(const char *s, long v[3])
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
		snprintf(err, errlen, "%s:%zu: source: expected where the row comes from", fname, r->line);
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
	if (parse_version(ver, v) != 3) {
		snprintf(err, errlen, "%s:%zu: cuda: expected major.minor.update, got '%s'",
			 fname, r->line, ver);
		return -1;
	}
	if (!isdigit((unsigned char)row->linux_driver[0]) ||
	    (row->minor_compat[0] && !isdigit((unsigned char)row->minor_compat[0]))) {
		snprintf(err, errlen, "%s:%zu: linux_driver: expected a driver version like 550.54.15",
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
	if (parse_version(cc, v) != 2) {
		snprintf(err, errlen, "%s:%zu: compute_capability: expected major.minor, got '%s'",
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
		snprintf(err, errlen, "%s: no rows", drvname);
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
	int k = parse_version(cuda, v);
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
		for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
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

static struct env_verdict *push(struct env_report *r, enum env_level lv, const char *topic)
{
	struct env_verdict *v;

	if (r->n == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 32;
		struct env_verdict *nv = realloc(r->v, ncap * sizeof(*nv));
		if (!nv)
			return NULL;
		r->v = nv;
		r->cap = ncap;
	}
	v = &r->v[r->n++];
	memset(v, 0, sizeof(*v));
	v->level = lv;
	snprintf(v->topic, sizeof(v->topic), "%s", topic);
	r->count[lv]++;
	if (lv > r->worst)
		r->worst = lv;
	return v;
}

/* Append printf output to a verdict's what or fix. */
static void put(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(char *buf, size_t n, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len + 1 >= n)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, n - len, fmt, ap);
	va_end(ap);
}

#define WHAT(v, ...) put((v)->what, sizeof((v)->what), __VA_ARGS__)
#define FIX(v, ...) put((v)->fix, sizeof((v)->fix), __VA_ARGS__)
#define PUSH(var, lv, topic) do { if (!((var) = push(r, (lv), (topic)))) goto out_oom; } while (0)

/* What the judge works out once and passes around. */
struct judge {
	const struct env_facts *f;
	const struct env_tables *t;
	const struct gpu_db *db;
	char dmax[24];             /* newest CUDA the driver runs, "12.4"; "" unknown */
	bool datacenter;           /* every GPU is a datacenter card (forward compatibility) */
	bool driver_too_old[ENV_MAX_FW];
};

static const char *fw_title(const char *name)
{
	if (!strcmp(name, "torch"))
		return "PyTorch";
	if (!strcmp(name, "tensorflow"))
		return "TensorFlow";
	if (!strcmp(name, "jax"))
		return "JAX";
	return name;
}

/* How to get a build of framework fw for CUDA <= dmax (or a GPU build at all). */
static void fix_build(struct env_verdict *v, const char *fw, const char *dmax)
{
	long d[3];
	int k = parse_version(dmax, d);

	if (!strcmp(fw, "torch")) {
		if (k >= 2)
			FIX(v, "pip install torch --index-url https://download.pytorch.org/whl/cuXYZ with "
			    "XYZ at most %ld%ld (pytorch.org/get-started/previous-versions lists the builds)",
			    d[0], d[1]);
		else
			FIX(v, "pip install torch --index-url https://download.pytorch.org/whl/cuXYZ "
			    "(pytorch.org/get-started/locally)");
	} else if (!strcmp(fw, "tensorflow")) {
		if (k >= 2)
			FIX(v, "a TensorFlow release built for CUDA <= %s (tensorflow.org/install/source#gpu "
			    "lists each release's CUDA), or pip install 'tensorflow[and-cuda]'", dmax);
		else
			FIX(v, "pip install 'tensorflow[and-cuda]'");
	} else if (!strcmp(fw, "jax")) {
		if (k >= 1 && d[0] >= 12)
			FIX(v, "pip install -U 'jax[cuda%ld]'", d[0]);
		else
			FIX(v, "pip install -U 'jax[cuda12]' (needs driver >= 525.60.13)");
	} else {
		FIX(v, "a %s build for CUDA <= %s", fw, k ? dmax : "the driver's");
	}
}

/* The three ways out when the driver is older than a CUDA build needs. */
static void fix_driver(struct judge *J, struct env_verdict *v, const char *fw, const char *cuda,
		       const char *need)
{
	long c[3];

	parse_version(cuda, c);
	FIX(v, "(1) install a build for CUDA <= %s: ", J->dmax[0] ? J->dmax : "what the driver runs");
	fix_build(v, fw, J->dmax);
	FIX(v, "; or (2) upgrade the NVIDIA driver to >= %s (root on the host: in a rented container "
	    "ask the provider, or pick an offer or image with a newer driver)", need);
	if (J->datacenter)
		FIX(v, "; or (3) CUDA forward compatibility: install NVIDIA's cuda-compat-%ld-%ld package "
		    "and put /usr/local/cuda-%ld.%ld/compat first in LD_LIBRARY_PATH", c[0], c[1],
		    c[0], c[1]);
	else
		FIX(v, " (CUDA forward compatibility, the third way, works on datacenter GPUs only)");
}

static int judge_driver(struct judge *J, struct env_report *r)
{
	const struct env_facts *f = J->f;
	struct env_verdict *v;

	if (!f->nvml) {
		PUSH(v, ENV_WARN, "driver");
		WHAT(v, "no NVIDIA driver: %s", f->nvml_error[0] ? f->nvml_error : "NVML is not available");
		FIX(v, "on a GPU box: the container must be given the GPUs (docker run --gpus all, with "
		    "the NVIDIA Container Toolkit), or the driver is not installed (nvidia-smi fails too); "
		    "on a machine without a GPU there is nothing to fix");
		return 0;
	}
	PUSH(v, ENV_OK, "driver");
	WHAT(v, "NVIDIA driver %s", f->driver[0] ? f->driver : "(version unknown)");
	if (J->dmax[0])
		WHAT(v, ", runs CUDA up to %s", J->dmax);
	WHAT(v, "; %zu GPU%s", f->ngpus, f->ngpus == 1 ? "" : "s");
	if (!f->ngpus) {
		PUSH(v, ENV_WARN, "driver");
		WHAT(v, "the driver works but sees no GPU");
		FIX(v, "check NVIDIA_VISIBLE_DEVICES of the container and nvidia-smi; a GPU that fell off "
		    "the bus needs a reboot of the host (ask the provider)");
	}
	return 0;
out_oom:
	return -1;
}

static int judge_gpu(struct judge *J, struct env_report *r, size_t i)
{
	const struct env_gpu *g = &J->f->gpus[i];
	const struct gpu_spec *spec = envcheck_find_gpu(J->db, g->name, g->mem_total);
	struct env_verdict *v;
	char topic[16];
	double total = g->mem_total / GIB, used = (g->mem_total - g->mem_free) / GIB;
	double nominal = spec ? spec->memory_bytes : 0;

	snprintf(topic, sizeof(topic), "gpu%zu", i);
	PUSH(v, ENV_INFO, topic);
	WHAT(v, "%s", g->name[0] ? g->name : "(unnamed GPU)");
	if (g->mem_total)
		WHAT(v, ": %.1f GiB, %.1f GiB free", total, g->mem_free / GIB);
	if (g->cc_major >= 0)
		WHAT(v, "; compute capability %d.%d", g->cc_major, g->cc_minor);
	if (g->pcie_gen > 0 && g->pcie_width > 0)
		WHAT(v, "; PCIe gen%d x%d now", g->pcie_gen, g->pcie_width);
	if (g->pcie_gen_max > 0 && g->pcie_width_max > 0)
		WHAT(v, " (gen%d x%d at most)", g->pcie_gen_max, g->pcie_width_max);
	if (g->nvlink_active > 0)
		WHAT(v, "; %d NVLink links active", g->nvlink_active);
	if (g->virt > ENV_VIRT_NONE)
		WHAT(v, "; virtualization: %s", env_virt_name(g->virt));

	/* A whole card, a slice, or a share? */
	if (g->mig == 1) {
		PUSH(v, ENV_WARN, topic);
		WHAT(v, "MIG mode is on: you get a slice (a MIG instance) of this card");
		if (g->mig_mem_total)
			WHAT(v, " with %.1f GiB", g->mig_mem_total / GIB);
		else if (g->mem_total && nominal > 0 && g->mem_total < ENV_SLICED_RATIO * nominal)
			WHAT(v, " (%.1f GiB visible)", total);
		if (nominal > 0)
			WHAT(v, "; the whole %s has %.0f GB", spec->name, nominal / 1e9);
		WHAT(v, ", and a fraction of its compute and memory bandwidth");
		FIX(v, "if you paid for a whole card, ask the provider to turn MIG off (nvidia-smi -mig 0, "
		    "root on the host) or to refund the difference: MIG slices rent for a fraction of "
		    "the price; size the job for the slice (gpurent estimate --gpu with its memory)");
	} else if (g->virt == ENV_VIRT_VGPU) {
		PUSH(v, ENV_WARN, topic);
		WHAT(v, "a vGPU: the card is virtualised and may be time-shared with other tenants");
		if (g->mem_total && nominal > 0)
			WHAT(v, " (%.1f GiB visible; the whole %s has %.0f GB)", total, spec->name, nominal / 1e9);
		FIX(v, "expect less than the nominal speed: measure it with gpurent bench; if you paid "
		    "for a dedicated card, ask for passthrough or bare metal");
	} else if (spec && g->mem_total && g->mem_total < ENV_SLICED_RATIO * nominal) {
		PUSH(v, ENV_WARN, topic);
		WHAT(v, "visible memory %.1f GiB is %.0f%% of the %s's %.0f GB: the card is sliced or shared",
		     total, 100.0 * g->mem_total / nominal, spec->name, nominal / 1e9);
		FIX(v, "ask the provider which share of the card you rent and price it as the smaller "
		    "card; size the job for %.1f GiB", total);
	} else if (spec && g->mem_total) {
		PUSH(v, ENV_OK, topic);
		WHAT(v, "a whole card: %.1f GiB visible; the %s has %.0f GB", total, spec->name,
		     nominal / 1e9);
		if (g->virt == ENV_VIRT_PASSTHROUGH)
			WHAT(v, " (passed through to a VM)");
	} else if (!spec && g->name[0]) {
		PUSH(v, ENV_INFO, topic);
		WHAT(v, "%s is not in data/gpus.csv: memory and PCIe not compared with nominal figures",
		     g->name);
	}

	/* Someone else on it? */
	if (g->mem_total && g->mem_free <= g->mem_total && used * GIB > ENV_BUSY_BYTES &&
	    used * GIB > 0.05 * g->mem_total) {
		PUSH(v, ENV_WARN, topic);
		WHAT(v, "%.1f GiB of %.1f GiB already in use: another process or tenant is on this GPU",
		     used, total);
		FIX(v, "nvidia-smi lists the processes (inside a container it may list none although the "
		    "memory is taken); stop yours, or ask the provider: a shared card gives you less "
		    "memory and speed");
	}

	/* The link to the host. */
	if (spec && spec->pcie_gen > 0 && g->pcie_gen_max > 0 && g->pcie_gen_max < spec->pcie_gen) {
		PUSH(v, ENV_WARN, topic);
		WHAT(v, "the PCIe link reaches only gen%d (the %s supports gen%ld): host<->device copies at "
		     "most %.0f%% of the card's speed", g->pcie_gen_max, spec->name, spec->pcie_gen,
		     100.0 / (double)(1L << (spec->pcie_gen - g->pcie_gen_max)));
		FIX(v, "an older slot or riser: data loading and checkpoint copies are slower, "
		    "compute-bound training is not; measure it with gpurent bench");
	}
	if (g->pcie_width_max > 0 && g->pcie_width_max < 16) {
		PUSH(v, ENV_WARN, topic);
		WHAT(v, "the PCIe link is x%d, not x16: host<->device copies at %d/16 of full speed",
		     g->pcie_width_max, g->pcie_width_max);
		FIX(v, "typical of risers in marketplace rigs: fine for compute-bound work, slow for "
		    "data-heavy loading and multi-GPU training over PCIe; measure it with gpurent bench");
	}
	return 0;
out_oom:
	return -1;
}

static void cuda_str(int v, char *out, size_t n)
{
	snprintf(out, n, "%d.%d", v / 1000, (v % 1000) / 10);
}

/* A system CUDA (runtime or compiler) newer than the driver runs. */
static int judge_system_cuda(struct judge *J, struct env_report *r, const char *what,
			     const char *ver)
{
	const struct env_facts *f = J->f;
	const char *full, *compat;
	struct env_verdict *v;

	if (!f->nvml || !f->driver[0] || envcheck_cuda_needs(J->t, ver, &full, &compat))
		return 0;
	if (envcheck_version_cmp(f->driver, full) >= 0)
		return 0;
	PUSH(v, ENV_WARN, "cuda");
	WHAT(v, "the system %s is CUDA %s, which needs driver >= %s; driver %s runs CUDA <= %s",
	     what, ver, full, f->driver, J->dmax[0] ? J->dmax : "?");
	if (compat[0] && envcheck_version_cmp(f->driver, compat) >= 0)
		WHAT(v, " (minor version compatibility covers it, without PTX JIT of newer kernels)");
	FIX(v, "frameworks from pip/conda bring their own CUDA and are judged below; for code you "
	    "build yourself use a toolkit <= %s (or upgrade the driver to >= %s)",
	    J->dmax[0] ? J->dmax : "the driver's", full);
	return 0;
out_oom:
	return -1;
}

static int judge_cuda(struct judge *J, struct env_report *r)
{
	const struct env_facts *f = J->f;
	struct env_verdict *v;
	char rt[24];

	if (!f->cudart_version && !f->nvcc_version[0]) {
		PUSH(v, ENV_INFO, "cuda");
		WHAT(v, "no system CUDA toolkit (no libcudart on the library path, no nvcc on PATH): "
		     "pip and conda frameworks carry their own CUDA runtime; only building CUDA "
		     "extensions needs one");
		return 0;
	}
	PUSH(v, ENV_INFO, "cuda");
	WHAT(v, "system CUDA:");
	if (f->cudart_version) {
		cuda_str(f->cudart_version, rt, sizeof(rt));
		WHAT(v, " runtime %s (%s)", rt, f->cudart_lib[0] ? f->cudart_lib : "libcudart");
	}
	if (f->nvcc_version[0])
		WHAT(v, "%s nvcc %s", f->cudart_version ? "," : "", f->nvcc_version);
	if (f->cudart_version && judge_system_cuda(J, r, "CUDA runtime", rt))
		return -1;
	if (f->nvcc_version[0] && (!f->cudart_version || strcmp(rt, f->nvcc_version)) &&
	    judge_system_cuda(J, r, "nvcc", f->nvcc_version))
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

/* The framework against each GPU's architecture. */
static int judge_fw_arch(struct judge *J, struct env_report *r, const struct env_framework *w)
{
	const struct env_facts *f = J->f;
	struct env_verdict *v;

	for (size_t i = 0; i < f->ngpus; i++) {
		const struct env_gpu *g = &f->gpus[i];
		const struct env_arch_row *a;
		bool seen = false;
		int runs;

		if (g->cc_major < 0)
			continue;
		for (size_t k = 0; k < i; k++)
			seen |= f->gpus[k].cc_major == g->cc_major && f->gpus[k].cc_minor == g->cc_minor;
		if (seen)
			continue;
		a = envcheck_arch(J->t, g->cc_major, g->cc_minor);
		if (w->archs[0]) {
			runs = arch_list_runs(w->archs, g->cc_major, g->cc_minor);
			if (runs == 2)
				continue;
			PUSH(v, runs ? ENV_WARN : ENV_FAIL, w->name);
			if (runs)
				WHAT(v, "%s %s has no native kernels for sm_%d%d (%s), only PTX that the driver "
				     "compiles at start-up: slow first run, and libraries without PTX fail",
				     fw_title(w->name), w->version, g->cc_major, g->cc_minor, g->name);
			else
				WHAT(v, "%s %s has no kernels for sm_%d%d (%s; it has %s): CUDA calls fail with "
				     "'no kernel image is available for execution on the device'",
				     fw_title(w->name), w->version, g->cc_major, g->cc_minor, g->name, w->archs);
			if (a && a->first_cuda[0])
				FIX(v, "install a build for CUDA >= %s, the first that targets %s: ",
				    a->first_cuda, a->arch);
			else
				FIX(v, "install a build that targets sm_%d%d: ", g->cc_major, g->cc_minor);
			fix_build(v, w->name, "");
			continue;
		}
		if (!a || !w->cuda[0])
			continue;
		if (a->last_cuda[0]) {
			char mm[16];
			long c[3];
			int k = parse_version(w->cuda, c);
			snprintf(mm, sizeof(mm), "%ld.%ld", c[0], k > 1 ? c[1] : 0L);
			if (envcheck_version_cmp(mm, a->last_cuda) > 0) {
				PUSH(v, ENV_FAIL, w->name);
				WHAT(v, "%s %s is built for CUDA %s, but CUDA after %s dropped %s (sm_%d%d, %s): "
				     "it has no kernels for this GPU", fw_title(w->name), w->version, w->cuda,
				     a->last_cuda, a->arch, g->cc_major, g->cc_minor, g->name);
				FIX(v, "install a build for CUDA <= %s: ", a->last_cuda);
				fix_build(v, w->name, a->last_cuda);
				continue;
			}
		}
		if (a->first_cuda[0]) {
			long c[3], fc[3];
			int k = parse_version(w->cuda, c);
			parse_version(a->first_cuda, fc);
			/* "12" (jax) is the whole family: older only if the major is */
			if ((k == 1 && c[0] < fc[0]) ||
			    (k > 1 && envcheck_version_cmp(w->cuda, a->first_cuda) < 0)) {
				PUSH(v, ENV_WARN, w->name);
				WHAT(v, "%s %s is built for CUDA %s, older than CUDA %s, the first to target %s "
				     "(sm_%d%d, %s): it runs only through PTX JIT, if it ships PTX",
				     fw_title(w->name), w->version, w->cuda, a->first_cuda, a->arch,
				     g->cc_major, g->cc_minor, g->name);
				FIX(v, "install a build for CUDA >= %s: ", a->first_cuda);
				fix_build(v, w->name, "");
			}
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
	const char *title = fw_title(w->name), *full, *compat;
	struct env_verdict *v;

	if (!w->installed)
		return 0;
	if (w->import_failed) {
		PUSH(v, ENV_WARN, w->name);
		WHAT(v, "%s is installed but fails to import: %s", title, w->error[0] ? w->error : "?");
		FIX(v, "reinstall it in this environment (pip install --force-reinstall %s) or install "
		    "what the error names", !strcmp(w->name, "torch") ? "torch" : w->name);
		return 0;
	}
	if (!w->cuda[0]) {
		if (f->ngpus) {
			PUSH(v, ENV_FAIL, w->name);
			WHAT(v, "%s %s is a CPU-only build: it will not use the %zu GPU%s", title,
			     w->version, f->ngpus, f->ngpus == 1 ? "" : "s");
			FIX(v, "install a CUDA build: ");
			fix_build(v, w->name, J->dmax);
		} else {
			PUSH(v, ENV_INFO, w->name);
			WHAT(v, "%s %s (CPU-only build)", title, w->version);
		}
		return 0;
	}
	/* A CUDA build: does its CUDA run on this driver? */
	if (!f->nvml || !f->driver[0]) {
		PUSH(v, f->nvml ? ENV_INFO : ENV_WARN, w->name);
		WHAT(v, "%s %s is built for CUDA %s, but %s: it runs on the CPU", title, w->version,
		     w->cuda, f->nvml ? "the driver version is unknown" : "there is no NVIDIA driver");
		if (!f->nvml)
			FIX(v, "see the driver line");
		return 0;
	}
	if (envcheck_cuda_needs(J->t, w->cuda, &full, &compat)) {
		PUSH(v, ENV_WARN, w->name);
		WHAT(v, "%s %s is built for CUDA %s, which is not in data/cuda_driver.csv (newer than "
		     "gpurent's data?): the driver check was skipped", title, w->version, w->cuda);
		FIX(v, "update gpurent, or add the row from NVIDIA's CUDA release notes "
		    "(table 'CUDA Toolkit and Corresponding Driver Versions')");
	} else if (full[0] && envcheck_version_cmp(f->driver, full) >= 0) {
		PUSH(v, ENV_OK, w->name);
		WHAT(v, "%s %s, built for CUDA %s, runs on driver %s (needs >= %s)", title, w->version,
		     w->cuda, f->driver, full);
	} else if (!full[0] && compat[0] && envcheck_version_cmp(f->driver, compat) >= 0) {
		PUSH(v, ENV_OK, w->name);
		WHAT(v, "%s %s, built for CUDA %s, runs on driver %s (CUDA %s.x needs >= %s)", title,
		     w->version, w->cuda, f->driver, w->cuda, compat);
	} else if (full[0] && compat[0] && envcheck_version_cmp(f->driver, compat) >= 0) {
		PUSH(v, ENV_WARN, w->name);
		WHAT(v, "%s %s is built for CUDA %s, which needs driver >= %s; driver %s runs it only "
		     "through CUDA minor version compatibility: kernels shipped as PTX for a newer CUDA "
		     "cannot be JIT-compiled and features newer than CUDA %s fail", title, w->version,
		     w->cuda, full, f->driver, J->dmax[0] ? J->dmax : "the driver's");
		fix_driver(J, v, w->name, w->cuda, full);
	} else {
		const char *need = full[0] ? full : compat;
		J->driver_too_old[idx] = true;
		PUSH(v, ENV_FAIL, w->name);
		WHAT(v, "%s %s is built for CUDA %s, which needs driver >= %s", title, w->version,
		     w->cuda, need);
		if (compat[0] && strcmp(compat, need))
			WHAT(v, " (>= %s with minor version compatibility)", compat);
		WHAT(v, "; driver %s runs CUDA <= %s: CUDA fails to start ('the CUDA driver version is "
		     "insufficient for CUDA runtime version')", f->driver, J->dmax[0] ? J->dmax : "?");
		fix_driver(J, v, w->name, w->cuda, need);
	}
	/* Does it see the GPUs? */
	if (f->ngpus && w->gpus == 0) {
		PUSH(v, ENV_FAIL, w->name);
		WHAT(v, "%s cannot see the GPU%s", title, f->ngpus == 1 ? "" : "s");
		if (w->error[0])
			WHAT(v, ": %s", w->error);
		if (cvd_hides_all(f))
			FIX(v, "CUDA_VISIBLE_DEVICES='%s' hides every GPU: unset it or list the devices",
			    f->cuda_visible_devices);
		else if (J->driver_too_old[idx])
			FIX(v, "fix the driver / CUDA mismatch above");
		else
			FIX(v, "python3 -c 'import torch; torch.cuda.init()' (or the framework's equivalent) "
			    "shows the error; a container started without --gpus, or without "
			    "/dev/nvidia-uvm, does this");
	} else if (f->ngpus && w->gpus > 0 && (size_t)w->gpus < f->ngpus) {
		PUSH(v, ENV_INFO, w->name);
		WHAT(v, "%s sees %d of the %zu GPUs", title, w->gpus, f->ngpus);
		if (f->cvd_set)
			WHAT(v, " (CUDA_VISIBLE_DEVICES=%s)", f->cuda_visible_devices);
	}
	return judge_fw_arch(J, r, w);
out_oom:
	return -1;
}

static int judge_python(struct judge *J, struct env_report *r)
{
	const struct env_facts *f = J->f;
	struct env_verdict *v;

	if (!f->python) {
		PUSH(v, ENV_INFO, "python");
		WHAT(v, "no python3 to ask%s%s: framework checks skipped",
		     f->python_error[0] ? ": " : "", f->python_error);
		return 0;
	}
	PUSH(v, ENV_INFO, "python");
	WHAT(v, "python %s:", f->python_version[0] ? f->python_version : "?");
	for (size_t i = 0; i < f->nfw; i++) {
		const struct env_framework *w = &f->fw[i];
		WHAT(v, "%s %s ", i ? "," : "", w->name);
		if (!w->installed)
			WHAT(v, "not installed");
		else if (w->import_failed)
			WHAT(v, "(fails to import)");
		else
			WHAT(v, "%s%s%s", w->version, w->cuda[0] ? " for CUDA " : " CPU-only", w->cuda);
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
	struct env_verdict *v;
	double gpumem = 0;

	for (size_t i = 0; i < f->ngpus; i++)
		gpumem += (double)f->gpus[i].mem_total;
	if (f->cpus > 0) {
		if (f->ngpus && f->cpus < ENV_CPUS_PER_GPU * (long)f->ngpus) {
			PUSH(v, ENV_WARN, "cpu");
			WHAT(v, "%ld CPU core%s for %zu GPU%s: fewer than %d per GPU starves the data loader",
			     f->cpus, f->cpus == 1 ? "" : "s", f->ngpus, f->ngpus == 1 ? "" : "s",
			     ENV_CPUS_PER_GPU);
			FIX(v, "set DataLoader num_workers to about cores/GPUs - 1, decode and augment "
			    "offline, or rent a box with more vCPUs per GPU");
		} else {
			PUSH(v, ENV_OK, "cpu");
			WHAT(v, "%ld CPU cores", f->cpus);
			if (f->ngpus)
				WHAT(v, " (%.1f per GPU)", (double)f->cpus / (double)f->ngpus);
		}
		if (f->cpus_online > f->cpus)
			WHAT(v, "; %ld usable of the %ld the machine shows (a CPU quota or affinity: set "
			     "num_workers and thread counts from the usable number, not os.cpu_count())",
			     f->cpus, f->cpus_online);
	}
	if (f->ram_total) {
		if (f->ngpus && (double)f->ram_total < gpumem) {
			PUSH(v, ENV_WARN, "ram");
			WHAT(v, "RAM %.1f GiB is less than the GPUs' %.1f GiB: loading a checkpoint that "
			     "fills the GPUs goes through host memory first", f->ram_total / GIB,
			     gpumem / GIB);
			FIX(v, "load with mmap (safetensors, torch.load(mmap=True)), shard the checkpoint, "
			    "or rent more RAM");
		} else {
			PUSH(v, ENV_OK, "ram");
			WHAT(v, "RAM %.1f GiB, %.1f GiB available", f->ram_total / GIB, f->ram_avail / GIB);
		}
		if (f->ram_host > f->ram_total)
			WHAT(v, " (a container limit: the host has %.1f GiB, and going over the limit "
			     "gets the job killed)", f->ram_host / GIB);
	}
	/* /dev/shm: PyTorch's DataLoader workers pass batches through it. */
	if (!f->shm_exists) {
		PUSH(v, ENV_WARN, "shm");
		WHAT(v, "%s does not exist: PyTorch DataLoader workers (num_workers > 0) need shared "
		     "memory", f->shm_path[0] ? f->shm_path : "/dev/shm");
	} else if (f->shm_free < ENV_SHM_WARN_BYTES) {
		PUSH(v, f->shm_free < ENV_SHM_FAIL_BYTES ? ENV_FAIL : ENV_WARN, "shm");
		WHAT(v, "%s has %.0f MiB free (%.0f MiB in all): PyTorch DataLoader workers %s with "
		     "'bus error' / 'insufficient shared memory (shm)'", f->shm_path, f->shm_free / MIB,
		     f->shm_total / MIB, f->shm_free < ENV_SHM_FAIL_BYTES ? "die" : "can die");
	} else {
		PUSH(v, ENV_OK, "shm");
		WHAT(v, "%s: %.1f GiB free", f->shm_path, f->shm_free / GIB);
	}
	if (v->level >= ENV_WARN)
		FIX(v, "restart the container with --shm-size=16g or --ipc=host (docker), mount an "
		    "emptyDir with medium: Memory at /dev/shm (Kubernetes), or as root: mount -o "
		    "remount,size=16G /dev/shm; else DataLoader(num_workers=0), which is slow");
	for (size_t i = 0; i < f->ndirs; i++) {
		const struct env_dir *d = &f->dirs[i];
		if (!d->exists || d->error[0]) {
			PUSH(v, ENV_WARN, "disk");
			WHAT(v, "%s (%s): %s", d->path, d->role, d->error[0] ? d->error : "does not exist");
			FIX(v, "create it, or point --dir at where logs and checkpoints go");
			continue;
		}
		if (d->free_bytes < ENV_DISK_WARN_BYTES) {
			PUSH(v, d->free_bytes < ENV_DISK_FAIL_BYTES ? ENV_FAIL : ENV_WARN, "disk");
			WHAT(v, "%s (%s): only %.1f GiB free of %.1f GiB: %s", d->path, d->role,
			     d->free_bytes / GIB, d->total_bytes / GIB,
			     d->free_bytes < ENV_DISK_FAIL_BYTES ?
			     "the next checkpoint or log write fails" :
			     "one bf16 checkpoint of a 7B model (14 GB) barely fits");
			FIX(v, "free space, mount a larger volume here, keep only the last few "
			    "checkpoints, or write them to object storage");
		} else {
			PUSH(v, ENV_OK, "disk");
			WHAT(v, "%s (%s): %.1f GiB free of %.1f GiB", d->path, d->role, d->free_bytes / GIB,
			     d->total_bytes / GIB);
		}
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
	snprintf(err, errlen, "out of memory");
	envcheck_report_free(r);
	return -1;
}

void envcheck_report_free(struct env_report *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}
