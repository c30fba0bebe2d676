/*
 * test_envcheck.c - the verdicts of `gpurent env` on hand-made facts: a
 * whole card, a MIG slice, a vGPU, a card sliced by memory, a driver too
 * old for the framework's CUDA (with and without minor version
 * compatibility), no driver, small /dev/shm, full disks, CPU-only and
 * wrong-architecture framework builds; and the driver and architecture
 * tables read from data/.
 */
#include "testutil.h"

#include "../../src/core/envcheck.h"

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

/* The verdict on topic at level whose text (what + fix) contains needle; NULL if none. */
static const struct env_verdict *find(const struct env_report *r, const char *topic,
				      enum env_level lv, const char *needle)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct env_verdict *v = &r->v[i];
		if (strcmp(v->topic, topic) || v->level != lv)
			continue;
		if (!needle || strstr(v->what, needle) || strstr(v->fix, needle))
			return v;
	}
	return NULL;
}

static void dump(const struct env_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		fprintf(stderr, "  %-4s %-10s %s | %s\n", env_level_name(r->v[i].level), r->v[i].topic,
			r->v[i].what, r->v[i].fix);
}

#define expect(r, topic, lv, needle) do { \
	if (!find((r), (topic), (lv), (needle))) { \
		dump(r); \
		fail_msg("no %s verdict on %s containing '%s'", env_level_name(lv), (topic), \
			 (needle) ? (needle) : ""); \
	} \
} while (0)

#define expect_none(r, topic, lv) do { \
	if (find((r), (topic), (lv), NULL)) { \
		dump(r); \
		fail_msg("unexpected %s verdict on %s", env_level_name(lv), (topic)); \
	} \
} while (0)

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
	const char *full, *compat;
	char out[16];

	(void)s;
	assert_true(tables.ncuda >= 60);
	/* a framework's "12.4" needs the 12.4 GA driver; minor compat from 525.60.13 */
	assert_int_equal(envcheck_cuda_needs(&tables, "12.4", &full, &compat), 0);
	assert_string_equal(full, "550.54.14");
	assert_string_equal(compat, "525.60.13");
	/* an update row when given exactly; an unknown patch falls back to the GA */
	assert_int_equal(envcheck_cuda_needs(&tables, "12.4.1", &full, &compat), 0);
	assert_string_equal(full, "550.54.15");
	assert_int_equal(envcheck_cuda_needs(&tables, "12.4.127", &full, &compat), 0);
	assert_string_equal(full, "550.54.14");
	assert_int_equal(envcheck_cuda_needs(&tables, "12.8", &full, &compat), 0);
	assert_string_equal(full, "570.26");
	assert_int_equal(envcheck_cuda_needs(&tables, "11.8", &full, &compat), 0);
	assert_string_equal(full, "520.61.05");
	assert_string_equal(compat, "450.80.02");
	assert_int_equal(envcheck_cuda_needs(&tables, "13.0", &full, &compat), 0);
	assert_string_equal(full, "580.65.06");
	assert_string_equal(compat, "580");
	/* a major alone (jax's cuda12 plugin): only the family is known */
	assert_int_equal(envcheck_cuda_needs(&tables, "12", &full, &compat), 0);
	assert_string_equal(full, "");
	assert_string_equal(compat, "525.60.13");
	/* before CUDA 11 there is no minor version compatibility */
	assert_int_equal(envcheck_cuda_needs(&tables, "10.2", &full, &compat), 0);
	assert_string_equal(full, "440.33");
	assert_string_equal(compat, "");
	assert_int_equal(envcheck_cuda_needs(&tables, "14.1", &full, &compat), -1);
	assert_int_equal(envcheck_cuda_needs(&tables, "12.7", &full, &compat), -1);  /* no 12.7 */
	assert_int_equal(envcheck_cuda_needs(&tables, "cpu", &full, &compat), -1);

	assert_int_equal(envcheck_cuda_for_driver(&tables, "550.54.15", out, sizeof(out)), 0);
	assert_string_equal(out, "12.4");
	assert_int_equal(envcheck_cuda_for_driver(&tables, "535.104.05", out, sizeof(out)), 0);
	assert_string_equal(out, "12.2");
	assert_int_equal(envcheck_cuda_for_driver(&tables, "470.82.01", out, sizeof(out)), 0);
	assert_string_equal(out, "11.4");
	assert_int_equal(envcheck_cuda_for_driver(&tables, "580.95.05", out, sizeof(out)), 0);
	assert_string_equal(out, "13.0");
	assert_int_equal(envcheck_cuda_for_driver(&tables, "300.1", out, sizeof(out)), -1);
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
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		g = envcheck_find_gpu(&tu_gdb, cases[i].nvml, (uint64_t)(cases[i].mib * MiB));
		if (!g || strcmp(g->name, cases[i].want))
			fail_msg("%s -> %s, expected %s", cases[i].nvml, g ? g->name : "NULL", cases[i].want);
	}
	assert_null(envcheck_find_gpu(&tu_gdb, "Frobnitz 9000", 0));
	assert_null(envcheck_find_gpu(NULL, "NVIDIA H200", 0));
}

/* ---- verdicts ---- */

/* The box as paid for: whole H100, driver new enough, torch sees it. */
static void test_whole_card(void **s)
{
	struct env_facts f;
	struct env_report r;

	(void)s;
	envcheck_facts_init(&f);
	host_ok(&f);
	driver(&f, "550.54.15", 12, 4);
	gpu(&f, "NVIDIA H100 80GB HBM3", 81559 * MiB, 9, 0);
	fw(&f, "torch", "2.3.1+cu121", "12.1", 1, "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90");
	judge(&f, &r);
	expect(&r, "driver", ENV_OK, "550.54.15, runs CUDA up to 12.4; 1 GPU");
	expect(&r, "gpu0", ENV_OK, "a whole card: 79.6 GiB visible; the NVIDIA H100 SXM has 80 GB");
	expect(&r, "torch", ENV_OK, "built for CUDA 12.1, runs on driver 550.54.15 (needs >= 530.30.02)");
	expect(&r, "shm", ENV_OK, NULL);
	expect(&r, "disk", ENV_OK, "/workspace (working): 400.0 GiB free");
	expect(&r, "cpu", ENV_OK, "32 CPU cores (32.0 per GPU)");
	assert_int_equal(r.worst, ENV_OK);
	assert_int_equal(r.count[ENV_WARN] + r.count[ENV_FAIL], 0);
	envcheck_report_free(&r);
}

static void test_mig_slice(void **s)
{
	struct env_facts f;
	struct env_report r;
	struct env_gpu *g;

	(void)s;
	envcheck_facts_init(&f);
	host_ok(&f);
	driver(&f, "550.54.15", 12, 4);
	g = gpu(&f, "NVIDIA A100-SXM4-80GB", 40192 * MiB, 8, 0);
	g->mig = 1;
	judge(&f, &r);
	expect(&r, "gpu0", ENV_WARN, "MIG mode is on: you get a slice (a MIG instance) of this card "
	       "(39.2 GiB visible); the whole NVIDIA A100 80GB SXM has 80 GB");
	expect(&r, "gpu0", ENV_WARN, "nvidia-smi -mig 0");
	expect_none(&r, "gpu0", ENV_OK);
	assert_int_equal(r.worst, ENV_WARN);
	envcheck_report_free(&r);

	/* NVML reports the parent's memory; the instance's, when known, is what counts */
	g->mem_total = (uint64_t)(81920 * MiB);
	g->mig_mem_total = (uint64_t)(9984 * MiB);
	judge(&f, &r);
	expect(&r, "gpu0", ENV_WARN, "of this card with 9.8 GiB; the whole NVIDIA A100 80GB SXM");
	envcheck_report_free(&r);
}

static void test_vgpu(void **s)
{
	struct env_facts f;
	struct env_report r;
	struct env_gpu *g;

	(void)s;
	envcheck_facts_init(&f);
	host_ok(&f);
	driver(&f, "535.104.05", 12, 2);
	g = gpu(&f, "GRID A100-40C", 40960 * MiB, 8, 0);
	g->virt = ENV_VIRT_VGPU;
	judge(&f, &r);
	expect(&r, "gpu0", ENV_WARN, "a vGPU: the card is virtualised and may be time-shared");
	expect(&r, "gpu0", ENV_INFO, "virtualization: vGPU");
	expect_none(&r, "gpu0", ENV_OK);
	envcheck_report_free(&r);

	/* passthrough is a whole card in a VM: fine */
	g->virt = ENV_VIRT_PASSTHROUGH;
	snprintf(g->name, sizeof(g->name), "NVIDIA A100-PCIE-40GB");
	judge(&f, &r);
	expect(&r, "gpu0", ENV_OK, "(passed through to a VM)");
	assert_int_equal(r.worst, ENV_OK);
	envcheck_report_free(&r);
}

/* No MIG, no vGPU flag, but half the memory: shared or sliced all the same. */
static void test_sliced_by_memory_and_busy(void **s)
{
	struct env_facts f;
	struct env_report r;
	struct env_gpu *g;

	(void)s;
	envcheck_facts_init(&f);
	host_ok(&f);
	driver(&f, "550.54.15", 12, 4);
	g = gpu(&f, "NVIDIA GeForce RTX 4090", 12 * GiB, 8, 9);
	judge(&f, &r);
	expect(&r, "gpu0", ENV_WARN, "visible memory 12.0 GiB is 54% of the NVIDIA GeForce RTX 4090's 24 GB");
	envcheck_report_free(&r);

	g->mem_total = (uint64_t)(24564 * MiB);
	g->mem_free = (uint64_t)(4 * GiB);
	judge(&f, &r);
	expect(&r, "gpu0", ENV_OK, "a whole card");
	expect(&r, "gpu0", ENV_WARN, "already in use: another process or tenant");
	envcheck_report_free(&r);
}

static void test_pcie(void **s)
{
	struct env_facts f;
	struct env_report r;
	struct env_gpu *g;

	(void)s;
	envcheck_facts_init(&f);
	host_ok(&f);
	driver(&f, "550.54.15", 12, 4);
	g = gpu(&f, "NVIDIA H100 PCIe", 81559 * MiB, 9, 0);
	g->pcie_gen_max = 3;
	g->pcie_width = g->pcie_width_max = 8;
	judge(&f, &r);
	expect(&r, "gpu0", ENV_WARN, "reaches only gen3 (the NVIDIA H100 PCIe supports gen5)");
	expect(&r, "gpu0", ENV_WARN, "most 25% of the card's speed");
	expect(&r, "gpu0", ENV_WARN, "x8, not x16");
	envcheck_report_free(&r);
}

/* Acceptance 2: a driver too old for the framework's CUDA. */
static void test_driver_too_old(void **s)
{
	struct env_facts f;
	struct env_report r;
	const struct env_verdict *v;

	(void)s;
	envcheck_facts_init(&f);
	host_ok(&f);
	driver(&f, "470.82.01", 11, 4);
	gpu(&f, "NVIDIA A100-SXM4-80GB", 81920 * MiB, 8, 0);
	fw(&f, "torch", "2.4.0+cu121", "12.1", 0, "");
	judge(&f, &r);
	v = find(&r, "torch", ENV_FAIL, "needs driver >= 530.30.02 (>= 525.60.13 with minor version "
		 "compatibility); driver 470.82.01 runs CUDA <= 11.4");
	if (!v) {
		dump(&r);
		fail();
	}
	/* the three ways out, the build suggestion sized to the driver */
	assert_non_null(strstr(v->fix, "XYZ at most 114"));
	assert_non_null(strstr(v->fix, "upgrade the NVIDIA driver to >= 530.30.02"));
	assert_non_null(strstr(v->fix, "cuda-compat-12-1"));
	/* and torch not seeing the GPU points back at it */
	expect(&r, "torch", ENV_FAIL, "fix the driver / CUDA mismatch above");
	assert_int_equal(r.worst, ENV_FAIL);
	envcheck_report_free(&r);

	/* a consumer card gets no forward compatibility */
	snprintf(f.gpus[0].name, sizeof(f.gpus[0].name), "NVIDIA GeForce RTX 3090");
	f.gpus[0].mem_total = (uint64_t)(24576 * MiB);
	judge(&f, &r);
	v = find(&r, "torch", ENV_FAIL, "needs driver >= 530.30.02");
	assert_non_null(v);
	assert_null(strstr(v->fix, "cuda-compat"));
	assert_non_null(strstr(v->fix, "datacenter GPUs only"));
	envcheck_report_free(&r);
}

/* Newer CUDA in the same major: runs, with the limits of minor version compatibility. */
static void test_minor_version_compat(void **s)
{
	struct env_facts f;
	struct env_report r;

	(void)s;
	envcheck_facts_init(&f);
	host_ok(&f);
	driver(&f, "535.104.05", 12, 2);
	gpu(&f, "NVIDIA L40S", 46068 * MiB, 8, 9);
	fw(&f, "torch", "2.5.1+cu124", "12.4", 1, "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90");
	fw(&f, "jax", "0.4.35", "12", 1, "");
	fw(&f, "tensorflow", "2.18.0", "12.5.1", 1, "");
	judge(&f, &r);
	expect(&r, "torch", ENV_WARN, "needs driver >= 550.54.14; driver 535.104.05 runs it only "
	       "through CUDA minor version compatibility");
	expect(&r, "torch", ENV_WARN, "XYZ at most 122");
	expect(&r, "jax", ENV_OK, "runs on driver 535.104.05 (CUDA 12.x needs >= 525.60.13)");
	expect(&r, "tensorflow", ENV_WARN, "needs driver >= 555.42.06");
	expect_none(&r, "torch", ENV_FAIL);   /* sm_86 cubin runs on 8.9 */
	envcheck_report_free(&r);

	/* jax for CUDA 12 on an 11.x driver: below the family's minimum */
	driver(&f, "520.61.05", 11, 8);
	judge(&f, &r);
	expect(&r, "jax", ENV_FAIL, "needs driver >= 525.60.13");
	expect(&r, "jax", ENV_FAIL, "jax[cuda");
	envcheck_report_free(&r);
}

/* Acceptance 2: no NVML at all (a CPU box, or a container without --gpus). */
static void test_no_nvml(void **s)
{
	struct env_facts f;
	struct env_report r;

	(void)s;
	envcheck_facts_init(&f);
	host_ok(&f);
	snprintf(f.nvml_error, sizeof(f.nvml_error),
		 "no NVIDIA driver library (libnvidia-ml.so.1) on this machine: 0 GPUs");
	fw(&f, "torch", "2.5.1+cu124", "12.4", 0, "");
	judge(&f, &r);
	expect(&r, "driver", ENV_WARN, "no NVIDIA driver: no NVIDIA driver library (libnvidia-ml.so.1)");
	expect(&r, "driver", ENV_WARN, "--gpus all");
	expect(&r, "torch", ENV_WARN, "built for CUDA 12.4, but there is no NVIDIA driver: it runs on the CPU");
	expect_none(&r, "cpu", ENV_WARN);
	expect_none(&r, "ram", ENV_WARN);
	assert_int_equal(r.worst, ENV_WARN);
	envcheck_report_free(&r);

	/* no python either: still a report, and it says so */
	f.python = false;
	f.nfw = 0;
	snprintf(f.python_error, sizeof(f.python_error), "python3 not found on PATH");
	judge(&f, &r);
	expect(&r, "python", ENV_INFO, "no python3 to ask: python3 not found on PATH");
	envcheck_report_free(&r);
}

/* Acceptance 2: a small /dev/shm. */
static void test_shm(void **s)
{
	struct env_facts f;
	struct env_report r;

	(void)s;
	envcheck_facts_init(&f);
	host_ok(&f);
	f.shm_total = f.shm_free = (uint64_t)(64 * MiB);   /* docker's default */
	judge(&f, &r);
	expect(&r, "shm", ENV_FAIL, "/dev/shm has 64 MiB free (64 MiB in all): PyTorch DataLoader workers die");
	expect(&r, "shm", ENV_FAIL, "--shm-size=16g");
	envcheck_report_free(&r);

	f.shm_total = f.shm_free = (uint64_t)(512 * MiB);
	judge(&f, &r);
	expect(&r, "shm", ENV_WARN, "can die");
	envcheck_report_free(&r);

	f.shm_exists = false;
	judge(&f, &r);
	expect(&r, "shm", ENV_WARN, "does not exist");
	envcheck_report_free(&r);
}

static void test_disk(void **s)
{
	struct env_facts f;
	struct env_report r;

	(void)s;
	envcheck_facts_init(&f);
	host_ok(&f);
	f.ndirs = 3;
	f.dirs[0].free_bytes = (uint64_t)(0.5 * GiB);
	snprintf(f.dirs[1].role, sizeof(f.dirs[1].role), "dir");
	snprintf(f.dirs[1].path, sizeof(f.dirs[1].path), "/ckpt");
	f.dirs[1].exists = true;
	f.dirs[1].free_bytes = (uint64_t)(10 * GiB);
	f.dirs[1].total_bytes = (uint64_t)(50 * GiB);
	snprintf(f.dirs[2].role, sizeof(f.dirs[2].role), "dir");
	snprintf(f.dirs[2].path, sizeof(f.dirs[2].path), "/logs");
	judge(&f, &r);
	expect(&r, "disk", ENV_FAIL, "/workspace (working): only 0.5 GiB free");
	expect(&r, "disk", ENV_WARN, "/ckpt (dir): only 10.0 GiB free of 50.0 GiB");
	expect(&r, "disk", ENV_WARN, "/logs (dir): does not exist");
	envcheck_report_free(&r);
}

static void test_cpu_ram(void **s)
{
	struct env_facts f;
	struct env_report r;

	(void)s;
	envcheck_facts_init(&f);
	host_ok(&f);
	driver(&f, "550.54.15", 12, 4);
	for (int i = 0; i < 4; i++)
		gpu(&f, "NVIDIA A100-SXM4-80GB", 81920 * MiB, 8, 0);
	f.cpus = 8;
	f.cpus_online = 192;
	f.ram_total = (uint64_t)(128 * GiB);
	f.ram_host = (uint64_t)(2048 * GiB);
	judge(&f, &r);
	expect(&r, "cpu", ENV_WARN, "8 CPU cores for 4 GPUs: fewer than 4 per GPU");
	expect(&r, "cpu", ENV_WARN, "8 usable of the 192 the machine shows");
	expect(&r, "ram", ENV_WARN, "RAM 128.0 GiB is less than the GPUs' 320.0 GiB");
	expect(&r, "ram", ENV_WARN, "a container limit: the host has 2048.0 GiB");
	/* four of one kind: one driver line, four GPU lines */
	expect(&r, "gpu3", ENV_OK, "a whole card");
	envcheck_report_free(&r);
}

static void test_cpu_only_and_hidden(void **s)
{
	struct env_facts f;
	struct env_report r;

	(void)s;
	envcheck_facts_init(&f);
	host_ok(&f);
	driver(&f, "550.54.15", 12, 4);
	gpu(&f, "NVIDIA A10G", 23028 * MiB, 8, 6);
	fw(&f, "torch", "2.5.1+cpu", "", 0, "");
	judge(&f, &r);
	expect(&r, "torch", ENV_FAIL, "PyTorch 2.5.1+cpu is a CPU-only build: it will not use the 1 GPU");
	expect(&r, "torch", ENV_FAIL, "XYZ at most 124");
	envcheck_report_free(&r);

	f.nfw = 0;
	fw(&f, "torch", "2.5.1+cu124", "12.4", 0, "");
	f.cvd_set = true;
	f.cuda_visible_devices[0] = '\0';
	judge(&f, &r);
	expect(&r, "torch", ENV_OK, "runs on driver 550.54.15");
	expect(&r, "torch", ENV_FAIL, "CUDA_VISIBLE_DEVICES='' hides every GPU");
	envcheck_report_free(&r);
}

/* An RTX 5090 with a torch built before Blackwell; PTX-only; a CUDA 13 build on a V100. */
static void test_architecture(void **s)
{
	struct env_facts f;
	struct env_report r;

	(void)s;
	envcheck_facts_init(&f);
	host_ok(&f);
	driver(&f, "570.124.06", 12, 8);
	gpu(&f, "NVIDIA GeForce RTX 5090", 32607 * MiB, 12, 0);
	fw(&f, "torch", "2.4.1+cu124", "12.4", 1, "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90");
	judge(&f, &r);
	expect(&r, "torch", ENV_FAIL, "has no kernels for sm_120 (NVIDIA GeForce RTX 5090");
	expect(&r, "torch", ENV_FAIL, "install a build for CUDA >= 12.8, the first that targets Blackwell");
	envcheck_report_free(&r);

	snprintf(f.fw[0].archs, sizeof(f.fw[0].archs), "sm_80 sm_90 compute_90");
	judge(&f, &r);
	expect(&r, "torch", ENV_WARN, "only PTX");
	expect_none(&r, "torch", ENV_FAIL);
	envcheck_report_free(&r);

	/* without an arch list, the table: jax "12" built before 12.8 cannot be told */
	f.nfw = 0;
	fw(&f, "tensorflow", "2.17.0", "12.3", 1, "");
	judge(&f, &r);
	expect(&r, "tensorflow", ENV_WARN, "older than CUDA 12.8, the first to target Blackwell");
	envcheck_report_free(&r);

	envcheck_facts_init(&f);
	host_ok(&f);
	driver(&f, "580.65.06", 13, 0);
	gpu(&f, "Tesla V100-SXM2-16GB", 16160 * MiB, 7, 0);
	fw(&f, "tensorflow", "2.99.0", "13.0", 1, "");
	judge(&f, &r);
	expect(&r, "tensorflow", ENV_FAIL, "CUDA after 12.9 dropped Volta (sm_70");
	envcheck_report_free(&r);
}

static void test_unknown_cuda_and_system_cuda(void **s)
{
	struct env_facts f;
	struct env_report r;

	(void)s;
	envcheck_facts_init(&f);
	host_ok(&f);
	driver(&f, "550.54.15", 12, 4);
	gpu(&f, "NVIDIA H200", 143771 * MiB, 9, 0);
	fw(&f, "torch", "3.0.0", "14.1", 1, "sm_90");
	f.cudart_version = 13000;
	snprintf(f.cudart_lib, sizeof(f.cudart_lib), "libcudart.so.13");
	snprintf(f.nvcc_version, sizeof(f.nvcc_version), "13.0");
	judge(&f, &r);
	expect(&r, "torch", ENV_WARN, "not in data/cuda_driver.csv");
	expect(&r, "cuda", ENV_INFO, "system CUDA: runtime 13.0 (libcudart.so.13), nvcc 13.0");
	expect(&r, "cuda", ENV_WARN, "the system CUDA runtime is CUDA 13.0, which needs driver >= 580.65.06");
	expect_none(&r, "cuda", ENV_FAIL);
	envcheck_report_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_cmp),
		cmocka_unit_test(test_driver_table),
		cmocka_unit_test(test_arch_table),
		cmocka_unit_test(test_bad_tables),
		cmocka_unit_test(test_find_gpu),
		cmocka_unit_test(test_whole_card),
		cmocka_unit_test(test_mig_slice),
		cmocka_unit_test(test_vgpu),
		cmocka_unit_test(test_sliced_by_memory_and_busy),
		cmocka_unit_test(test_pcie),
		cmocka_unit_test(test_driver_too_old),
		cmocka_unit_test(test_minor_version_compat),
		cmocka_unit_test(test_no_nvml),
		cmocka_unit_test(test_shm),
		cmocka_unit_test(test_disk),
		cmocka_unit_test(test_cpu_ram),
		cmocka_unit_test(test_cpu_only_and_hidden),
		cmocka_unit_test(test_architecture),
		cmocka_unit_test(test_unknown_cuda_and_system_cuda),
	};
	return cmocka_run_group_tests_name("envcheck", tests, setup, teardown);
}
