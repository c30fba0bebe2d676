/*
 * nvml.h - NVIDIA's management library (NVML) behind a narrow door. The
 * library is loaded at run time (src/os/dl.h), nvtop's way: no vendor header,
 * a table of function pointers, `_v2`/`_v3` symbols tried before plain
 * ones, required and optional symbols. No library, no driver or no GPU
 * means 0 GPUs and a sentence saying why, never a crash.
 *
 * Every function accepts a NULL handle (the "no NVML" case) and then
 * reports 0 devices or "unknown". Unknown integer readings are -1.
 * Nothing here prints; messages go into caller-supplied buffers.
 */
#ifndef GPURENT_NVML_H
#define GPURENT_NVML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "os/dl.h"

/* A loaded, initialised NVML. Opaque. */
struct nvml;

/* nvmlGpuVirtualizationMode_t, with -1 for unknown / not supported. */
enum nvml_virt_mode {
	NVML_VIRT_UNKNOWN = -1,
	NVML_VIRT_NONE = 0,         /* bare metal */
	NVML_VIRT_PASSTHROUGH = 1,  /* the whole GPU passed through to a VM */
	NVML_VIRT_VGPU = 2,         /* a vGPU: a time- or memory-sliced share */
	NVML_VIRT_HOST_VGPU = 3,    /* the host side of vGPU */
	NVML_VIRT_HOST_VSGA = 4,    /* the host side of vSGA */
};

/* The static description of one device (nvml_device_info). */
struct nvml_device_info {
	unsigned index;          /* NVML index (not CUDA's, which may be reordered) */
	char name[96];           /* "NVIDIA H100 80GB HBM3"; "" if unknown */
	char uuid[96];           /* "GPU-8f1c..." ; "" if unknown */
	char pci_bus_id[32];     /* "00000000:3B:00.0"; "" if unknown */
	unsigned pci_device_id;  /* combined device and vendor id (0x233010de); 0 unknown */
	unsigned pci_subsystem_id;
	uint64_t mem_total;      /* bytes; 0 if unknown */
	uint64_t mem_used;       /* bytes */
	uint64_t mem_free;       /* bytes */
	int util_gpu;            /* percent of the last sample period, -1 unknown */
	int util_mem;            /* memory-controller busy percent, -1 unknown */
	int mig_current;         /* MIG mode now: 1 enabled, 0 disabled, -1 unsupported */
	int mig_pending;         /* MIG mode after the next reset, same encoding */
	int virt_mode;           /* enum nvml_virt_mode */
	int cc_major, cc_minor;  /* CUDA compute capability (9, 0), -1 unknown */
	int pcie_gen, pcie_gen_max;     /* current and maximum PCIe generation, -1 unknown */
	int pcie_width, pcie_width_max; /* current and maximum link width (lanes), -1 unknown */
	int nvlink_active;       /* NVLink links active, -1 unknown (0 = none active) */
	int mig_instances;       /* MIG instances this process can open (MIG on), else 0 */
	uint64_t mig_mem_total;  /* their memory together, bytes; 0 none or unknown */
};

/* What the guard reads every poll: cheap, two or three NVML calls. */
struct nvml_sample {
	int util_gpu;            /* percent, -1 unknown */
	int util_mem;            /* percent, -1 unknown */
	uint64_t mem_used;       /* bytes, 0 unknown (with mem_total 0) */
	uint64_t mem_total;      /* bytes, 0 unknown */
};

/*
 * Load libnvidia-ml.so.1 (then libnvidia-ml.so) from the dynamic linker's
 * search path (LD_LIBRARY_PATH selects a fake one in tests), or the file
 * named by $GPURENT_NVML_LIB ("none" or "": no NVML at all), resolve its
 * symbols and call nvmlInit. Returns 0 with *out set (caller releases with
 * nvml_close()), or -1 with *out = NULL and one sentence in err saying why
 * there is no NVML ("no NVIDIA driver library (libnvidia-ml.so.1) on this
 * machine: 0 GPUs"). A missing optional symbol is not an error.
 */
int nvml_open(struct nvml **out, char *err, size_t errlen);

/* nvmlShutdown and dlclose. NULL is fine. */
void nvml_close(struct nvml *n);

/* The file name that was loaded ("libnvidia-ml.so.1"); "" for NULL. Borrowed
 * until nvml_close(). */
const char *nvml_library(const struct nvml *n);

/* Number of devices NVML sees; 0 for NULL or on error. */
unsigned nvml_device_count(const struct nvml *n);

/* Driver version ("550.54.15") into buf. Returns 0, or -1 (buf = ""). */
int nvml_driver_version(const struct nvml *n, char *buf, size_t len);

/*
 * The newest CUDA version the driver supports (nvmlSystemGetCudaDriverVersion:
 * 12040 -> major 12, minor 4). Returns 0, or -1 with both set to -1.
 */
int nvml_cuda_driver_version(const struct nvml *n, int *major, int *minor);

/*
 * Describe device `index` into *out (every field set; unknown ones as
 * documented above). Returns 0, or -1 with a sentence in err when the
 * device cannot be opened at all (bad index, GPU lost).
 */
int nvml_device_info(const struct nvml *n, unsigned index, struct nvml_device_info *out,
		     char *err, size_t errlen);

/*
 * Utilization and memory of device `index` now. Returns 0, or -1 when the
 * device cannot be opened (fields then unknown).
 */
int nvml_device_sample(const struct nvml *n, unsigned index, struct nvml_sample *out);

/*
 * The GPU memory that processes pids[0..npids) hold on device `index`
 * (nvmlDeviceGetComputeRunningProcesses_v3, else _v2, else the plain
 * call): their usedGpuMemory summed into *bytes, and how many of them
 * NVML listed into *matched. Processes NVML lists without a figure
 * (NVML_VALUE_NOT_AVAILABLE) count in *matched but add nothing. Returns 0,
 * or -1 (both 0) when the call is missing or fails. In a container NVML
 * may list the host's pids, which match none of the job's: *matched 0.
 */
int nvml_device_procs_mem(const struct nvml *n, unsigned index, const int *pids, size_t npids,
			  uint64_t *bytes, int *matched);

/* "none", "passthrough", "vGPU", "host vGPU", "host vSGA", "unknown". Static. */
const char *nvml_virt_mode_name(int mode);

#endif
