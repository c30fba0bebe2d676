/*
 * envcheck.h - is this rented box what was paid for, and do its versions
 * agree? Pure verdict logic over a struct of facts that `gpurent env`
 * gathers (NVML, libcudart, nvcc, python3, /proc, statvfs): every check
 * gives ok / warn / fail as a code and the facts the command words (with
 * the fix when it is not ok: src/cmd/box/envwords.c). The tables it
 * judges with are data: data/cuda_driver.csv (the driver each CUDA needs)
 * and data/cuda_arch.csv (the CUDA each GPU architecture needs).
 * Thresholds and their sources: docs/env.md.
 */
#ifndef GPURENT_ENVCHECK_H
#define GPURENT_ENVCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model/gpu.h"

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

/* Parse up to three dotted numbers of s ("12.4.1") into v (the rest 0);
 * returns how many were read (0 when s does not start with a digit). */
int envcheck_version_parse(const char *s, long v[3]);

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

/*
 * What a finding says, one code per sentence of `gpurent env`; the words
 * are the command layer's (src/cmd/box/envwords.c), the facts they state are
 * the fields of struct env_finding named after each code. The names
 * env_code_name() gives are the "code" of --json: append, never renumber
 * or rename (docs/env.md lists them).
 */
enum env_code {
	/* driver: driver, dmax, ngpus; text = NVML's error */
	ENV_F_NO_DRIVER,            /* warn: NVML not loaded */
	ENV_F_DRIVER,               /* ok: the driver, the CUDA it runs, how many GPUs */
	ENV_F_DRIVER_NO_GPU,        /* warn: the driver sees no GPU */
	/* gpuN: gpu_index, gpu (the GPU), spec / nominal / spec_pcie_gen (its data/gpus.csv row) */
	ENV_F_GPU,                  /* info: what NVML says of the GPU */
	ENV_F_GPU_MIG,              /* warn: MIG on; sliced: visible memory short of nominal */
	ENV_F_GPU_VGPU,             /* warn: a vGPU */
	ENV_F_GPU_SLICED,           /* warn: memory below ENV_SLICED_RATIO of nominal */
	ENV_F_GPU_WHOLE,            /* ok: a whole card */
	ENV_F_GPU_UNKNOWN,          /* info: not in data/gpus.csv */
	ENV_F_GPU_BUSY,             /* warn: more than ENV_BUSY_BYTES (and 5%) in use */
	ENV_F_PCIE_GEN,             /* warn: link generation below the card's */
	ENV_F_PCIE_WIDTH,           /* warn: link narrower than x16 */
	/* cuda: cuda (runtime "12.4", "" none), lib, nvcc; need, compat, driver, dmax */
	ENV_F_CUDA_NONE,            /* info: no libcudart, no nvcc */
	ENV_F_CUDA_SYSTEM,          /* info: the system runtime and nvcc */
	ENV_F_CUDART_TOO_NEW,       /* warn: cuda needs driver >= need; compat_covers */
	ENV_F_NVCC_TOO_NEW,         /* warn: nvcc (in cuda) needs driver >= need; compat_covers */
	/* python: version (python's), fws; text = the probe's error */
	ENV_F_NO_PYTHON,            /* info: no python3 ran the probe */
	ENV_F_PYTHON,               /* info: python and what each framework is */
	/* torch, tensorflow, jax: fw, version, cuda (the build's), driver, dmax, need, compat,
	 * datacenter; text = the framework's error */
	ENV_F_FW_IMPORT_FAILED,     /* warn: installed, import raises */
	ENV_F_FW_CPU_ONLY,          /* fail: a CPU-only build on a box with ngpus GPUs */
	ENV_F_FW_CPU_ONLY_NO_GPU,   /* info: a CPU-only build, no GPU */
	ENV_F_FW_NO_DRIVER,         /* warn: a CUDA build, no NVIDIA driver */
	ENV_F_FW_DRIVER_UNKNOWN,    /* info: a CUDA build, driver version unknown */
	ENV_F_FW_CUDA_UNKNOWN,      /* warn: its CUDA is not in data/cuda_driver.csv */
	ENV_F_FW_DRIVER_OK,         /* ok: driver >= need */
	ENV_F_FW_DRIVER_OK_FAMILY,  /* ok: a major alone ("12"), driver >= compat */
	ENV_F_FW_MINOR_COMPAT,      /* warn: driver < need but >= compat */
	ENV_F_DRIVER_TOO_OLD,       /* fail: driver below need (and compat) */
	ENV_F_FW_NO_GPU,            /* fail: sees none of ngpus; cvd_hides_all, driver_too_old, cvd */
	ENV_F_FW_SOME_GPUS,         /* info: sees gpus_seen of ngpus; cvd_set, cvd */
	/* framework against gpu's architecture: arch, first_cuda, last_cuda; text = arch list */
	ENV_F_FW_PTX_ONLY,          /* warn: the arch list has PTX only for the GPU */
	ENV_F_FW_NO_KERNELS,        /* fail: the arch list has nothing for the GPU */
	ENV_F_FW_ARCH_DROPPED,      /* fail: built for a CUDA after last_cuda */
	ENV_F_FW_CUDA_BEFORE_ARCH,  /* warn: built for a CUDA before first_cuda */
	/* cpu: cpus, cpus_online, ngpus, cpus_per_gpu */
	ENV_F_CPU_FEW,              /* warn: fewer than cpus_per_gpu cores per GPU */
	ENV_F_CPU_OK,               /* ok */
	/* ram: ram_total, ram_avail, ram_host, gpu_mem (bytes) */
	ENV_F_RAM_LOW,              /* warn: RAM below the GPUs' memory */
	ENV_F_RAM_OK,               /* ok */
	/* shm: path, free_bytes, total_bytes */
	ENV_F_SHM_MISSING,          /* warn: path does not exist */
	ENV_F_SHM_SMALL,            /* fail below ENV_SHM_FAIL_BYTES free, else warn */
	ENV_F_SHM_OK,               /* ok */
	/* disk: path, role, free_bytes, total_bytes; text = why it could not be read */
	ENV_F_DIR_MISSING,          /* warn: the directory does not exist */
	ENV_F_DIR_ERROR,            /* warn: statvfs failed (text) */
	ENV_F_DISK_LOW,             /* fail below ENV_DISK_FAIL_BYTES free, else warn */
	ENV_F_DISK_OK,              /* ok */
	ENV_F_COUNT
};

/* A framework as the python line lists it. */
struct env_fw_brief {
	char name[16];
	bool installed, import_failed;
	char version[48];
	char cuda[16];        /* "" = CPU-only build */
};

/*
 * One finding: its level, code and topic, and the facts its sentence
 * states (see enum env_code for which fields each code sets; the others
 * are 0, "" or false, gpu_index -1). No words: env_word() (src/cmd/box/envwords.c)
 * makes the sentences.
 */
struct env_finding {
	enum env_level level;
	enum env_code code;
	char topic[16];     /* "driver", "gpu0", "cuda", "python", "torch", "cpu", "ram",
			       "shm", "disk" */
	/* the GPU */
	int gpu_index;              /* -1: none */
	struct env_gpu gpu;         /* a copy of the facts' GPU */
	char spec[64];              /* its data/gpus.csv name; "" not listed */
	double nominal;             /* its datasheet memory, bytes; 0 unknown */
	long spec_pcie_gen;         /* its PCIe generation; 0 unknown */
	bool sliced;                /* memory below ENV_SLICED_RATIO of nominal */
	/* driver, CUDA, frameworks */
	char driver[32];            /* "550.54.15"; "" unknown */
	char dmax[24];              /* newest CUDA the driver runs, "12.4"; "" unknown */
	char fw[16];                /* "torch", "tensorflow", "jax" */
	char version[48];           /* the framework's (or python's) version */
	char cuda[16];              /* the CUDA of a build or of the system runtime */
	char need[24];              /* the driver that CUDA needs */
	char compat[24];            /* the driver its family needs (minor version compat); "" none */
	bool compat_covers;         /* the driver is >= compat */
	bool datacenter;            /* every GPU a datacenter card: forward compatibility works */
	bool driver_too_old;        /* the framework's CUDA does not run on the driver */
	char nvcc[16];              /* `nvcc --version`; "" none */
	char lib[64];               /* the libcudart loaded */
	char arch[32];              /* the GPU's architecture: "Blackwell"; "" not listed */
	char first_cuda[16], last_cuda[16];   /* the CUDA range that targets it; "" no bound */
	struct env_fw_brief fws[ENV_MAX_FW];
	size_t nfws;
	size_t ngpus;               /* GPUs NVML sees */
	int gpus_seen;              /* GPUs the framework sees */
	bool cvd_set, cvd_hides_all;
	char cvd[64];               /* CUDA_VISIBLE_DEVICES */
	/* host */
	long cpus, cpus_online;
	int cpus_per_gpu;           /* ENV_CPUS_PER_GPU */
	uint64_t ram_total, ram_avail, ram_host;   /* bytes; 0 unknown */
	double gpu_mem;             /* all GPUs' memory, bytes */
	char path[512];             /* the directory, or /dev/shm's path ("" = /dev/shm) */
	char role[16];              /* "working", "dir" */
	uint64_t free_bytes, total_bytes;
	char text[256];             /* a message passed through (an error, an arch list) */
};

struct env_report {
	struct env_finding *v;   /* owned */
	size_t n, cap;
	enum env_level worst;    /* ENV_INFO when empty */
	size_t count[4];         /* findings per level */
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

/* The stable snake_case name of a code ("driver_too_old"), the "code" of
 * --json; "?" out of range. Static. */
const char *env_code_name(enum env_code c);

/* "info", "ok", "warn", "fail". Static. */
const char *env_level_name(enum env_level l);

/* "none", "passthrough", "vGPU", "host vGPU", "host vSGA", "unknown". Static. */
const char *env_virt_name(int virt);

#endif
