/*
 * test_envwords.c - the words of `gpurent env` (src/cmd/box/envwords.c): every
 * finding code yields a sentence, and a fix when it is a warn or a fail,
 * with no printf conversion left over; a few sentences word for word,
 * singular and plural; sentences cut to the buffer. The unit tests link
 * the core alone, so this one compiles the command layer's file into
 * itself.
 */
#include "testutil.h"

#include <ctype.h>

#include "cmd/box/envwords.h"

#define GB 1e9
#define GiB 1073741824.0
#define MiB 1048576.0

#define SET(dst, src) snprintf((dst), sizeof(dst), "%s", (src))

/* A finding with every fact set to something a sentence could state. */
static void full(struct env_finding *f, enum env_code code, enum env_level lv)
{
	memset(f, 0, sizeof(*f));
	f->code = code;
	f->level = lv;
	SET(f->topic, "torch");
	f->gpu_index = 0;
	SET(f->gpu.name, "NVIDIA H100 80GB HBM3");
	f->gpu.mem_total = (uint64_t)(81559 * MiB);
	f->gpu.mem_free = (uint64_t)(40 * GiB);
	f->gpu.mig = 1;
	f->gpu.mig_mem_total = (uint64_t)(9984 * MiB);
	f->gpu.virt = ENV_VIRT_VGPU;
	f->gpu.cc_major = 9;
	f->gpu.pcie_gen = f->gpu.pcie_gen_max = 3;
	f->gpu.pcie_width = f->gpu.pcie_width_max = 8;
	f->gpu.nvlink_active = 18;
	SET(f->spec, "NVIDIA H100 SXM");
	f->nominal = 80 * GB;
	f->spec_pcie_gen = 5;
	f->sliced = true;
	SET(f->driver, "535.104.05");
	SET(f->dmax, "12.2");
	SET(f->fw, "torch");
	SET(f->version, "2.5.1+cu124");
	SET(f->cuda, "12.4");
	SET(f->need, "550.54.14");
	SET(f->compat, "525.60.13");
	f->compat_covers = f->datacenter = true;
	SET(f->nvcc, "12.4");
	SET(f->lib, "libcudart.so.12");
	SET(f->arch, "Hopper");
	SET(f->first_cuda, "11.8");
	SET(f->last_cuda, "12.9");
	f->nfws = 2;
	SET(f->fws[0].name, "torch");
	f->fws[0].installed = true;
	SET(f->fws[0].version, "2.5.1+cu124");
	SET(f->fws[0].cuda, "12.4");
	SET(f->fws[1].name, "jax");
	f->ngpus = 2;
	f->gpus_seen = 1;
	f->cvd_set = true;
	SET(f->cvd, "0");
	f->cpus = 6;
	f->cpus_online = 64;
	f->cpus_per_gpu = ENV_CPUS_PER_GPU;
	f->ram_total = (uint64_t)(64 * GiB);
	f->ram_avail = (uint64_t)(60 * GiB);
	f->ram_host = (uint64_t)(512 * GiB);
	f->gpu_mem = 160 * GiB;
	SET(f->path, "/workspace");
	SET(f->role, "working");
	f->free_bytes = (uint64_t)(0.5 * GiB);
	f->total_bytes = (uint64_t)(100 * GiB);
	SET(f->text, "sm_80 sm_90");
}

/* A printf conversion that was not expanded: '%' then a flag, digit,
 * length or conversion letter ("54% of" is text). */
static bool unexpanded(const char *s)
{
	for (const char *p = strchr(s, '%'); p; p = strchr(p + 1, '%'))
		if (p[1] && (isalnum((unsigned char)p[1]) || strchr(".*%#+-", p[1])))
			return true;
	return false;
}

/* The level each code is found at (both, for the two that depend on how little is left). */
static const struct { enum env_code code; enum env_level lv; } levels[] = {
	{ENV_F_NO_DRIVER, ENV_WARN}, {ENV_F_DRIVER, ENV_OK}, {ENV_F_DRIVER_NO_GPU, ENV_WARN},
	{ENV_F_GPU, ENV_INFO}, {ENV_F_GPU_MIG, ENV_WARN}, {ENV_F_GPU_VGPU, ENV_WARN},
	{ENV_F_GPU_SLICED, ENV_WARN}, {ENV_F_GPU_WHOLE, ENV_OK}, {ENV_F_GPU_UNKNOWN, ENV_INFO},
	{ENV_F_GPU_BUSY, ENV_WARN}, {ENV_F_PCIE_GEN, ENV_WARN}, {ENV_F_PCIE_WIDTH, ENV_WARN},
	{ENV_F_CUDA_NONE, ENV_INFO}, {ENV_F_CUDA_SYSTEM, ENV_INFO},
	{ENV_F_CUDART_TOO_NEW, ENV_WARN}, {ENV_F_NVCC_TOO_NEW, ENV_WARN},
	{ENV_F_NO_PYTHON, ENV_INFO}, {ENV_F_PYTHON, ENV_INFO},
	{ENV_F_FW_IMPORT_FAILED, ENV_WARN}, {ENV_F_FW_CPU_ONLY, ENV_FAIL},
	{ENV_F_FW_CPU_ONLY_NO_GPU, ENV_INFO}, {ENV_F_FW_NO_DRIVER, ENV_WARN},
	{ENV_F_FW_DRIVER_UNKNOWN, ENV_INFO}, {ENV_F_FW_CUDA_UNKNOWN, ENV_WARN},
	{ENV_F_FW_DRIVER_OK, ENV_OK}, {ENV_F_FW_DRIVER_OK_FAMILY, ENV_OK},
	{ENV_F_FW_MINOR_COMPAT, ENV_WARN}, {ENV_F_DRIVER_TOO_OLD, ENV_FAIL},
	{ENV_F_FW_NO_GPU, ENV_FAIL}, {ENV_F_FW_SOME_GPUS, ENV_INFO},
	{ENV_F_FW_PTX_ONLY, ENV_WARN}, {ENV_F_FW_NO_KERNELS, ENV_FAIL},
	{ENV_F_FW_ARCH_DROPPED, ENV_FAIL}, {ENV_F_FW_CUDA_BEFORE_ARCH, ENV_WARN},
	{ENV_F_CPU_FEW, ENV_WARN}, {ENV_F_CPU_OK, ENV_OK}, {ENV_F_RAM_LOW, ENV_WARN},
	{ENV_F_RAM_OK, ENV_OK}, {ENV_F_SHM_MISSING, ENV_WARN}, {ENV_F_SHM_SMALL, ENV_WARN},
	{ENV_F_SHM_SMALL, ENV_FAIL}, {ENV_F_SHM_OK, ENV_OK}, {ENV_F_DIR_MISSING, ENV_WARN},
	{ENV_F_DIR_ERROR, ENV_WARN}, {ENV_F_DISK_LOW, ENV_WARN}, {ENV_F_DISK_LOW, ENV_FAIL},
	{ENV_F_DISK_OK, ENV_OK},
};

static void test_every_code(void **s)
{
	bool done[ENV_F_COUNT] = {false};
	struct env_finding f;
	char what[ENV_WHAT_MAX], fix[ENV_FIX_MAX];

	(void)s;
	for (size_t i = 0; i < ARRAY_SIZE(levels); i++) {
		const char *name = env_code_name(levels[i].code);
		full(&f, levels[i].code, levels[i].lv);
		env_word(&f, what, sizeof(what), fix, sizeof(fix));
		done[levels[i].code] = true;
		if (!what[0])
			fail_msg("%s: no sentence", name);
		if (levels[i].lv >= ENV_WARN && !fix[0])
			fail_msg("%s (%s): no fix", name, env_level_name(levels[i].lv));
		if (levels[i].lv < ENV_WARN && fix[0])
			fail_msg("%s (%s): a fix: %s", name, env_level_name(levels[i].lv), fix);
		if (unexpanded(what) || unexpanded(fix))
			fail_msg("%s: a conversion left in '%s' / '%s'", name, what, fix);
	}
	for (int c = 0; c < ENV_F_COUNT; c++)
		if (!done[c])
			fail_msg("code %d (%s) is not in levels[]", c, env_code_name((enum env_code)c));
}

/* Sentences `gpurent env` has always printed, word for word. */
static void test_sentences(void **s)
{
	static const struct {
		enum env_code code;
		enum env_level lv;
		void (*facts)(struct env_finding *f);
		const char *what, *fix;
	} cases[] = {
		{ENV_F_FW_MINOR_COMPAT, ENV_WARN, NULL,
		 "PyTorch 2.5.1+cu124 is built for CUDA 12.4, which needs driver >= 550.54.14; driver "
		 "535.104.05 runs it only through CUDA minor version compatibility: kernels shipped as "
		 "PTX for a newer CUDA cannot be JIT-compiled and features newer than CUDA 12.2 fail",
		 "(1) install a build for CUDA <= 12.2: pip install torch --index-url "
		 "https://download.pytorch.org/whl/cuXYZ with XYZ at most 122 "
		 "(pytorch.org/get-started/previous-versions lists the builds); or (2) upgrade the "
		 "NVIDIA driver to >= 550.54.14 (root on the host: in a rented container ask the "
		 "provider, or pick an offer or image with a newer driver); or (3) CUDA forward "
		 "compatibility: install NVIDIA's cuda-compat-12-4 package and put "
		 "/usr/local/cuda-12.4/compat first in LD_LIBRARY_PATH"},
		{ENV_F_SHM_SMALL, ENV_FAIL, NULL,
		 "/workspace has 512 MiB free (102400 MiB in all): PyTorch DataLoader workers die with "
		 "'bus error' / 'insufficient shared memory (shm)'",
		 "restart the container with --shm-size=16g or --ipc=host (docker), mount an emptyDir "
		 "with medium: Memory at /dev/shm (Kubernetes), or as root: mount -o remount,size=16G "
		 "/dev/shm; else DataLoader(num_workers=0), which is slow"},
		{ENV_F_GPU_SLICED, ENV_WARN, NULL,
		 "visible memory 79.6 GiB is 107% of the NVIDIA H100 SXM's 80 GB: the card is sliced "
		 "or shared",
		 "ask the provider which share of the card you rent and price it as the smaller card; "
		 "size the job for 79.6 GiB"},
		{ENV_F_CPU_FEW, ENV_WARN, NULL,
		 "6 CPU cores for 2 GPUs: fewer than 4 per GPU starves the data loader; 6 usable of the "
		 "64 the machine shows (a CPU quota or affinity: set num_workers and thread counts from "
		 "the usable number, not os.cpu_count())",
		 "set DataLoader num_workers to about cores/GPUs - 1, decode and augment offline, or "
		 "rent a box with more vCPUs per GPU"},
		{ENV_F_DRIVER, ENV_OK, NULL, "NVIDIA driver 535.104.05, runs CUDA up to 12.2; 2 GPUs", ""},
		{ENV_F_PYTHON, ENV_INFO, NULL,
		 "python 2.5.1+cu124: torch 2.5.1+cu124 for CUDA 12.4, jax not installed", ""},
	};
	struct env_finding f;
	char what[ENV_WHAT_MAX], fix[ENV_FIX_MAX];

	(void)s;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		full(&f, cases[i].code, cases[i].lv);
		env_word(&f, what, sizeof(what), fix, sizeof(fix));
		assert_string_equal(what, cases[i].what);
		assert_string_equal(fix, cases[i].fix);
	}
}

/* One GPU, one core: the singular. */
static void test_singular(void **s)
{
	struct env_finding f;
	char what[ENV_WHAT_MAX], fix[ENV_FIX_MAX];

	(void)s;
	full(&f, ENV_F_CPU_FEW, ENV_WARN);
	f.cpus = f.cpus_online = 1;
	f.ngpus = 1;
	env_word(&f, what, sizeof(what), fix, sizeof(fix));
	assert_string_equal(what, "1 CPU core for 1 GPU: fewer than 4 per GPU starves the data loader");
	full(&f, ENV_F_DRIVER, ENV_OK);
	f.ngpus = 1;
	f.driver[0] = f.dmax[0] = '\0';
	env_word(&f, what, sizeof(what), fix, sizeof(fix));
	assert_string_equal(what, "NVIDIA driver (version unknown); 1 GPU");
	full(&f, ENV_F_FW_NO_GPU, ENV_FAIL);
	f.ngpus = 1;
	f.text[0] = '\0';
	f.driver_too_old = true;
	f.cvd_hides_all = false;
	env_word(&f, what, sizeof(what), fix, sizeof(fix));
	assert_string_equal(what, "PyTorch cannot see the GPU");
	assert_string_equal(fix, "fix the driver / CUDA mismatch above");
}

/* Small buffers: cut, terminated, never overrun. */
static void test_cut(void **s)
{
	struct env_finding f;
	char what[24], fix[8];

	(void)s;
	full(&f, ENV_F_DRIVER_TOO_OLD, ENV_FAIL);
	memset(what, 'x', sizeof(what));
	memset(fix, 'x', sizeof(fix));
	env_word(&f, what, sizeof(what), fix, sizeof(fix));
	assert_string_equal(what, "PyTorch 2.5.1+cu124 is ");
	assert_string_equal(fix, "(1) ins");
	env_word(&f, what, 1, fix, 1);
	assert_string_equal(what, "");
	assert_string_equal(fix, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_code),
		cmocka_unit_test(test_sentences),
		cmocka_unit_test(test_singular),
		cmocka_unit_test(test_cut),
	};
	return cmocka_run_group_tests_name("envwords", tests, NULL, NULL);
}
