/*
 * envcheck.h - is this rented box what was paid for, and do its versions
 * agree? Pure verdict logic over a struct of facts that `gpurent env`
 * gathers (NVML, libcudart, nvcc, python3, /proc, statvfs): every check
 * gives ok / warn / fail and, when it is not ok, the fix. The tables it
 * judges with are data: data/cuda_driver.csv (the driver each CUDA needs)
 * and data/cuda_arch.csv (the CUDA each GPU architecture needs).
 * Thresholds and their sources: docs/env.md.
 */
#ifndef GPURENT_ENVCHECK_H
#define GPURENT_ENVCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu.h"

#define ENV_MAX_GPUS 16
#define ENV_MAX_FW 3
#define ENV_MAX_DIRS 8

/* Thresholds (docs/env.md says why each). */
#define ENV_SHM_FAIL_BYTES (256.0 * 1048576)    /* below: DataLoader workers die (bus error) */
#define ENV_SHM_WARN_BYTES (1024.0 * 1048576)   /* below: NGC's --shm-size=1g not met */
#define ENV_DISK_FAIL_BYTES (1.0 * 1073741824)  /* below: a checkpoint or log write fails */
#define ENV_DISK_WARN_BYTES (20.0 * 1073741824) /* below: a 7B model's bf16 weights do not fit */
#define ENV_SLICED_RATIO 0.9       /* visible / nominal memory below this: not a whole card */
#define ENV_BUSY_BYTES (2.0 * 1073741824) /* used memory above this (and 5%): someone is on it */
#define ENV_CPUS_PER_GPU 4         /* fewer cores per GPU starve the data loader */

enum env_level { ENV_INFO, ENV_OK, ENV_WARN, ENV_FAIL };

/* Same values as NVML's nvmlGpuVirtualizationMode_t, -1 unknown. */
enum env_virt {
	ENV_VIRT_UNKNOWN = -1,
	ENV_VIRT_NONE = 0,
	ENV_VIRT_PASSTHROUGH = 1,
	ENV_VIRT_VGPU = 2,
	ENV_VIRT_HOST_VGPU = 3,
	ENV_VIRT_HOST_VSGA = 4,
};

/* One GPU as NVML describes it. Unknown integers are -1, unknown sizes 0. */
struct env_gpu {
	char name[96];
	uint64_t mem_total, mem_free;   /* bytes */
	int mig;                        /* MIG mode: 1 on, 0 off, -1 unsupported/unknown */
	uint64_t mig_mem_total;         /* memory of the MIG instances visible; 0 unknown */
	int virt;                       /* enum env_virt */
	int cc_major, cc_minor;         /* compute capability */
	int pcie_gen, pcie_gen_max;     /* current / max for this device and slot */
	int pcie_width, pcie_width_max;
	int nvlink_active;              /* active NVLink links, -1 unknown */
};

/* A Python framework as the python3 on PATH reports it. */
struct env_framework {
	char name[16];        /* "torch", "tensorflow", "jax" */
	bool installed;       /* importable, or present but failing to import */
	bool import_failed;   /* installed but `import` raised: error says why */
	char version[48];
	char cuda[16];        /* CUDA it was built for: "12.4", "12" (jax); "" = CPU-only build */
	int gpus;             /* devices it sees; -1 unknown */
	char archs[256];      /* torch.cuda.get_arch_list(): "sm_80 sm_90 compute_90"; "" unknown */
	char error[192];      /* import or device error; "" none */
};

/* A directory whose free space matters (working, logs, checkpoints). */
struct env_dir {
	char role[16];        /* "working", "dir" */
	char path[512];
	bool exists;
	uint64_t free_bytes, total_bytes;
	char error[128];      /* why it could not be read; "" */
};

struct env_facts {
	/* NVML */
	bool nvml;                    /* loaded and initialised */
	char nvml_error[256];         /* why not (from the loader) */
	char driver[32];              /* "550.54.15"; "" unknown */
	int driver_cuda_major, driver_cuda_minor;  /* newest CUDA the driver runs; -1 unknown */
	struct env_gpu gpus[ENV_MAX_GPUS];
	size_t ngpus;
	/* CUDA on the system (not the frameworks' own copies) */
	int cudart_version;           /* cudaRuntimeGetVersion(): 12040; 0 = no libcudart */
	char cudart_lib[64];          /* the file loaded */
	char nvcc_version[16];        /* "12.4" from `nvcc --version`; "" = no nvcc on PATH */
	/* Python */
	bool python;                  /* python3 on PATH ran the probe */
	char python_version[32];
	char python_error[192];       /* why the probe failed; "" */
	struct env_framework fw[ENV_MAX_FW];
	size_t nfw;
	char cuda_visible_devices[64];  /* CUDA_VISIBLE_DEVICES as set */
	bool cvd_set;
	/* host */
	long cpus;                    /* CPUs this process may use (affinity, cgroup quota); -1 unknown */
	long cpus_online;             /* CPUs the machine shows (/proc/cpuinfo); -1 unknown */
	char cpu_model[96];
	uint64_t ram_total, ram_avail;  /* bytes this process may use (cgroup limit); 0 unknown */
	uint64_t ram_host;            /* MemTotal of /proc/meminfo; 0 unknown */
	char shm_path[256];
	bool shm_exists;
	uint64_t shm_total, shm_free;
	struct env_dir dirs[ENV_MAX_DIRS];
	size_t ndirs;
};

/* Zero f and set every integer to unknown. */
void envcheck_facts_init(struct env_facts *f);

/* ---- tables ---- */

struct env_cuda_row {
	int major, minor, update;
	char release[64];          /* "CUDA 12.4 Update 1" */
	char linux_driver[24];     /* "550.54.15" */
	char minor_compat[24];     /* "525.60.13"; "" none */
};

struct env_arch_row {
	int cc_major, cc_minor;
	char arch[32];
	char examples[96];
	char first_cuda[16], last_cuda[16];  /* "" = no bound */
};

struct env_tables {
	struct env_cuda_row *cuda;   /* owned */
	size_t ncuda;
	struct env_arch_row *arch;   /* owned */
	size_t narch;
};

/*
 * Load data/cuda_driver.csv (drv) and data/cuda_arch.csv (arch) from
 * their buffers. 0, or -1 with "fname:line: column: ..." in err and
 * nothing allocated. Caller frees with envcheck_tables_free().
 */
int envcheck_tables_load(struct env_tables *t, const char *drv, size_t drvlen,
			 const char *drvname, const char *arch, size_t archlen,
			 const char *archname, char *err, size_t errlen);
void envcheck_tables_free(struct env_tables *t);

/* Compare dotted version strings numerically ("550.54.15" < "550.100"):
 * <0, 0, >0. Missing components count as 0; text after digits is ignored. */
int envcheck_version_cmp(const char *a, const char *b);

/*
 * What a CUDA version ("12.4", "12.4.1", "12") needs from the driver:
 * *full the toolkit driver (for "12.4" the lowest 12.4.x row; for a
 * major alone, "" since only the family is known), *compat the minor
 * version compatibility minimum of its family ("" when none), both
 * borrowed from t. Returns 0, or -1 when the version is not in the table
 * (newer than the data, or not a version).
 */
int envcheck_cuda_needs(const struct env_tables *t, const char *cuda, const char **full,
			const char **compat);

/* The newest CUDA "major.minor" whose toolkit driver is <= driver, into
 * out (n bytes); -1 (out "") when none. */
int envcheck_cuda_for_driver(const struct env_tables *t, const char *driver, char *out, size_t n);

/* The architecture row of a compute capability; NULL if not listed.
 * Borrowed from t. */
const struct env_arch_row *envcheck_arch(const struct env_tables *t, int cc_major, int cc_minor);

/*
 * The data/gpus.csv row of a GPU as NVML names it ("NVIDIA H100 80GB
 * HBM3", "Tesla T4", "GRID A100-40C"), using the memory NVML reports
 * (bytes, 0 unknown) to choose between sizes of one family. NULL if
 * unknown. Borrowed from db.
 */
const struct gpu_spec *envcheck_find_gpu(const struct gpu_db *db, const char *nvml_name,
					 uint64_t mem_total);

/* ---- verdicts ---- */

struct env_verdict {
	enum env_level level;
	char topic[16];     /* "driver", "gpu0", "cuda", "python", "torch", "cpu", "ram",
			       "shm", "disk" */
	char what[384];     /* the finding, one sentence or two */
	char fix[512];      /* what to do; "" when nothing */
};

struct env_report {
	struct env_verdict *v;   /* owned */
	size_t n, cap;
	enum env_level worst;    /* ENV_INFO when empty */
	size_t count[4];         /* verdicts per level */
};

/*
 * Judge the facts. db (data/gpus.csv) may be NULL: memory and PCIe are
 * then not compared with nominal figures. Returns 0 and fills *r (caller
 * frees with envcheck_report_free()), or -1 with a message in err (out
 * of memory).
 */
int envcheck_judge(const struct env_facts *f, const struct env_tables *t,
		   const struct gpu_db *db, struct env_report *r, char *err, size_t errlen);
void envcheck_report_free(struct env_report *r);

/* "info", "ok", "warn", "fail". Static. */
const char *env_level_name(enum env_level l);

/* "none", "passthrough", "vGPU", "host vGPU", "host vSGA", "unknown". Static. */
const char *env_virt_name(int virt);

#endif
