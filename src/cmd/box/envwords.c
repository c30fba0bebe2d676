/*
 * envwords.c - the sentences of `gpurent env` from the codes and facts of
 * src/core/box/envcheck.c (envwords.h). Every format string is marked with
 * _() or Q_() for translation; the text is exactly what `gpurent env`
 * has always printed (tests/cli/env.sh).
 */
#include "cmd/box/envwords.h"
#include "base/strbuf.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/i18n.h"

#define GIB 1073741824.0
#define MIB 1048576.0

const char *env_fw_title(const char *name)
{
	if (!strcmp(name, "torch"))
		return "PyTorch";
	if (!strcmp(name, "tensorflow"))
		return "TensorFlow";
	if (!strcmp(name, "jax"))
		return "JAX";
	return name;
}

/* How to get a build of framework fw for CUDA <= ver (or, ver "", a GPU
 * build at all). */
static void fix_build(struct strbuf *x, const char *fw, const char *ver)
{
	long d[3];
	int k = envcheck_version_parse(ver, d);

	if (!strcmp(fw, "torch")) {
		if (k >= 2)
			strbuf_addf(x, _("pip install torch --index-url https://download.pytorch.org/whl/cuXYZ with "
				 "XYZ at most %ld%ld (pytorch.org/get-started/previous-versions lists the "
				 "builds)"), d[0], d[1]);
		else
			strbuf_addf(x, _("pip install torch --index-url https://download.pytorch.org/whl/cuXYZ "
				 "(pytorch.org/get-started/locally)"));
	} else if (!strcmp(fw, "tensorflow")) {
		if (k >= 2)
			strbuf_addf(x, _("a TensorFlow release built for CUDA <= %s (tensorflow.org/install/source#gpu "
				 "lists each release's CUDA), or pip install 'tensorflow[and-cuda]'"), ver);
		else
			strbuf_addf(x, _("pip install 'tensorflow[and-cuda]'"));
	} else if (!strcmp(fw, "jax")) {
		if (k >= 1 && d[0] >= 12)
			strbuf_addf(x, _("pip install -U 'jax[cuda%ld]'"), d[0]);
		else
			strbuf_addf(x, _("pip install -U 'jax[cuda12]' (needs driver >= 525.60.13)"));
	} else if (k) {
		strbuf_addf(x, _("a %s build for CUDA <= %s"), fw, ver);
	} else {
		strbuf_addf(x, _("a %s build for CUDA <= the driver's"), fw);
	}
}

/* The three ways out when the driver is older than a CUDA build needs. */
static void fix_driver(struct strbuf *x, const struct env_finding *f)
{
	long c[3];

	envcheck_version_parse(f->cuda, c);
	if (f->dmax[0])
		strbuf_addf(x, _("(1) install a build for CUDA <= %s: "), f->dmax);
	else
		strbuf_addf(x, _("(1) install a build for CUDA <= what the driver runs: "));
	fix_build(x, f->fw, f->dmax);
	strbuf_addf(x, _("; or (2) upgrade the NVIDIA driver to >= %s (root on the host: in a rented "
		 "container ask the provider, or pick an offer or image with a newer driver)"), f->need);
	if (f->datacenter)
		strbuf_addf(x, _("; or (3) CUDA forward compatibility: install NVIDIA's cuda-compat-%ld-%ld "
			 "package and put /usr/local/cuda-%ld.%ld/compat first in LD_LIBRARY_PATH"),
		    c[0], c[1], c[0], c[1]);
	else
		strbuf_addf(x, _(" (CUDA forward compatibility, the third way, works on datacenter GPUs only)"));
}

/* The GPU's line: what NVML says of it. */
static void word_gpu(struct strbuf *w, const struct env_gpu *g)
{
	strbuf_addf(w, "%s", g->name[0] ? g->name : _("(unnamed GPU)"));
	if (g->mem_total)
		strbuf_addf(w, _(": %.1f GiB, %.1f GiB free"), g->mem_total / GIB, g->mem_free / GIB);
	if (g->cc_major >= 0)
		strbuf_addf(w, _("; compute capability %d.%d"), g->cc_major, g->cc_minor);
	if (g->pcie_gen > 0 && g->pcie_width > 0)
		strbuf_addf(w, _("; PCIe gen%d x%d now"), g->pcie_gen, g->pcie_width);
	if (g->pcie_gen_max > 0 && g->pcie_width_max > 0)
		strbuf_addf(w, _(" (gen%d x%d at most)"), g->pcie_gen_max, g->pcie_width_max);
	if (g->nvlink_active > 0)
		strbuf_addf(w, _("; %d NVLink links active"), g->nvlink_active);
	if (g->virt > ENV_VIRT_NONE)
		strbuf_addf(w, _("; virtualization: %s"), env_virt_name(g->virt));
}

/* The python line: python and what each framework is. */
static void word_python(struct strbuf *w, const struct env_finding *f)
{
	strbuf_addf(w, _("python %s:"), f->version[0] ? f->version : "?");
	for (size_t i = 0; i < f->nfws && i < ENV_MAX_FW; i++) {
		const struct env_fw_brief *b = &f->fws[i];
		strbuf_addf(w, "%s %s ", i ? "," : "", b->name);
		if (!b->installed)
			strbuf_addf(w, _("not installed"));
		else if (b->import_failed)
			strbuf_addf(w, _("(fails to import)"));
		else if (b->cuda[0])
			strbuf_addf(w, _("%s for CUDA %s"), b->version, b->cuda);
		else
			strbuf_addf(w, _("%s CPU-only"), b->version);
	}
}

/* The framework against a GPU's architecture. */
static void word_arch(struct strbuf *w, struct strbuf *x, const struct env_finding *f, const char *title)
{
	const struct env_gpu *g = &f->gpu;

	switch (f->code) {
	case ENV_F_FW_PTX_ONLY:
	case ENV_F_FW_NO_KERNELS:
		if (f->code == ENV_F_FW_PTX_ONLY)
			strbuf_addf(w, _("%s %s has no native kernels for sm_%d%d (%s), only PTX that the driver "
				 "compiles at start-up: slow first run, and libraries without PTX fail"),
			    title, f->version, g->cc_major, g->cc_minor, g->name);
		else
			strbuf_addf(w, _("%s %s has no kernels for sm_%d%d (%s; it has %s): CUDA calls fail with "
				 "'no kernel image is available for execution on the device'"),
			    title, f->version, g->cc_major, g->cc_minor, g->name, f->text);
		if (f->first_cuda[0])
			strbuf_addf(x, _("install a build for CUDA >= %s, the first that targets %s: "),
			    f->first_cuda, f->arch);
		else
			strbuf_addf(x, _("install a build that targets sm_%d%d: "), g->cc_major, g->cc_minor);
		fix_build(x, f->fw, "");
		break;
	case ENV_F_FW_ARCH_DROPPED:
		strbuf_addf(w, _("%s %s is built for CUDA %s, but CUDA after %s dropped %s (sm_%d%d, %s): "
			 "it has no kernels for this GPU"), title, f->version, f->cuda, f->last_cuda,
		    f->arch, g->cc_major, g->cc_minor, g->name);
		strbuf_addf(x, _("install a build for CUDA <= %s: "), f->last_cuda);
		fix_build(x, f->fw, f->last_cuda);
		break;
	case ENV_F_FW_CUDA_BEFORE_ARCH:
		strbuf_addf(w, _("%s %s is built for CUDA %s, older than CUDA %s, the first to target %s "
			 "(sm_%d%d, %s): it runs only through PTX JIT, if it ships PTX"),
		    title, f->version, f->cuda, f->first_cuda, f->arch, g->cc_major, g->cc_minor,
		    g->name);
		strbuf_addf(x, _("install a build for CUDA >= %s: "), f->first_cuda);
		fix_build(x, f->fw, "");
		break;
	default:
		break;
	}
}

/* The framework's build against the driver, and whether it sees the GPUs. */
static void word_fw(struct strbuf *w, struct strbuf *x, const struct env_finding *f)
{
	const char *title = env_fw_title(f->fw);

	switch (f->code) {
	case ENV_F_FW_IMPORT_FAILED:
		strbuf_addf(w, _("%s is installed but fails to import: %s"), title, f->text[0] ? f->text : "?");
		strbuf_addf(x, _("reinstall it in this environment (pip install --force-reinstall %s) or install "
			 "what the error names"), f->fw);
		break;
	case ENV_F_FW_CPU_ONLY:
		strbuf_addf(w, Q_("%s %s is a CPU-only build: it will not use the %zu GPU",
			  "%s %s is a CPU-only build: it will not use the %zu GPUs", f->ngpus),
		    title, f->version, f->ngpus);
		strbuf_addf(x, _("install a CUDA build: "));
		fix_build(x, f->fw, f->dmax);
		break;
	case ENV_F_FW_CPU_ONLY_NO_GPU:
		strbuf_addf(w, _("%s %s (CPU-only build)"), title, f->version);
		break;
	case ENV_F_FW_NO_DRIVER:
		strbuf_addf(w, _("%s %s is built for CUDA %s, but there is no NVIDIA driver: it runs on the CPU"),
		    title, f->version, f->cuda);
		strbuf_addf(x, _("see the driver line"));
		break;
	case ENV_F_FW_DRIVER_UNKNOWN:
		strbuf_addf(w, _("%s %s is built for CUDA %s, but the driver version is unknown: it runs on the "
			 "CPU"), title, f->version, f->cuda);
		break;
	case ENV_F_FW_CUDA_UNKNOWN:
		strbuf_addf(w, _("%s %s is built for CUDA %s, which is not in data/cuda_driver.csv (newer than "
			 "gpurent's data?): the driver check was skipped"), title, f->version, f->cuda);
		strbuf_addf(x, _("update gpurent, or add the row from NVIDIA's CUDA release notes "
			 "(table 'CUDA Toolkit and Corresponding Driver Versions')"));
		break;
	case ENV_F_FW_DRIVER_OK:
		strbuf_addf(w, _("%s %s, built for CUDA %s, runs on driver %s (needs >= %s)"), title, f->version,
		    f->cuda, f->driver, f->need);
		break;
	case ENV_F_FW_DRIVER_OK_FAMILY:
		strbuf_addf(w, _("%s %s, built for CUDA %s, runs on driver %s (CUDA %s.x needs >= %s)"), title,
		    f->version, f->cuda, f->driver, f->cuda, f->compat);
		break;
	case ENV_F_FW_MINOR_COMPAT:
		if (f->dmax[0])
			strbuf_addf(w, _("%s %s is built for CUDA %s, which needs driver >= %s; driver %s runs it "
				 "only through CUDA minor version compatibility: kernels shipped as PTX for a "
				 "newer CUDA cannot be JIT-compiled and features newer than CUDA %s fail"),
			    title, f->version, f->cuda, f->need, f->driver, f->dmax);
		else
			strbuf_addf(w, _("%s %s is built for CUDA %s, which needs driver >= %s; driver %s runs it "
				 "only through CUDA minor version compatibility: kernels shipped as PTX for a "
				 "newer CUDA cannot be JIT-compiled and features newer than CUDA the driver's "
				 "fail"), title, f->version, f->cuda, f->need, f->driver);
		fix_driver(x, f);
		break;
	case ENV_F_DRIVER_TOO_OLD:
		strbuf_addf(w, _("%s %s is built for CUDA %s, which needs driver >= %s"), title, f->version,
		    f->cuda, f->need);
		if (f->compat[0] && strcmp(f->compat, f->need))
			strbuf_addf(w, _(" (>= %s with minor version compatibility)"), f->compat);
		strbuf_addf(w, _("; driver %s runs CUDA <= %s: CUDA fails to start ('the CUDA driver version is "
			 "insufficient for CUDA runtime version')"), f->driver, f->dmax[0] ? f->dmax : "?");
		fix_driver(x, f);
		break;
	case ENV_F_FW_NO_GPU:
		strbuf_addf(w, Q_("%s cannot see the GPU", "%s cannot see the GPUs", f->ngpus), title);
		if (f->text[0])
			strbuf_addf(w, ": %s", f->text);
		if (f->cvd_hides_all)
			strbuf_addf(x, _("CUDA_VISIBLE_DEVICES='%s' hides every GPU: unset it or list the devices"),
			    f->cvd);
		else if (f->driver_too_old)
			strbuf_addf(x, _("fix the driver / CUDA mismatch above"));
		else
			strbuf_addf(x, _("python3 -c 'import torch; torch.cuda.init()' (or the framework's "
				 "equivalent) shows the error; a container started without --gpus, or "
				 "without /dev/nvidia-uvm, does this"));
		break;
	case ENV_F_FW_SOME_GPUS:
		strbuf_addf(w, _("%s sees %d of the %zu GPUs"), title, f->gpus_seen, f->ngpus);
		if (f->cvd_set)
			strbuf_addf(w, _(" (CUDA_VISIBLE_DEVICES=%s)"), f->cvd);
		break;
	default:
		word_arch(w, x, f, title);
		break;
	}
}

/* Advice shared by the /dev/shm findings that are not ok. */
static const char shm_fix[] =
	N_("restart the container with --shm-size=16g or --ipc=host (docker), mount an emptyDir "
	   "with medium: Memory at /dev/shm (Kubernetes), or as root: mount -o remount,size=16G "
	   "/dev/shm; else DataLoader(num_workers=0), which is slow");

/* CPUs, RAM, /dev/shm, disk. */
static void word_host(struct strbuf *w, struct strbuf *x, const struct env_finding *f)
{
	switch (f->code) {
	case ENV_F_CPU_FEW:
	case ENV_F_CPU_OK:
		if (f->code == ENV_F_CPU_FEW) {
			strbuf_addf(w, Q_("%ld CPU core", "%ld CPU cores", f->cpus), f->cpus);
			strbuf_addf(w, Q_(" for %zu GPU", " for %zu GPUs", f->ngpus), f->ngpus);
			strbuf_addf(w, _(": fewer than %d per GPU starves the data loader"), f->cpus_per_gpu);
			strbuf_addf(x, _("set DataLoader num_workers to about cores/GPUs - 1, decode and augment "
				 "offline, or rent a box with more vCPUs per GPU"));
		} else {
			strbuf_addf(w, _("%ld CPU cores"), f->cpus);
			if (f->ngpus)
				strbuf_addf(w, _(" (%.1f per GPU)"), (double)f->cpus / (double)f->ngpus);
		}
		if (f->cpus_online > f->cpus)
			strbuf_addf(w, _("; %ld usable of the %ld the machine shows (a CPU quota or affinity: set "
				 "num_workers and thread counts from the usable number, not os.cpu_count())"),
			    f->cpus, f->cpus_online);
		break;
	case ENV_F_RAM_LOW:
	case ENV_F_RAM_OK:
		if (f->code == ENV_F_RAM_LOW) {
			strbuf_addf(w, _("RAM %.1f GiB is less than the GPUs' %.1f GiB: loading a checkpoint that "
				 "fills the GPUs goes through host memory first"), f->ram_total / GIB,
			    f->gpu_mem / GIB);
			strbuf_addf(x, _("load with mmap (safetensors, torch.load(mmap=True)), shard the "
				 "checkpoint, or rent more RAM"));
		} else {
			strbuf_addf(w, _("RAM %.1f GiB, %.1f GiB available"), f->ram_total / GIB,
			    f->ram_avail / GIB);
		}
		if (f->ram_host > f->ram_total)
			strbuf_addf(w, _(" (a container limit: the host has %.1f GiB, and going over the limit "
				 "gets the job killed)"), f->ram_host / GIB);
		break;
	case ENV_F_SHM_MISSING:
		strbuf_addf(w, _("%s does not exist: PyTorch DataLoader workers (num_workers > 0) need shared "
			 "memory"), f->path[0] ? f->path : "/dev/shm");
		strbuf_addf(x, "%s", _(shm_fix));
		break;
	case ENV_F_SHM_SMALL:
		if (f->level == ENV_FAIL)
			strbuf_addf(w, _("%s has %.0f MiB free (%.0f MiB in all): PyTorch DataLoader workers die "
				 "with 'bus error' / 'insufficient shared memory (shm)'"), f->path,
			    f->free_bytes / MIB, f->total_bytes / MIB);
		else
			strbuf_addf(w, _("%s has %.0f MiB free (%.0f MiB in all): PyTorch DataLoader workers can "
				 "die with 'bus error' / 'insufficient shared memory (shm)'"), f->path,
			    f->free_bytes / MIB, f->total_bytes / MIB);
		strbuf_addf(x, "%s", _(shm_fix));
		break;
	case ENV_F_SHM_OK:
		strbuf_addf(w, _("%s: %.1f GiB free"), f->path, f->free_bytes / GIB);
		break;
	case ENV_F_DIR_MISSING:
	case ENV_F_DIR_ERROR:
		if (f->code == ENV_F_DIR_ERROR)
			strbuf_addf(w, "%s (%s): %s", f->path, f->role, f->text);
		else
			strbuf_addf(w, _("%s (%s): does not exist"), f->path, f->role);
		strbuf_addf(x, _("create it, or point --dir at where logs and checkpoints go"));
		break;
	case ENV_F_DISK_LOW:
		if (f->level == ENV_FAIL)
			strbuf_addf(w, _("%s (%s): only %.1f GiB free of %.1f GiB: the next checkpoint or log "
				 "write fails"), f->path, f->role, f->free_bytes / GIB, f->total_bytes / GIB);
		else
			strbuf_addf(w, _("%s (%s): only %.1f GiB free of %.1f GiB: one bf16 checkpoint of a 7B "
				 "model (14 GB) barely fits"), f->path, f->role, f->free_bytes / GIB,
			    f->total_bytes / GIB);
		strbuf_addf(x, _("free space, mount a larger volume here, keep only the last few checkpoints, "
			 "or write them to object storage"));
		break;
	case ENV_F_DISK_OK:
		strbuf_addf(w, _("%s (%s): %.1f GiB free of %.1f GiB"), f->path, f->role, f->free_bytes / GIB,
		    f->total_bytes / GIB);
		break;
	default:
		word_fw(w, x, f);
		break;
	}
}

void env_word(const struct env_finding *f, char *what, size_t whatlen, char *fix, size_t fixlen)
{
	const struct env_gpu *g = &f->gpu;
	double total = g->mem_total / GIB, nominal_gb = f->nominal / 1e9;
	struct strbuf w, x;

	strbuf_fixed(&w, what, whatlen);   /* empty; appends are cut at the end */
	strbuf_fixed(&x, fix, fixlen);
	if (!whatlen || !fixlen)
		return;
	switch (f->code) {
	case ENV_F_NO_DRIVER:
		strbuf_addf(&w, _("no NVIDIA driver: %s"), f->text[0] ? f->text : _("NVML is not available"));
		strbuf_addf(&x, _("on a GPU box: the container must be given the GPUs (docker run --gpus all, "
			  "with the NVIDIA Container Toolkit), or the driver is not installed (nvidia-smi "
			  "fails too); on a machine without a GPU there is nothing to fix"));
		break;
	case ENV_F_DRIVER:
		strbuf_addf(&w, _("NVIDIA driver %s"), f->driver[0] ? f->driver : _("(version unknown)"));
		if (f->dmax[0])
			strbuf_addf(&w, _(", runs CUDA up to %s"), f->dmax);
		strbuf_addf(&w, Q_("; %zu GPU", "; %zu GPUs", f->ngpus), f->ngpus);
		break;
	case ENV_F_DRIVER_NO_GPU:
		strbuf_addf(&w, _("the driver works but sees no GPU"));
		strbuf_addf(&x, _("check NVIDIA_VISIBLE_DEVICES of the container and nvidia-smi; a GPU that fell "
			  "off the bus needs a reboot of the host (ask the provider)"));
		break;
	case ENV_F_GPU:
		word_gpu(&w, g);
		break;
	case ENV_F_GPU_MIG:
		strbuf_addf(&w, _("MIG mode is on: you get a slice (a MIG instance) of this card"));
		if (g->mig_mem_total)
			strbuf_addf(&w, _(" with %.1f GiB"), g->mig_mem_total / GIB);
		else if (f->sliced)
			strbuf_addf(&w, _(" (%.1f GiB visible)"), total);
		if (f->nominal > 0)
			strbuf_addf(&w, _("; the whole %s has %.0f GB"), f->spec, nominal_gb);
		strbuf_addf(&w, _(", and a fraction of its compute and memory bandwidth"));
		strbuf_addf(&x, _("if you paid for a whole card, ask the provider to turn MIG off (nvidia-smi -mig "
			  "0, root on the host) or to refund the difference: MIG slices rent for a "
			  "fraction of the price; size the job for the slice (gpurent estimate --gpu with "
			  "its memory)"));
		break;
	case ENV_F_GPU_VGPU:
		strbuf_addf(&w, _("a vGPU: the card is virtualised and may be time-shared with other tenants"));
		if (g->mem_total && f->nominal > 0)
			strbuf_addf(&w, _(" (%.1f GiB visible; the whole %s has %.0f GB)"), total, f->spec,
			    nominal_gb);
		strbuf_addf(&x, _("expect less than the nominal speed: measure it with gpurent bench; if you paid "
			  "for a dedicated card, ask for passthrough or bare metal"));
		break;
	case ENV_F_GPU_SLICED:
		strbuf_addf(&w, _("visible memory %.1f GiB is %.0f%% of the %s's %.0f GB: the card is sliced or "
			  "shared"), total, 100.0 * g->mem_total / f->nominal, f->spec, nominal_gb);
		strbuf_addf(&x, _("ask the provider which share of the card you rent and price it as the smaller "
			  "card; size the job for %.1f GiB"), total);
		break;
	case ENV_F_GPU_WHOLE:
		strbuf_addf(&w, _("a whole card: %.1f GiB visible; the %s has %.0f GB"), total, f->spec,
		    nominal_gb);
		if (g->virt == ENV_VIRT_PASSTHROUGH)
			strbuf_addf(&w, _(" (passed through to a VM)"));
		break;
	case ENV_F_GPU_UNKNOWN:
		strbuf_addf(&w, _("%s is not in data/gpus.csv: memory and PCIe not compared with nominal "
			  "figures"), g->name);
		break;
	case ENV_F_GPU_BUSY:
		strbuf_addf(&w, _("%.1f GiB of %.1f GiB already in use: another process or tenant is on this "
			  "GPU"), (g->mem_total - g->mem_free) / GIB, total);
		strbuf_addf(&x, _("nvidia-smi lists the processes (inside a container it may list none although "
			  "the memory is taken); stop yours, or ask the provider: a shared card gives you "
			  "less memory and speed"));
		break;
	case ENV_F_PCIE_GEN:
		strbuf_addf(&w, _("the PCIe link reaches only gen%d (the %s supports gen%ld): host<->device "
			  "copies at most %.0f%% of the card's speed"), g->pcie_gen_max, f->spec,
		    f->spec_pcie_gen, 100.0 / (double)(1L << (f->spec_pcie_gen - g->pcie_gen_max)));
		strbuf_addf(&x, _("an older slot or riser: data loading and checkpoint copies are slower, "
			  "compute-bound training is not; measure it with gpurent bench"));
		break;
	case ENV_F_PCIE_WIDTH:
		strbuf_addf(&w, _("the PCIe link is x%d, not x16: host<->device copies at %d/16 of full speed"),
		    g->pcie_width_max, g->pcie_width_max);
		strbuf_addf(&x, _("typical of risers in marketplace rigs: fine for compute-bound work, slow for "
			  "data-heavy loading and multi-GPU training over PCIe; measure it with gpurent "
			  "bench"));
		break;
	case ENV_F_CUDA_NONE:
		strbuf_addf(&w, _("no system CUDA toolkit (no libcudart on the library path, no nvcc on PATH): "
			  "pip and conda frameworks carry their own CUDA runtime; only building CUDA "
			  "extensions needs one"));
		break;
	case ENV_F_CUDA_SYSTEM:
		strbuf_addf(&w, _("system CUDA:"));
		if (f->cuda[0])
			strbuf_addf(&w, _(" runtime %s (%s)"), f->cuda, f->lib[0] ? f->lib : "libcudart");
		if (f->nvcc[0])
			strbuf_addf(&w, _("%s nvcc %s"), f->cuda[0] ? "," : "", f->nvcc);
		break;
	case ENV_F_CUDART_TOO_NEW:
	case ENV_F_NVCC_TOO_NEW:
		if (f->code == ENV_F_CUDART_TOO_NEW)
			strbuf_addf(&w, _("the system CUDA runtime is CUDA %s, which needs driver >= %s; driver %s "
				  "runs CUDA <= %s"), f->cuda, f->need, f->driver, f->dmax[0] ? f->dmax : "?");
		else
			strbuf_addf(&w, _("the system nvcc is CUDA %s, which needs driver >= %s; driver %s runs "
				  "CUDA <= %s"), f->cuda, f->need, f->driver, f->dmax[0] ? f->dmax : "?");
		if (f->compat_covers)
			strbuf_addf(&w, _(" (minor version compatibility covers it, without PTX JIT of newer "
				  "kernels)"));
		if (f->dmax[0])
			strbuf_addf(&x, _("frameworks from pip/conda bring their own CUDA and are judged below; for "
				  "code you build yourself use a toolkit <= %s (or upgrade the driver to >= "
				  "%s)"), f->dmax, f->need);
		else
			strbuf_addf(&x, _("frameworks from pip/conda bring their own CUDA and are judged below; for "
				  "code you build yourself use a toolkit <= the driver's (or upgrade the driver "
				  "to >= %s)"), f->need);
		break;
	case ENV_F_NO_PYTHON:
		if (f->text[0])
			strbuf_addf(&w, _("no python3 to ask: %s: framework checks skipped"), f->text);
		else
			strbuf_addf(&w, _("no python3 to ask: framework checks skipped"));
		break;
	case ENV_F_PYTHON:
		word_python(&w, f);
		break;
	default:
		word_host(&w, &x, f);
		break;
	}
}
