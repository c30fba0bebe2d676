/*
 * test_envcheck.c - the verdicts of `gpurent env` on hand-made facts, a
 * table of cases (a whole card, a MIG slice, a vGPU, a card sliced by
 * memory, a driver too old for the framework's CUDA with and without minor
 * version compatibility, no driver, small /dev/shm, full disks, CPU-only
 * and wrong-architecture framework builds...), each asserting the level,
 * code and facts of its findings, and every code found by some case; and
 * the driver and architecture tables read from data/. The words are
 * tests/unit/test_envwords.c's.
 */
#include "testutil.h"

#include "core/box/envcheck.h"

#define GB 1e9
#define GiB 1073741824.0
#define MiB 1048576.0

static struct env_tables tables;

static int setup(void **state)
{
	char err[512], *drv, *arch;
	size_t dl, al;
	int rc;

	if (tu_setup(state))
		return -1;
	drv = tu_read("data/cuda_driver.csv", &dl);
	arch = tu_read("data/cuda_arch.csv", &al);
	rc = !drv || !arch ||
	     envcheck_tables_load(&tables, drv, dl, "cuda_driver.csv", arch, al, "cuda_arch.csv",
				  err, sizeof(err));
	if (rc)
		fprintf(stderr, "setup: %s\n", drv && arch ? err : "cannot read data/cuda_*.csv");
	free(drv);
	free(arch);
	return rc ? -1 : 0;
}

static int teardown(void **state)
{
	envcheck_tables_free(&tables);
	return tu_teardown(state);
}

/* ---- fact builders ---- */

static void host_ok(struct env_facts *f)
{
	f->cpus = 32;
	f->ram_total = (uint64_t)(512 * GiB);
	f->ram_avail = (uint64_t)(500 * GiB);
	snprintf(f->shm_path, sizeof(f->shm_path), "/dev/shm");
	f->shm_exists = true;
	f->shm_total = f->shm_free = (uint64_t)(64 * GiB);
	f->ndirs = 1;
	snprintf(f->dirs[0].role, sizeof(f->dirs[0].role), "working");
	snprintf(f->dirs[0].path, sizeof(f->dirs[0].path), "/workspace");
	f->dirs[0].exists = true;
	f->dirs[0].free_bytes = (uint64_t)(400 * GiB);
	f->dirs[0].total_bytes = (uint64_t)(500 * GiB);
}

static void driver(struct env_facts *f, const char *ver, int cmaj, int cmin)
{
	f->nvml = true;
	snprintf(f->driver, sizeof(f->driver), "%s", ver);
	f->driver_cuda_major = cmaj;
	f->driver_cuda_minor = cmin;
}

static struct env_gpu *gpu(struct env_facts *f, const char *name, double total_bytes, int ccmaj,
			   int ccmin)
{
	struct env_gpu *g = &f->gpus[f->ngpus++];

	snprintf(g->name, sizeof(g->name), "%s", name);
	g->mem_total = (uint64_t)total_bytes;
	g->mem_free = (uint64_t)(total_bytes - 0.5 * GiB);
	g->mig = 0;
	g->virt = ENV_VIRT_NONE;
	g->cc_major = ccmaj;
	g->cc_minor = ccmin;
	g->pcie_gen = g->pcie_gen_max = 5;
	g->pcie_width = g->pcie_width_max = 16;
	g->nvlink_active = -1;
	return g;
}

static struct env_framework *fw(struct env_facts *f, const char *name, const char *version,
				const char *cuda, int gpus, const char *archs)
{
	struct env_framework *w = &f->fw[f->nfw++];

	f->python = true;
	snprintf(f->python_version, sizeof(f->python_version), "3.11.9");
	snprintf(w->name, sizeof(w->name), "%s", name);
	w->installed = true;
	snprintf(w->version, sizeof(w->version), "%s", version);
	snprintf(w->cuda, sizeof(w->cuda), "%s", cuda);
	w->gpus = gpus;
	snprintf(w->archs, sizeof(w->archs), "%s", archs);
	return w;
}

static void judge(const struct env_facts *f, struct env_report *r)
{
	char err[256];

	assert_int_equal(envcheck_judge(f, &tables, &tu_gdb, r, err, sizeof(err)), 0);
}

/* ---- tables ---- */

static void test_version_cmp(void **s)
{
	(void)s;
	assert_true(envcheck_version_cmp("550.54.15", "550.100") < 0);
	assert_true(envcheck_version_cmp("550.54.15", "550.54.14") > 0);
	assert_true(envcheck_version_cmp("12.4", "12.4.0") == 0);
	assert_true(envcheck_version_cmp("580.65.06", "580") > 0);   /* ">= 580" */
	assert_true(envcheck_version_cmp("579.99", "580") < 0);
	assert_true(envcheck_version_cmp("12.10", "12.9") > 0);      /* numbers, not text */
	assert_true(envcheck_version_cmp("2.5.1+cu124", "2.5.1") == 0);
}

static void test_driver_table(void **s)
{
	static const struct { const char *cuda; int rc; const char *full, *compat; } needs[] = {
		/* a framework's "12.4" needs the 12.4 GA driver; minor compat from 525.60.13 */
		{"12.4", 0, "550.54.14", "525.60.13"},
		/* an update row when given exactly; an unknown patch falls back to the GA */
		{"12.4.1", 0, "550.54.15", "525.60.13"},
		{"12.4.127", 0, "550.54.14", "525.60.13"},
		{"12.8", 0, "570.26", "525.60.13"},
		{"11.8", 0, "520.61.05", "450.80.02"},
		{"13.0", 0, "580.65.06", "580"},
		/* a major alone (jax's cuda12 plugin): only the family is known */
		{"12", 0, "", "525.60.13"},
		/* before CUDA 11 there is no minor version compatibility */
		{"10.2", 0, "440.33", ""},
		{"14.1", -1, "", ""},
		{"12.7", -1, "", ""},   /* no 12.7 */
		{"cpu", -1, "", ""},
	};
	static const struct { const char *driver; int rc; const char *cuda; } runs[] = {
		{"550.54.15", 0, "12.4"}, {"535.104.05", 0, "12.2"}, {"470.82.01", 0, "11.4"},
		{"580.95.05", 0, "13.0"}, {"300.1", -1, ""},
	};
	const char *full, *compat;
	char out[16];

	(void)s;
	assert_true(tables.ncuda >= 60);
	for (size_t i = 0; i < ARRAY_SIZE(needs); i++) {
		int rc = envcheck_cuda_needs(&tables, needs[i].cuda, &full, &compat);
		if (rc != needs[i].rc || strcmp(full, needs[i].full) || strcmp(compat, needs[i].compat))
			fail_msg("CUDA %s: %d '%s' '%s', expected %d '%s' '%s'", needs[i].cuda, rc, full,
				 compat, needs[i].rc, needs[i].full, needs[i].compat);
	}
	for (size_t i = 0; i < ARRAY_SIZE(runs); i++) {
		assert_int_equal(envcheck_cuda_for_driver(&tables, runs[i].driver, out, sizeof(out)),
				 runs[i].rc);
		assert_string_equal(out, runs[i].cuda);
	}
}

static void test_arch_table(void **s)
{
	const struct env_arch_row *a;

	(void)s;
	assert_non_null(a = envcheck_arch(&tables, 12, 0));
	assert_string_equal(a->first_cuda, "12.8");
	assert_non_null(a = envcheck_arch(&tables, 9, 0));
	assert_string_equal(a->arch, "Hopper");
	assert_string_equal(a->first_cuda, "11.8");
	assert_non_null(a = envcheck_arch(&tables, 7, 0));
	assert_string_equal(a->last_cuda, "12.9");
	assert_null(envcheck_arch(&tables, 4, 2));
}

static void test_bad_tables(void **s)
{
	static const char arch[] = "compute_capability,architecture,examples,first_cuda,last_cuda,source\n"
				   "9.0,Hopper,H100,11.8,,x\n";
	static const char nosrc[] = "cuda,release,linux_driver,minor_compat_driver,source\n"
				    "12.4.0,CUDA 12.4 GA,550.54.14,525.60.13,\n";
	static const char badver[] = "cuda,release,linux_driver,minor_compat_driver,source\n"
				     "12.4,CUDA 12.4 GA,550.54.14,525.60.13,x\n";
	struct env_tables t;
	char err[256];

	(void)s;
	assert_int_equal(envcheck_tables_load(&t, nosrc, strlen(nosrc), "d.csv", arch, strlen(arch),
					      "a.csv", err, sizeof(err)), -1);
	assert_string_equal(err, "d.csv:2: source: expected where the row comes from");
	assert_int_equal(envcheck_tables_load(&t, badver, strlen(badver), "d.csv", arch, strlen(arch),
					      "a.csv", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "d.csv:2: cuda: expected major.minor.update"));
}

static void test_find_gpu(void **s)
{
	static const struct { const char *nvml; double mib; const char *want; } cases[] = {
		{"NVIDIA H100 80GB HBM3", 81559, "NVIDIA H100 SXM"},
		{"NVIDIA H100 PCIe", 81559, "NVIDIA H100 PCIe"},
		{"NVIDIA H200", 143771, "NVIDIA H200 SXM"},
		{"Tesla T4", 15360, "NVIDIA T4"},
		{"Tesla V100-SXM2-16GB", 16160, "NVIDIA V100 SXM2 16GB"},
		{"NVIDIA A100-SXM4-40GB", 40960, "NVIDIA A100 40GB SXM"},
		{"NVIDIA A100-SXM4-80GB", 81920, "NVIDIA A100 80GB SXM"},
		{"NVIDIA A100 80GB PCIe", 81920, "NVIDIA A100 80GB PCIe"},
		{"NVIDIA A10G", 23028, "NVIDIA A10G"},
		{"NVIDIA L40S", 46068, "NVIDIA L40S"},
		{"NVIDIA GeForce RTX 4090", 24564, "NVIDIA GeForce RTX 4090"},
		{"NVIDIA GeForce RTX 5090", 32607, "NVIDIA GeForce RTX 5090"},
		{"NVIDIA RTX 6000 Ada Generation", 49140, "NVIDIA RTX 6000 Ada"},
		{"NVIDIA RTX A6000", 49140, "NVIDIA RTX A6000"},
	};
	const struct gpu_spec *g;

	(void)s;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		g = envcheck_find_gpu(&tu_gdb, cases[i].nvml, (uint64_t)(cases[i].mib * MiB));
		if (!g || strcmp(g->name, cases[i].want))
			fail_msg("%s -> %s, expected %s", cases[i].nvml, g ? g->name : "NULL", cases[i].want);
	}
	assert_null(envcheck_find_gpu(&tu_gdb, "Frobnitz 9000", 0));
	assert_null(envcheck_find_gpu(NULL, "NVIDIA H200", 0));
}

/* ---- verdicts: a table of cases ---- */

/* The finding on topic at level lv with code; fails the test if none. */
static void dump(const struct env_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		fprintf(stderr, "  %-4s %-10s %s\n", env_level_name(r->v[i].level), r->v[i].topic,
			env_code_name(r->v[i].code));
}

static const struct env_finding *find(const struct env_report *r, const char *topic,
				      enum env_level lv, enum env_code code)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].topic, topic) && r->v[i].level == lv &&
		    (code == ENV_F_COUNT || r->v[i].code == code))
			return &r->v[i];
	return NULL;
}

static const struct env_finding *get(const struct env_report *r, const char *topic,
				     enum env_level lv, enum env_code code)
{
	const struct env_finding *v = find(r, topic, lv, code);

	if (!v) {
		dump(r);
		fail_msg("no %s %s finding on %s", env_level_name(lv), env_code_name(code), topic);
	}
	return v;
}

#define assert_num(a, b) do { \
	double a_ = (double)(a), b_ = (double)(b); \
	if (fabs(a_ - b_) > 1e-9 * fmax(1.0, fabs(b_))) \
		fail_msg("%s is %.17g, expected %.17g", #a, a_, b_); \
} while (0)

struct want {
	const char *topic;
	enum env_level lv;
	enum env_code code;   /* ENV_F_COUNT in none[]: any code */
};

struct env_case {
	const char *name;
	void (*facts)(struct env_facts *f);
	struct want want[7];   /* findings there, up to the first without a topic */
	struct want none[3];   /* topic and level not there */
	int worst;             /* the report's worst level; -1 unchecked */
	void (*check)(const struct env_report *r);   /* the facts of the findings; NULL none */
};

/* Every code some case found (the cases run before test_every_code). */
static bool seen[ENV_F_COUNT];

/* -- the box as paid for: whole H100, driver new enough, torch sees it -- */
static void f_whole_card(struct env_facts *f)
{
	host_ok(f);
	driver(f, "550.54.15", 12, 4);
	gpu(f, "NVIDIA H100 80GB HBM3", 81559 * MiB, 9, 0);
	fw(f, "torch", "2.3.1+cu121", "12.1", 1, "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90");
}

static void c_whole_card(const struct env_report *r)
{
	const struct env_finding *v = get(r, "driver", ENV_OK, ENV_F_DRIVER);

	assert_string_equal(v->driver, "550.54.15");
	assert_string_equal(v->dmax, "12.4");
	assert_int_equal(v->ngpus, 1);
	v = get(r, "gpu0", ENV_OK, ENV_F_GPU_WHOLE);
	assert_int_equal(v->gpu_index, 0);
	assert_string_equal(v->spec, "NVIDIA H100 SXM");
	assert_num(v->nominal, 80 * GB);
	assert_num(v->gpu.mem_total, 81559 * MiB);
	v = get(r, "torch", ENV_OK, ENV_F_FW_DRIVER_OK);
	assert_string_equal(v->version, "2.3.1+cu121");
	assert_string_equal(v->cuda, "12.1");
	assert_string_equal(v->need, "530.30.02");
	v = get(r, "disk", ENV_OK, ENV_F_DISK_OK);
	assert_string_equal(v->path, "/workspace");
	assert_string_equal(v->role, "working");
	assert_num(v->free_bytes, 400 * GiB);
	v = get(r, "cpu", ENV_OK, ENV_F_CPU_OK);
	assert_int_equal(v->cpus, 32);
	assert_int_equal(v->ngpus, 1);
	v = get(r, "python", ENV_INFO, ENV_F_PYTHON);
	assert_string_equal(v->version, "3.11.9");
	assert_int_equal(v->nfws, 1);
	assert_string_equal(v->fws[0].cuda, "12.1");
	assert_int_equal(r->count[ENV_WARN] + r->count[ENV_FAIL], 0);
}

/* -- a MIG slice: NVML's memory is the slice's, or the parent's with the instance's known -- */
static void f_mig_slice(struct env_facts *f)
{
	host_ok(f);
	driver(f, "550.54.15", 12, 4);
	gpu(f, "NVIDIA A100-SXM4-80GB", 40192 * MiB, 8, 0)->mig = 1;
}

static void c_mig_slice(const struct env_report *r)
{
	const struct env_finding *v = get(r, "gpu0", ENV_WARN, ENV_F_GPU_MIG);

	assert_true(v->sliced);
	assert_string_equal(v->spec, "NVIDIA A100 80GB SXM");
	assert_num(v->nominal, 80 * GB);
	assert_num(v->gpu.mem_total, 40192 * MiB);
}

static void f_mig_instance(struct env_facts *f)
{
	struct env_gpu *g;

	f_mig_slice(f);
	g = &f->gpus[0];
	g->mem_total = (uint64_t)(81920 * MiB);
	g->mig_mem_total = (uint64_t)(9984 * MiB);
}

static void c_mig_instance(const struct env_report *r)
{
	const struct env_finding *v = get(r, "gpu0", ENV_WARN, ENV_F_GPU_MIG);

	assert_false(v->sliced);
	assert_num(v->gpu.mig_mem_total, 9984 * MiB);
}

/* -- a vGPU; passthrough is a whole card in a VM: fine -- */
static void f_vgpu(struct env_facts *f)
{
	host_ok(f);
	driver(f, "535.104.05", 12, 2);
	gpu(f, "GRID A100-40C", 40960 * MiB, 8, 0)->virt = ENV_VIRT_VGPU;
}

static void c_vgpu(const struct env_report *r)
{
	assert_int_equal(get(r, "gpu0", ENV_INFO, ENV_F_GPU)->gpu.virt, ENV_VIRT_VGPU);
}

static void f_passthrough(struct env_facts *f)
{
	f_vgpu(f);
	f->gpus[0].virt = ENV_VIRT_PASSTHROUGH;
	snprintf(f->gpus[0].name, sizeof(f->gpus[0].name), "NVIDIA A100-PCIE-40GB");
}

static void c_passthrough(const struct env_report *r)
{
	assert_int_equal(get(r, "gpu0", ENV_OK, ENV_F_GPU_WHOLE)->gpu.virt, ENV_VIRT_PASSTHROUGH);
}

/* -- no MIG, no vGPU flag, but half the memory: sliced all the same; and a busy card -- */
static void f_sliced(struct env_facts *f)
{
	host_ok(f);
	driver(f, "550.54.15", 12, 4);
	gpu(f, "NVIDIA GeForce RTX 4090", 12 * GiB, 8, 9);
}

static void c_sliced(const struct env_report *r)
{
	const struct env_finding *v = get(r, "gpu0", ENV_WARN, ENV_F_GPU_SLICED);

	assert_true(v->sliced);
	assert_string_equal(v->spec, "NVIDIA GeForce RTX 4090");
	assert_num(v->nominal, 24 * GB);
	assert_int_equal((int)(100.0 * v->gpu.mem_total / v->nominal + 0.5), 54);
}

static void f_busy(struct env_facts *f)
{
	f_sliced(f);
	f->gpus[0].mem_total = (uint64_t)(24564 * MiB);
	f->gpus[0].mem_free = (uint64_t)(4 * GiB);
}

static void c_busy(const struct env_report *r)
{
	const struct env_finding *v = get(r, "gpu0", ENV_WARN, ENV_F_GPU_BUSY);

	assert_num(v->gpu.mem_total - v->gpu.mem_free, 24564 * MiB - 4 * GiB);
}

/* -- a slow PCIe link: an older generation and fewer lanes -- */
static void f_pcie(struct env_facts *f)
{
	struct env_gpu *g;

	host_ok(f);
	driver(f, "550.54.15", 12, 4);
	g = gpu(f, "NVIDIA H100 PCIe", 81559 * MiB, 9, 0);
	g->pcie_gen_max = 3;
	g->pcie_width = g->pcie_width_max = 8;
}

static void c_pcie(const struct env_report *r)
{
	const struct env_finding *v = get(r, "gpu0", ENV_WARN, ENV_F_PCIE_GEN);

	assert_int_equal(v->gpu.pcie_gen_max, 3);
	assert_int_equal(v->spec_pcie_gen, 5);
	assert_string_equal(v->spec, "NVIDIA H100 PCIe");
	assert_int_equal(get(r, "gpu0", ENV_WARN, ENV_F_PCIE_WIDTH)->gpu.pcie_width_max, 8);
}

/* -- acceptance 2: a driver too old for the framework's CUDA -- */
static void f_too_old(struct env_facts *f)
{
	host_ok(f);
	driver(f, "470.82.01", 11, 4);
	gpu(f, "NVIDIA A100-SXM4-80GB", 81920 * MiB, 8, 0);
	fw(f, "torch", "2.4.0+cu121", "12.1", 0, "");
}

static void c_too_old(const struct env_report *r)
{
	const struct env_finding *v = get(r, "torch", ENV_FAIL, ENV_F_DRIVER_TOO_OLD);

	assert_string_equal(v->cuda, "12.1");
	assert_string_equal(v->need, "530.30.02");
	assert_string_equal(v->compat, "525.60.13");
	assert_string_equal(v->driver, "470.82.01");
	assert_string_equal(v->dmax, "11.4");
	assert_true(v->datacenter);   /* forward compatibility is a way out */
	/* torch not seeing the GPU points back at it */
	v = get(r, "torch", ENV_FAIL, ENV_F_FW_NO_GPU);
	assert_true(v->driver_too_old);
	assert_false(v->cvd_hides_all);
}

/* a consumer card gets no forward compatibility */
static void f_too_old_consumer(struct env_facts *f)
{
	f_too_old(f);
	snprintf(f->gpus[0].name, sizeof(f->gpus[0].name), "NVIDIA GeForce RTX 3090");
	f->gpus[0].mem_total = (uint64_t)(24576 * MiB);
}

static void c_too_old_consumer(const struct env_report *r)
{
	assert_false(get(r, "torch", ENV_FAIL, ENV_F_DRIVER_TOO_OLD)->datacenter);
}

/* -- newer CUDA in the same major: runs, with the limits of minor version compatibility -- */
static void f_minor_compat(struct env_facts *f)
{
	host_ok(f);
	driver(f, "535.104.05", 12, 2);
	gpu(f, "NVIDIA L40S", 46068 * MiB, 8, 9);
	fw(f, "torch", "2.5.1+cu124", "12.4", 1, "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90");
	fw(f, "jax", "0.4.35", "12", 1, "");
	fw(f, "tensorflow", "2.18.0", "12.5.1", 1, "");
}

static void c_minor_compat(const struct env_report *r)
{
	const struct env_finding *v = get(r, "torch", ENV_WARN, ENV_F_FW_MINOR_COMPAT);

	assert_string_equal(v->need, "550.54.14");
	assert_string_equal(v->dmax, "12.2");
	assert_true(v->compat_covers);
	v = get(r, "jax", ENV_OK, ENV_F_FW_DRIVER_OK_FAMILY);
	assert_string_equal(v->compat, "525.60.13");
	assert_string_equal(get(r, "tensorflow", ENV_WARN, ENV_F_FW_MINOR_COMPAT)->need, "555.42.06");
}

/* jax for CUDA 12 on an 11.x driver: below the family's minimum */
static void f_jax_too_old(struct env_facts *f)
{
	f_minor_compat(f);
	driver(f, "520.61.05", 11, 8);
}

static void c_jax_too_old(const struct env_report *r)
{
	const struct env_finding *v = get(r, "jax", ENV_FAIL, ENV_F_DRIVER_TOO_OLD);

	assert_string_equal(v->need, "525.60.13");
	assert_string_equal(v->fw, "jax");
	assert_string_equal(v->dmax, "11.8");
}

/* -- acceptance 2: no NVML at all (a CPU box, or a container without --gpus) -- */
static void f_no_nvml(struct env_facts *f)
{
	host_ok(f);
	snprintf(f->nvml_error, sizeof(f->nvml_error),
		 "no NVIDIA driver library (libnvidia-ml.so.1) on this machine: 0 GPUs");
	fw(f, "torch", "2.5.1+cu124", "12.4", 0, "");
}

static void c_no_nvml(const struct env_report *r)
{
	assert_string_equal(get(r, "driver", ENV_WARN, ENV_F_NO_DRIVER)->text,
			    "no NVIDIA driver library (libnvidia-ml.so.1) on this machine: 0 GPUs");
	assert_string_equal(get(r, "torch", ENV_WARN, ENV_F_FW_NO_DRIVER)->cuda, "12.4");
}

/* no python either: still a report, and it says so */
static void f_no_python(struct env_facts *f)
{
	f_no_nvml(f);
	f->python = false;
	f->nfw = 0;
	snprintf(f->python_error, sizeof(f->python_error), "python3 not found on PATH");
}

static void c_no_python(const struct env_report *r)
{
	assert_string_equal(get(r, "python", ENV_INFO, ENV_F_NO_PYTHON)->text,
			    "python3 not found on PATH");
}

/* -- acceptance 2: a small /dev/shm (docker's default 64 MiB), a smallish one, none -- */
static void f_shm_64m(struct env_facts *f)
{
	host_ok(f);
	f->shm_total = f->shm_free = (uint64_t)(64 * MiB);
}

static void c_shm_64m(const struct env_report *r)
{
	const struct env_finding *v = get(r, "shm", ENV_FAIL, ENV_F_SHM_SMALL);

	assert_string_equal(v->path, "/dev/shm");
	assert_num(v->free_bytes, 64 * MiB);
	assert_num(v->total_bytes, 64 * MiB);
}

static void f_shm_512m(struct env_facts *f)
{
	host_ok(f);
	f->shm_total = f->shm_free = (uint64_t)(512 * MiB);
}

static void f_shm_missing(struct env_facts *f)
{
	host_ok(f);
	f->shm_exists = false;
}

/* -- full disks: one below 1 GiB, one below 20 GiB, one missing, one unreadable -- */
static void f_disk(struct env_facts *f)
{
	static const char *const path[] = {"/ckpt", "/logs", "/secret"};

	host_ok(f);
	f->ndirs = 4;
	f->dirs[0].free_bytes = (uint64_t)(0.5 * GiB);
	for (size_t i = 1; i < 4; i++) {
		snprintf(f->dirs[i].role, sizeof(f->dirs[i].role), "dir");
		snprintf(f->dirs[i].path, sizeof(f->dirs[i].path), "%s", path[i - 1]);
	}
	f->dirs[1].exists = true;
	f->dirs[1].free_bytes = (uint64_t)(10 * GiB);
	f->dirs[1].total_bytes = (uint64_t)(50 * GiB);
	snprintf(f->dirs[3].error, sizeof(f->dirs[3].error), "Permission denied");
}

static void c_disk(const struct env_report *r)
{
	const struct env_finding *v = get(r, "disk", ENV_FAIL, ENV_F_DISK_LOW);

	assert_string_equal(v->path, "/workspace");
	assert_num(v->free_bytes, 0.5 * GiB);
	v = get(r, "disk", ENV_WARN, ENV_F_DISK_LOW);
	assert_string_equal(v->path, "/ckpt");
	assert_string_equal(v->role, "dir");
	assert_num(v->free_bytes, 10 * GiB);
	assert_num(v->total_bytes, 50 * GiB);
	assert_string_equal(get(r, "disk", ENV_WARN, ENV_F_DIR_MISSING)->path, "/logs");
	assert_string_equal(get(r, "disk", ENV_WARN, ENV_F_DIR_ERROR)->text, "Permission denied");
}

/* -- four GPUs on 8 cores and 128 GiB of a 2 TiB host -- */
static void f_cpu_ram(struct env_facts *f)
{
	host_ok(f);
	driver(f, "550.54.15", 12, 4);
	for (int i = 0; i < 4; i++)
		gpu(f, "NVIDIA A100-SXM4-80GB", 81920 * MiB, 8, 0);
	f->cpus = 8;
	f->cpus_online = 192;
	f->ram_total = (uint64_t)(128 * GiB);
	f->ram_host = (uint64_t)(2048 * GiB);
}

static void c_cpu_ram(const struct env_report *r)
{
	const struct env_finding *v = get(r, "cpu", ENV_WARN, ENV_F_CPU_FEW);

	assert_int_equal(v->cpus, 8);
	assert_int_equal(v->cpus_online, 192);
	assert_int_equal(v->ngpus, 4);
	assert_int_equal(v->cpus_per_gpu, 4);
	v = get(r, "ram", ENV_WARN, ENV_F_RAM_LOW);
	assert_num(v->ram_total, 128 * GiB);
	assert_num(v->gpu_mem, 4 * 81920 * MiB);
	assert_num(v->ram_host, 2048 * GiB);
	/* four of one kind: one driver line, four GPU lines */
	assert_int_equal(get(r, "gpu3", ENV_OK, ENV_F_GPU_WHOLE)->gpu_index, 3);
}

/* -- a CPU-only torch on a GPU box; a CUDA torch with CUDA_VISIBLE_DEVICES='' -- */
static void f_cpu_only(struct env_facts *f)
{
	host_ok(f);
	driver(f, "550.54.15", 12, 4);
	gpu(f, "NVIDIA A10G", 23028 * MiB, 8, 6);
	fw(f, "torch", "2.5.1+cpu", "", 0, "");
}

static void c_cpu_only(const struct env_report *r)
{
	const struct env_finding *v = get(r, "torch", ENV_FAIL, ENV_F_FW_CPU_ONLY);

	assert_string_equal(v->version, "2.5.1+cpu");
	assert_int_equal(v->ngpus, 1);
	assert_string_equal(v->dmax, "12.4");
}

static void f_hidden(struct env_facts *f)
{
	f_cpu_only(f);
	f->nfw = 0;
	fw(f, "torch", "2.5.1+cu124", "12.4", 0, "");
	f->cvd_set = true;
	f->cuda_visible_devices[0] = '\0';
}

static void c_hidden(const struct env_report *r)
{
	const struct env_finding *v = get(r, "torch", ENV_FAIL, ENV_F_FW_NO_GPU);

	assert_true(v->cvd_hides_all);
	assert_false(v->driver_too_old);
	assert_string_equal(v->cvd, "");
}

/* -- an RTX 5090 with a torch built before Blackwell; PTX-only; a CUDA 13 build on a V100 -- */
static void f_blackwell(struct env_facts *f)
{
	host_ok(f);
	driver(f, "570.124.06", 12, 8);
	gpu(f, "NVIDIA GeForce RTX 5090", 32607 * MiB, 12, 0);
	fw(f, "torch", "2.4.1+cu124", "12.4", 1, "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90");
}

static void c_blackwell(const struct env_report *r)
{
	const struct env_finding *v = get(r, "torch", ENV_FAIL, ENV_F_FW_NO_KERNELS);

	assert_int_equal(v->gpu.cc_major, 12);
	assert_int_equal(v->gpu.cc_minor, 0);
	assert_string_equal(v->gpu.name, "NVIDIA GeForce RTX 5090");
	assert_string_equal(v->first_cuda, "12.8");
	assert_string_equal(v->arch, "Blackwell");
	assert_string_equal(v->text, "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90");
}

static void f_ptx_only(struct env_facts *f)
{
	f_blackwell(f);
	snprintf(f->fw[0].archs, sizeof(f->fw[0].archs), "sm_80 sm_90 compute_90");
}

/* without an arch list, the table */
static void f_before_arch(struct env_facts *f)
{
	f_blackwell(f);
	f->nfw = 0;
	fw(f, "tensorflow", "2.17.0", "12.3", 1, "");
}

static void c_before_arch(const struct env_report *r)
{
	const struct env_finding *v = get(r, "tensorflow", ENV_WARN, ENV_F_FW_CUDA_BEFORE_ARCH);

	assert_string_equal(v->cuda, "12.3");
	assert_string_equal(v->first_cuda, "12.8");
}

static void f_dropped(struct env_facts *f)
{
	host_ok(f);
	driver(f, "580.65.06", 13, 0);
	gpu(f, "Tesla V100-SXM2-16GB", 16160 * MiB, 7, 0);
	fw(f, "tensorflow", "2.99.0", "13.0", 1, "");
}

static void c_dropped(const struct env_report *r)
{
	const struct env_finding *v = get(r, "tensorflow", ENV_FAIL, ENV_F_FW_ARCH_DROPPED);

	assert_string_equal(v->last_cuda, "12.9");
	assert_string_equal(v->arch, "Volta");
	assert_int_equal(v->gpu.cc_major, 7);
}

/* -- a framework CUDA newer than the data; a system CUDA newer than the driver -- */
static void f_system_cuda(struct env_facts *f)
{
	host_ok(f);
	driver(f, "550.54.15", 12, 4);
	gpu(f, "NVIDIA H200", 143771 * MiB, 9, 0);
	fw(f, "torch", "3.0.0", "14.1", 1, "sm_90");
	f->cudart_version = 13000;
	snprintf(f->cudart_lib, sizeof(f->cudart_lib), "libcudart.so.13");
	snprintf(f->nvcc_version, sizeof(f->nvcc_version), "13.0");
}

static void c_system_cuda(const struct env_report *r)
{
	const struct env_finding *v = get(r, "cuda", ENV_INFO, ENV_F_CUDA_SYSTEM);

	assert_string_equal(v->cuda, "13.0");
	assert_string_equal(v->lib, "libcudart.so.13");
	assert_string_equal(v->nvcc, "13.0");
	v = get(r, "cuda", ENV_WARN, ENV_F_CUDART_TOO_NEW);
	assert_string_equal(v->need, "580.65.06");
	assert_false(v->compat_covers);   /* 13.x needs 580 for minor compat too */
	assert_null(find(r, "cuda", ENV_WARN, ENV_F_NVCC_TOO_NEW));   /* the same CUDA: once */
	assert_string_equal(get(r, "torch", ENV_WARN, ENV_F_FW_CUDA_UNKNOWN)->cuda, "14.1");
}

/* nvcc alone, newer than the driver but inside its family */
static void f_nvcc(struct env_facts *f)
{
	f_system_cuda(f);
	f->cudart_version = 0;
	snprintf(f->nvcc_version, sizeof(f->nvcc_version), "12.6");
	f->nfw = 0;
}

static void c_nvcc(const struct env_report *r)
{
	const struct env_finding *v = get(r, "cuda", ENV_WARN, ENV_F_NVCC_TOO_NEW);

	assert_string_equal(v->cuda, "12.6");
	assert_true(v->compat_covers);
}

/* -- the driver sees no GPU; a CPU-only build there is only information -- */
static void f_driver_no_gpu(struct env_facts *f)
{
	host_ok(f);
	driver(f, "550.54.15", 12, 4);
	fw(f, "torch", "2.5.1+cpu", "", -1, "");
}

/* -- a GPU not in data/gpus.csv, a framework that sees one of two, one that fails to import -- */
static void f_odd(struct env_facts *f)
{
	host_ok(f);
	driver(f, "550.54.15", 12, 4);
	gpu(f, "Frobnitz 9000", 16 * GiB, -1, -1);
	gpu(f, "Frobnitz 9000", 16 * GiB, -1, -1);
	fw(f, "tensorflow", "2.17.0", "12.3", 1, "");
	snprintf(fw(f, "jax", "", "", -1, "")->error, sizeof(f->fw[1].error), "ImportError: jaxlib");
	f->fw[1].import_failed = true;
	f->cvd_set = true;
	snprintf(f->cuda_visible_devices, sizeof(f->cuda_visible_devices), "1");
}

static void c_odd(const struct env_report *r)
{
	const struct env_finding *v = get(r, "tensorflow", ENV_INFO, ENV_F_FW_SOME_GPUS);

	assert_int_equal(v->gpus_seen, 1);
	assert_int_equal(v->ngpus, 2);
	assert_true(v->cvd_set);
	assert_string_equal(v->cvd, "1");
	assert_string_equal(get(r, "jax", ENV_WARN, ENV_F_FW_IMPORT_FAILED)->text,
			    "ImportError: jaxlib");
	assert_string_equal(get(r, "gpu1", ENV_INFO, ENV_F_GPU_UNKNOWN)->gpu.name, "Frobnitz 9000");
	v = get(r, "python", ENV_INFO, ENV_F_PYTHON);
	assert_int_equal(v->nfws, 2);
	assert_true(v->fws[1].import_failed);
}

/* -- NVML without a driver version: a CUDA build cannot be judged -- */
static void f_driver_unknown(struct env_facts *f)
{
	host_ok(f);
	driver(f, "", -1, -1);
	gpu(f, "NVIDIA H100 80GB HBM3", 81559 * MiB, 9, 0);
	fw(f, "torch", "2.5.1+cu124", "12.4", -1, "");
}

#define W(t, l, c) {(t), ENV_##l, ENV_F_##c}
#define NONE(t, l) {(t), ENV_##l, ENV_F_COUNT}

static const struct env_case cases[] = {
	{"whole card", f_whole_card, {W("driver", OK, DRIVER), W("gpu0", OK, GPU_WHOLE),
	 W("gpu0", INFO, GPU), W("torch", OK, FW_DRIVER_OK), W("shm", OK, SHM_OK),
	 W("cuda", INFO, CUDA_NONE)}, {{0}}, ENV_OK, c_whole_card},
	{"MIG slice", f_mig_slice, {W("gpu0", WARN, GPU_MIG)}, {NONE("gpu0", OK)}, ENV_WARN,
	 c_mig_slice},
	{"MIG instance memory", f_mig_instance, {W("gpu0", WARN, GPU_MIG)}, {{0}}, ENV_WARN,
	 c_mig_instance},
	{"vGPU", f_vgpu, {W("gpu0", WARN, GPU_VGPU)}, {NONE("gpu0", OK)}, ENV_WARN, c_vgpu},
	{"passthrough", f_passthrough, {W("gpu0", OK, GPU_WHOLE)}, {{0}}, ENV_OK, c_passthrough},
	{"sliced by memory", f_sliced, {W("gpu0", WARN, GPU_SLICED)}, {NONE("gpu0", OK)}, ENV_WARN,
	 c_sliced},
	{"busy", f_busy, {W("gpu0", OK, GPU_WHOLE), W("gpu0", WARN, GPU_BUSY)}, {{0}}, ENV_WARN,
	 c_busy},
	{"PCIe", f_pcie, {W("gpu0", WARN, PCIE_GEN), W("gpu0", WARN, PCIE_WIDTH)}, {{0}}, ENV_WARN,
	 c_pcie},
	{"driver too old", f_too_old, {W("torch", FAIL, DRIVER_TOO_OLD), W("torch", FAIL, FW_NO_GPU)},
	 {{0}}, ENV_FAIL, c_too_old},
	{"driver too old, consumer card", f_too_old_consumer, {W("torch", FAIL, DRIVER_TOO_OLD)},
	 {{0}}, ENV_FAIL, c_too_old_consumer},
	{"minor version compatibility", f_minor_compat, {W("torch", WARN, FW_MINOR_COMPAT),
	 W("jax", OK, FW_DRIVER_OK_FAMILY), W("tensorflow", WARN, FW_MINOR_COMPAT)},
	 {NONE("torch", FAIL)}, ENV_WARN, c_minor_compat},   /* sm_86 cubin runs on 8.9 */
	{"jax below its family", f_jax_too_old, {W("jax", FAIL, DRIVER_TOO_OLD)}, {{0}}, ENV_FAIL,
	 c_jax_too_old},
	{"no NVML", f_no_nvml, {W("driver", WARN, NO_DRIVER), W("torch", WARN, FW_NO_DRIVER)},
	 {NONE("cpu", WARN), NONE("ram", WARN)}, ENV_WARN, c_no_nvml},
	{"no python", f_no_python, {W("python", INFO, NO_PYTHON)}, {{0}}, ENV_WARN, c_no_python},
	{"shm 64 MiB", f_shm_64m, {W("shm", FAIL, SHM_SMALL)}, {{0}}, ENV_FAIL, c_shm_64m},
	{"shm 512 MiB", f_shm_512m, {W("shm", WARN, SHM_SMALL)}, {NONE("shm", FAIL)}, ENV_WARN, NULL},
	{"shm missing", f_shm_missing, {W("shm", WARN, SHM_MISSING)}, {{0}}, ENV_WARN, NULL},
	{"disk", f_disk, {W("disk", FAIL, DISK_LOW), W("disk", WARN, DISK_LOW),
	 W("disk", WARN, DIR_MISSING), W("disk", WARN, DIR_ERROR)}, {{0}}, ENV_FAIL, c_disk},
	{"CPU and RAM", f_cpu_ram, {W("cpu", WARN, CPU_FEW), W("ram", WARN, RAM_LOW)}, {{0}},
	 ENV_WARN, c_cpu_ram},
	{"CPU-only build", f_cpu_only, {W("torch", FAIL, FW_CPU_ONLY), W("ram", OK, RAM_OK)}, {{0}},
	 ENV_FAIL, c_cpu_only},
	{"CUDA_VISIBLE_DEVICES hides all", f_hidden, {W("torch", OK, FW_DRIVER_OK),
	 W("torch", FAIL, FW_NO_GPU)}, {{0}}, ENV_FAIL, c_hidden},
	{"Blackwell, torch without sm_120", f_blackwell, {W("torch", FAIL, FW_NO_KERNELS)}, {{0}},
	 ENV_FAIL, c_blackwell},
	{"Blackwell, PTX only", f_ptx_only, {W("torch", WARN, FW_PTX_ONLY)}, {NONE("torch", FAIL)},
	 ENV_WARN, NULL},
	{"Blackwell, CUDA too old", f_before_arch, {W("tensorflow", WARN, FW_CUDA_BEFORE_ARCH)},
	 {{0}}, ENV_WARN, c_before_arch},
	{"Volta, CUDA 13", f_dropped, {W("tensorflow", FAIL, FW_ARCH_DROPPED)}, {{0}}, ENV_FAIL,
	 c_dropped},
	{"system CUDA", f_system_cuda, {W("cuda", WARN, CUDART_TOO_NEW), W("cuda", INFO, CUDA_SYSTEM),
	 W("torch", WARN, FW_CUDA_UNKNOWN)}, {NONE("cuda", FAIL)}, ENV_WARN, c_system_cuda},
	{"nvcc alone", f_nvcc, {W("cuda", WARN, NVCC_TOO_NEW)}, {{0}}, ENV_WARN, c_nvcc},
	{"driver without GPUs", f_driver_no_gpu, {W("driver", OK, DRIVER),
	 W("driver", WARN, DRIVER_NO_GPU), W("torch", INFO, FW_CPU_ONLY_NO_GPU)}, {{0}}, ENV_WARN,
	 NULL},
	{"unknown GPUs, some seen", f_odd, {W("gpu0", INFO, GPU_UNKNOWN),
	 W("tensorflow", INFO, FW_SOME_GPUS), W("jax", WARN, FW_IMPORT_FAILED)}, {{0}}, ENV_WARN,
	 c_odd},
	{"driver version unknown", f_driver_unknown, {W("torch", INFO, FW_DRIVER_UNKNOWN)},
	 {NONE("torch", WARN)}, ENV_OK, NULL},
};

static void test_case(void **state)
{
	const struct env_case *c = *state;
	struct env_facts f;
	struct env_report r;

	envcheck_facts_init(&f);
	c->facts(&f);
	judge(&f, &r);
	for (size_t i = 0; i < r.n; i++)
		seen[r.v[i].code] = true;
	for (const struct want *w = c->want; w->topic; w++)
		get(&r, w->topic, w->lv, w->code);
	for (const struct want *w = c->none; w->topic; w++)
		if (find(&r, w->topic, w->lv, ENV_F_COUNT)) {
			dump(&r);
			fail_msg("%s: unexpected %s finding on %s", c->name, env_level_name(w->lv), w->topic);
		}
	if (c->worst >= 0)
		assert_int_equal(r.worst, c->worst);
	if (c->check)
		c->check(&r);
	envcheck_report_free(&r);
}

/* The cases between them find every code, and every code has a name. */
static void test_every_code(void **s)
{
	(void)s;
	for (int c = 0; c < ENV_F_COUNT; c++) {
		if (!seen[c])
			fail_msg("no case finds %s (code %d)", env_code_name((enum env_code)c), c);
		assert_string_not_equal(env_code_name((enum env_code)c), "?");
		for (int k = 0; k < c; k++)
			assert_string_not_equal(env_code_name((enum env_code)c),
						env_code_name((enum env_code)k));
	}
	assert_string_equal(env_code_name(ENV_F_DRIVER_TOO_OLD), "driver_too_old");
	assert_string_equal(env_code_name(ENV_F_SHM_SMALL), "shm_small");
	assert_string_equal(env_code_name(ENV_F_COUNT), "?");
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_version_cmp),
		cmocka_unit_test(test_driver_table),
		cmocka_unit_test(test_arch_table),
		cmocka_unit_test(test_bad_tables),
		cmocka_unit_test(test_find_gpu),
	};
	enum { NFIXED = ARRAY_SIZE(fixed), NCASES = ARRAY_SIZE(cases) };
	struct CMUnitTest tests[NFIXED + NCASES + 1];

	memcpy(tests, fixed, sizeof(fixed));
	for (size_t i = 0; i < NCASES; i++)
		tests[NFIXED + i] = (struct CMUnitTest){cases[i].name, test_case, NULL, NULL,
							(void *)&cases[i]};
	tests[NFIXED + NCASES] = (struct CMUnitTest)cmocka_unit_test(test_every_code);
	return _cmocka_run_group_tests("envcheck", tests, NFIXED + NCASES + 1, setup, teardown);
}
