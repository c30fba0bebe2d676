/*
 * nvml.c - NVML loaded through src/os/dl.h: the handful of types and constants
 * gpurent needs are declared here (no vendor header), the functions are a
 * table of pointers resolved by name, versioned names first.
 */
/* The loaders' words: translated only where `gpurent env` sets hw_tr (base/i18n.h). */
#define I18N_HOOK hw_tr
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hot.h"
#include "os/dl.h"
#include "base/i18n.h"
#include "base/util.h"
#include "hw/nvml.h"


/* NVML's ABI, as documented in NVIDIA's nvml.h (stable since driver 4xx). */
typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
#define NVML_SUCCESS 0

typedef struct {
	unsigned long long total, free, used;
} nvmlMemory_t;

typedef struct {
	unsigned int version;
	unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;
/* NVML_STRUCT_VERSION(Memory, 2) */
#define NVML_MEMORY_V2 ((unsigned int)(sizeof(nvmlMemory_v2_t) | (2u << 24)))

typedef struct {
	unsigned int gpu, memory;
} nvmlUtilization_t;

/* nvmlPciInfo_t as filled by nvmlDeviceGetPciInfo_v2 and _v3 (the plain,
 * v1 symbol has another layout and is not used). */
typedef struct {
	char busIdLegacy[16];
	unsigned int domain, bus, device;
	unsigned int pciDeviceId, pciSubSystemId;
	char busId[32];
} nvmlPciInfo_t;

#define NVML_NVLINK_MAX_LINKS 18

/* nvmlProcessInfo_v1_t, _v2_t and nvmlProcessInfo_t (the _v3 call's, with
 * the confidential-computing figure), as in NVIDIA's nvml.h. */
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_v2_t;
typedef struct {
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId, computeInstanceId;
	unsigned long long usedGpuCcProtectedMemory;
} nvmlProcessInfo_v3_t;
#define NVML_VALUE_NOT_AVAILABLE (~0ULL)
#define NVML_MAX_PROCS 256

struct nvml_fns {
	nvmlReturn_t (*init)(void);
	nvmlReturn_t (*shutdown)(void);
	const char *(*error_string)(nvmlReturn_t);
	nvmlReturn_t (*device_count)(unsigned int *);
	nvmlReturn_t (*handle_by_index)(unsigned int, nvmlDevice_t *);
	nvmlReturn_t (*name)(nvmlDevice_t, char *, unsigned int);
	nvmlReturn_t (*uuid)(nvmlDevice_t, char *, unsigned int);
	nvmlReturn_t (*memory_v2)(nvmlDevice_t, nvmlMemory_v2_t *);
	nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t *);
	nvmlReturn_t (*utilization)(nvmlDevice_t, nvmlUtilization_t *);
	nvmlReturn_t (*driver_version)(char *, unsigned int);
	nvmlReturn_t (*cuda_driver_version)(int *);
	nvmlReturn_t (*pci_info)(nvmlDevice_t, nvmlPciInfo_t *);
	nvmlReturn_t (*mig_mode)(nvmlDevice_t, unsigned int *, unsigned int *);
	nvmlReturn_t (*virt_mode)(nvmlDevice_t, int *);
	nvmlReturn_t (*compute_capability)(nvmlDevice_t, int *, int *);
	nvmlReturn_t (*pcie_gen)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*pcie_gen_max)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*pcie_width)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*pcie_width_max)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*nvlink_state)(nvmlDevice_t, unsigned int, int *);
	nvmlReturn_t (*mig_max_count)(nvmlDevice_t, unsigned int *);
	nvmlReturn_t (*mig_handle)(nvmlDevice_t, unsigned int, nvmlDevice_t *);
	nvmlReturn_t (*procs_v3)(nvmlDevice_t, unsigned int *, nvmlProcessInfo_v3_t *);
	nvmlReturn_t (*procs_v2)(nvmlDevice_t, unsigned int *, nvmlProcessInfo_v2_t *);
	nvmlReturn_t (*procs_v1)(nvmlDevice_t, unsigned int *, nvmlProcessInfo_v1_t *);
};

struct nvml {
	struct dl_lib *dl;
	struct nvml_fns f;
};

/*
 * The symbol table (dl.h): each slot with the names to try, most recent
 * first. MUST list every member of struct nvml_fns once.
 */

#define SLOT(m) offsetof(struct nvml_fns, m)
static const struct dl_sym nvml_syms[] = {
	{{"nvmlInit_v2", "nvmlInit"}, SLOT(init), true},
	{{"nvmlShutdown"}, SLOT(shutdown), true},
	{{"nvmlErrorString"}, SLOT(error_string), false},
	{{"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"}, SLOT(device_count), true},
	{{"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"}, SLOT(handle_by_index), true},
	{{"nvmlDeviceGetName"}, SLOT(name), false},
	{{"nvmlDeviceGetUUID"}, SLOT(uuid), false},
	{{"nvmlDeviceGetMemoryInfo_v2"}, SLOT(memory_v2), false},
	{{"nvmlDeviceGetMemoryInfo"}, SLOT(memory), false},
	{{"nvmlDeviceGetUtilizationRates"}, SLOT(utilization), false},
	{{"nvmlSystemGetDriverVersion"}, SLOT(driver_version), false},
	{{"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"}, SLOT(cuda_driver_version), false},
	{{"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2"}, SLOT(pci_info), false},
	{{"nvmlDeviceGetMigMode"}, SLOT(mig_mode), false},
	{{"nvmlDeviceGetVirtualizationMode"}, SLOT(virt_mode), false},
	{{"nvmlDeviceGetCudaComputeCapability"}, SLOT(compute_capability), false},
	{{"nvmlDeviceGetCurrPcieLinkGeneration"}, SLOT(pcie_gen), false},
	{{"nvmlDeviceGetMaxPcieLinkGeneration"}, SLOT(pcie_gen_max), false},
	{{"nvmlDeviceGetCurrPcieLinkWidth"}, SLOT(pcie_width), false},
	{{"nvmlDeviceGetMaxPcieLinkWidth"}, SLOT(pcie_width_max), false},
	{{"nvmlDeviceGetNvLinkState"}, SLOT(nvlink_state), false},
	{{"nvmlDeviceGetMaxMigDeviceCount"}, SLOT(mig_max_count), false},
	{{"nvmlDeviceGetMigDeviceHandleByIndex"}, SLOT(mig_handle), false},
	{{"nvmlDeviceGetComputeRunningProcesses_v3"}, SLOT(procs_v3), false},
	{{"nvmlDeviceGetComputeRunningProcesses_v2"}, SLOT(procs_v2), false},
	{{"nvmlDeviceGetComputeRunningProcesses"}, SLOT(procs_v1), false},
};
#undef SLOT

/* Library names, most specific first (the .so without a version is only in -dev packages). */
static const char *const nvml_libs[] = {"libnvidia-ml.so.1", "libnvidia-ml.so"};

static const char *nvml_strerror(const struct nvml *n, nvmlReturn_t r, char *buf, size_t len)
{
	const char *s = n && n->f.error_string ? n->f.error_string(r) : NULL;

	if (s)
		return s;
	snprintf(buf, len, "NVML error %d", r);
	return buf;
}

int nvml_open(struct nvml **out, char *err, size_t errlen)
{
	struct nvml *n;
	nvmlReturn_t r;
	char ebuf[32], why[320];
	const char *forced = getenv("GPURENT_NVML_LIB");
	const char *const *libs = nvml_libs;
	size_t nlibs = ARRAY_SIZE(nvml_libs);
	int rc;

	*out = NULL;
	if (!(n = calloc(1, sizeof(*n)))) {
		snprintf(err, errlen, _("out of memory loading NVML"));
		return -1;
	}
	if (forced && (!*forced || !strcmp(forced, "none"))) {
		snprintf(err, errlen, _("NVML turned off (GPURENT_NVML_LIB=%s): 0 GPUs"), forced);
		goto out_free;
	}
	if (forced) {
		libs = &forced;
		nlibs = 1;
	}
	rc = dl_open(libs, nlibs, nvml_syms, ARRAY_SIZE(nvml_syms), &n->f, &n->dl, why, sizeof(why));
	if (rc == DL_ENOSYM) {
		snprintf(err, errlen, _("%s (driver too old or not NVML): 0 GPUs"), why);
		goto out_free;
	}
	if (rc == DL_ENOMEM) {
		snprintf(err, errlen, _("out of memory loading NVML"));
		goto out_free;
	}
	if (rc && forced) {
		snprintf(err, errlen, _("GPURENT_NVML_LIB=%s cannot be loaded: 0 GPUs"), forced);
		goto out_free;
	}
	if (rc == DL_ELOAD) {
		snprintf(err, errlen, _("%s: 0 GPUs"), why);
		goto out_free;
	}
	if (rc) {
		snprintf(err, errlen, _("no NVIDIA driver library (libnvidia-ml.so.1) on this machine: 0 GPUs"));
		goto out_free;
	}
	if ((r = n->f.init()) != NVML_SUCCESS) {
		snprintf(err, errlen, _("NVML did not start (%s): no usable NVIDIA driver, 0 GPUs"),
			 nvml_strerror(n, r, ebuf, sizeof(ebuf)));
		goto out_dlclose;
	}
	*out = n;
	return 0;

out_dlclose:
	dl_close(n->dl);
out_free:
	free(n);
	return -1;
}

void nvml_close(struct nvml *n)
{
	if (!n)
		return;
	n->f.shutdown();
	dl_close(n->dl);
	free(n);
}

const char *nvml_library(const struct nvml *n)
{
	return n ? dl_name(n->dl) : "";
}

unsigned nvml_device_count(const struct nvml *n)
{
	unsigned int c = 0;

	if (!n || n->f.device_count(&c) != NVML_SUCCESS)
		return 0;
	return c;
}

int nvml_driver_version(const struct nvml *n, char *buf, size_t len)
{
	char v[96] = "";

	if (len)
		buf[0] = '\0';
	if (!n || !n->f.driver_version || n->f.driver_version(v, sizeof(v)) != NVML_SUCCESS)
		return -1;
	v[sizeof(v) - 1] = '\0';
	snprintf(buf, len, "%s", v);
	return 0;
}

int nvml_cuda_driver_version(const struct nvml *n, int *major, int *minor)
{
	int v = 0;

	*major = *minor = -1;
	if (!n || !n->f.cuda_driver_version || n->f.cuda_driver_version(&v) != NVML_SUCCESS || v <= 0)
		return -1;
	/* NVML_CUDA_DRIVER_VERSION_MAJOR(v) = v / 1000, MINOR = (v % 1000) / 10 */
	*major = v / 1000;
	*minor = v % 1000 / 10;
	return 0;
}

GPURENT_HOT static int nvml_handle(const struct nvml *n, unsigned index, nvmlDevice_t *dev)
{
	return n && n->f.handle_by_index(index, dev) == NVML_SUCCESS ? 0 : -1;
}

/* Memory through _v2 (which separates reserved memory) or the plain call. */
GPURENT_HOT static void nvml_memory(const struct nvml *n, nvmlDevice_t dev, uint64_t *total,
			uint64_t *used, uint64_t *freeb)
{
	*total = *used = *freeb = 0;
	if (n->f.memory_v2) {
		nvmlMemory_v2_t m = {.version = NVML_MEMORY_V2};
		if (n->f.memory_v2(dev, &m) == NVML_SUCCESS) {
			*total = m.total, *used = m.used, *freeb = m.free;
			return;
		}
	}
	if (n->f.memory) {
		nvmlMemory_t m = {0};
		if (n->f.memory(dev, &m) == NVML_SUCCESS)
			*total = m.total, *used = m.used, *freeb = m.free;
	}
}

GPURENT_HOT static void nvml_util(const struct nvml *n, nvmlDevice_t dev, int *gpu, int *mem)
{
	nvmlUtilization_t u = {0};

	*gpu = *mem = -1;
	if (n->f.utilization && n->f.utilization(dev, &u) == NVML_SUCCESS) {
		*gpu = u.gpu > 100 ? 100 : (int)u.gpu;
		*mem = u.memory > 100 ? 100 : (int)u.memory;
	}
}

/* An optional unsigned reading as int, -1 when absent or failing. */
static int nvml_uint(nvmlReturn_t (*fn)(nvmlDevice_t, unsigned int *), nvmlDevice_t dev)
{
	unsigned int v = 0;

	if (!fn || fn(dev, &v) != NVML_SUCCESS || v > 1u << 20)
		return -1;
	return (int)v;
}

int nvml_device_info(const struct nvml *n, unsigned index, struct nvml_device_info *out,
		     char *err, size_t errlen)
{
	nvmlDevice_t dev;
	nvmlPciInfo_t pci;
	unsigned int cur, pend;
	int mode, ma, mi;

	memset(out, 0, sizeof(*out));
	out->index = index;
	out->util_gpu = out->util_mem = -1;
	out->mig_current = out->mig_pending = -1;
	out->virt_mode = NVML_VIRT_UNKNOWN;
	out->cc_major = out->cc_minor = -1;
	out->pcie_gen = out->pcie_gen_max = out->pcie_width = out->pcie_width_max = -1;
	out->nvlink_active = -1;
	if (!n) {
		snprintf(err, errlen, _("no NVML: no GPU %u"), index);
		return -1;
	}
	if (nvml_handle(n, index, &dev)) {
		snprintf(err, errlen, _("GPU %u: NVML cannot open it (index out of range or GPU lost)"), index);
		return -1;
	}
	if (n->f.name && n->f.name(dev, out->name, sizeof(out->name)) != NVML_SUCCESS)
		out->name[0] = '\0';
	out->name[sizeof(out->name) - 1] = '\0';
	if (n->f.uuid && n->f.uuid(dev, out->uuid, sizeof(out->uuid)) != NVML_SUCCESS)
		out->uuid[0] = '\0';
	out->uuid[sizeof(out->uuid) - 1] = '\0';
	memset(&pci, 0, sizeof(pci));
	if (n->f.pci_info && n->f.pci_info(dev, &pci) == NVML_SUCCESS) {
		pci.busId[sizeof(pci.busId) - 1] = '\0';
		snprintf(out->pci_bus_id, sizeof(out->pci_bus_id), "%s", pci.busId);
		out->pci_device_id = pci.pciDeviceId;
		out->pci_subsystem_id = pci.pciSubSystemId;
	}
	nvml_memory(n, dev, &out->mem_total, &out->mem_used, &out->mem_free);
	nvml_util(n, dev, &out->util_gpu, &out->util_mem);
	if (n->f.mig_mode && n->f.mig_mode(dev, &cur, &pend) == NVML_SUCCESS) {
		out->mig_current = cur ? 1 : 0;
		out->mig_pending = pend ? 1 : 0;
	}
	/* With MIG on, the card's memory is the whole card's: the instances this
	 * process can open (in a container, usually the one it was given) are
	 * what it really gets. */
	if (out->mig_current == 1 && n->f.mig_max_count && n->f.mig_handle &&
	    n->f.mig_max_count(dev, &cur) == NVML_SUCCESS) {
		for (unsigned k = 0; k < cur && k < 64; k++) {
			nvmlDevice_t mdev;
			uint64_t t, u, fr;
			if (n->f.mig_handle(dev, k, &mdev) != NVML_SUCCESS)
				continue;
			nvml_memory(n, mdev, &t, &u, &fr);
			out->mig_instances++;
			out->mig_mem_total += t;
		}
	}
	if (n->f.virt_mode && n->f.virt_mode(dev, &mode) == NVML_SUCCESS && mode >= 0 && mode <= 4)
		out->virt_mode = mode;
	if (n->f.compute_capability && n->f.compute_capability(dev, &ma, &mi) == NVML_SUCCESS)
		out->cc_major = ma, out->cc_minor = mi;
	out->pcie_gen = nvml_uint(n->f.pcie_gen, dev);
	out->pcie_gen_max = nvml_uint(n->f.pcie_gen_max, dev);
	out->pcie_width = nvml_uint(n->f.pcie_width, dev);
	out->pcie_width_max = nvml_uint(n->f.pcie_width_max, dev);
	if (n->f.nvlink_state) {
		int active, seen = 0;
		out->nvlink_active = 0;
		for (unsigned l = 0; l < NVML_NVLINK_MAX_LINKS; l++)
			if (n->f.nvlink_state(dev, l, &active) == NVML_SUCCESS) {
				seen = 1;
				out->nvlink_active += active ? 1 : 0;
			}
		if (!seen)
			out->nvlink_active = -1;
	}
	return 0;
}

GPURENT_HOT int nvml_device_sample(const struct nvml *n, unsigned index, struct nvml_sample *out)
{
	nvmlDevice_t dev;
	uint64_t freeb;

	out->util_gpu = out->util_mem = -1;
	out->mem_used = out->mem_total = 0;
	if (nvml_handle(n, index, &dev))
		return -1;
	nvml_util(n, dev, &out->util_gpu, &out->util_mem);
	nvml_memory(n, dev, &out->mem_total, &out->mem_used, &freeb);
	return 0;
}

/* Add one listed process to the sums when it is one of pids. */
static void procs_add(unsigned pid, unsigned long long used, const int *pids, size_t npids,
		      uint64_t *bytes, int *matched)
{
	for (size_t i = 0; i < npids; i++)
		if ((unsigned)pids[i] == pid) {
			++*matched;
			if (used != NVML_VALUE_NOT_AVAILABLE)
				*bytes += used;
			return;
		}
}

int nvml_device_procs_mem(const struct nvml *n, unsigned index, const int *pids, size_t npids,
			  uint64_t *bytes, int *matched)
{
	nvmlDevice_t dev;
	unsigned int count = NVML_MAX_PROCS;
	nvmlReturn_t r = -1;
	void *buf;

	*bytes = 0;
	*matched = 0;
	if (nvml_handle(n, index, &dev) || !(n->f.procs_v3 || n->f.procs_v2 || n->f.procs_v1))
		return -1;
	/* the biggest layout serves all three; more than NVML_MAX_PROCS on one
	 * GPU answers INSUFFICIENT_SIZE and counts as no reading */
	if (!(buf = calloc(NVML_MAX_PROCS, sizeof(nvmlProcessInfo_v3_t))))
		return -1;
	/* the newest call first; one that fails (an older driver behind a
	 * newer library) gives way to the next */
	if (n->f.procs_v3) {
		nvmlProcessInfo_v3_t *v = buf;
		if ((r = n->f.procs_v3(dev, &count, v)) == NVML_SUCCESS)
			for (unsigned i = 0; i < count && i < NVML_MAX_PROCS; i++)
				procs_add(v[i].pid, v[i].usedGpuMemory, pids, npids, bytes, matched);
	}
	if (r != NVML_SUCCESS && n->f.procs_v2) {
		nvmlProcessInfo_v2_t *v = buf;
		count = NVML_MAX_PROCS;
		if ((r = n->f.procs_v2(dev, &count, v)) == NVML_SUCCESS)
			for (unsigned i = 0; i < count && i < NVML_MAX_PROCS; i++)
				procs_add(v[i].pid, v[i].usedGpuMemory, pids, npids, bytes, matched);
	}
	if (r != NVML_SUCCESS && n->f.procs_v1) {
		nvmlProcessInfo_v1_t *v = buf;
		count = NVML_MAX_PROCS;
		if ((r = n->f.procs_v1(dev, &count, v)) == NVML_SUCCESS)
			for (unsigned i = 0; i < count && i < NVML_MAX_PROCS; i++)
				procs_add(v[i].pid, v[i].usedGpuMemory, pids, npids, bytes, matched);
	}
	free(buf);
	if (r != NVML_SUCCESS) {
		*bytes = 0;
		*matched = 0;
		return -1;
	}
	return 0;
}

const char *nvml_virt_mode_name(int mode)
{
	static const char *const names[] = {"none", "passthrough", "vGPU", "host vGPU", "host vSGA"};

	return mode >= 0 && mode <= 4 ? names[mode] : "unknown";
}
