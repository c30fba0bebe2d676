/*
 * cmd_bench.c - `gpurent bench`: a fixed, short benchmark of the rented box
 * (host memory bandwidth, CPU, disk write+fsync and read; where CUDA is
 * present GEMM TFLOPS, device and host<->device bandwidth, each against
 * data/gpus.csv's nominal figure), stored in the ledger so that
 * `gpurent bench --history` compares boxes. Methods: docs/bench.md.
 */
#define _GNU_SOURCE   /* sched_getaffinity, CPU_COUNT */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "core/box/envcheck.h"
#include "core/text/units.h"
#include "hw/cuda.h"
#include "hw/nvml.h"
#include "store/ledger.h"
#include "kit/cmd.h"
#include "os/progress.h"
#include "kit/common.h"
#include "kit/opt.h"
#include "base/out.h"
#include "os/sys.h"
#include "base/util.h"

static const char usage[] = N_(
	/* xgettext:no-c-format */
	"usage: gpurent bench [--dir PATH] [--json] [--gpu N|all] [--no-gpu]\n"
	"                     [--disk-size SIZE] [--no-store] [--ledger PATH]\n"
	"       gpurent bench --history [--json] [--ledger PATH]\n"
	"\n"
	"Measure this box in a few seconds: host memory copy bandwidth and a CPU sort\n"
	"(one thread and all usable ones), sequential write with fsync and read on\n"
	"--dir (default: the working directory), and where CUDA is present (libcudart,\n"
	"libcublas) BF16/FP16/FP32 GEMM TFLOPS, device-to-device copy and pinned\n"
	"host<->device bandwidth of the GPU, each as % of its nominal figure in\n"
	"data/gpus.csv. Without a GPU the GPU part is skipped with one line.\n"
	"Results go into the ledger (host, GPU, test, value, date);\n"
	"--history compares the boxes measured so far, best first per test.\n"
	"\n"
	"  --dir PATH        where the disk test writes its temporary file\n"
	"  --disk-size SIZE  bytes the disk test writes (default 256MiB)\n"
	"  --gpu N|all       which CUDA device(s) to measure (default 0)\n"
	"  --no-gpu          skip the GPU part\n"
	"  --no-store        do not record the results in the ledger\n"
	"  --ledger PATH     the ledger (default $GPURENT_LEDGER, else\n"
	"                    ~/.local/share/gpurent/ledger.db)\n"
	"  --json            results as JSON (schema gpurent.bench/1)\n"
	"  --progress, -q/--quiet  the progress line (parts done, bytes/s, time\n"
	"                    left) even in a pipe, or never; by default on a\n"
	"                    terminal only, after a second\n"
	"\n"
	"Exit status: 0, 1 when a host test failed (the disk directory not writable),\n"
	"2 for bad usage. See docs/bench.md.\n");

/* Time each measurement may take (the default run stays a few seconds). */
#define HOST_BUDGET_S 0.3
#define GEMM_BUDGET_S 0.4
#define COPY_BUDGET_S 0.3
#define MAX_THREADS 64
#define SORT_N (1u << 20)
#define MAX_RESULTS 64

struct result {
	char test[24];     /* ledger key: "gemm_bf16" */
	char label[96];    /* "GEMM bf16 16384^3" (English: JSON and the ledger) */
	char shown[96];    /* the label in the user's language (the table) */
	char gpu[96];      /* "" for host tests */
	char spec[64];     /* the data/gpus.csv row compared with; "" none */
	int gpu_index;     /* -1 for host tests */
	double value;      /* in unit */
	const char *unit;  /* "GB/s", "TFLOP/s", "Melem/s" */
	double nominal;    /* same unit; NAN when none */
	char note[256];    /* "PCIe gen5 x16", "tmpfs: RAM, not a disk" (English) */
	char note_shown[256];
};

struct skip {
	char part[16];
	char reason[256];        /* English: JSON */
	char reason_shown[256];  /* translated: the table */
};

struct bench {
	struct progress *pr;      /* the progress line (src/os/progress.h) */
	struct result r[MAX_RESULTS];
	size_t n;
	struct skip s[16];
	size_t ns;
	bool host_failed;
	bool json;
};


/* fmt (marked N_()) into en as it is and into tr translated: JSON and the
 * ledger keep the English, the table shows the user's language. */
static void words(char *en, char *tr, size_t n, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void words(char *en, char *tr, size_t n, const char *fmt, ...)
{
	va_list ap, aq;

	va_start(ap, fmt);
	va_copy(aq, ap);
	vsnprintf(en, n, fmt, ap);
	vsnprintf(tr, n, _(fmt), aq);
	va_end(aq);
	va_end(ap);
}
#define LABEL(r, ...) words((r)->label, (r)->shown, sizeof((r)->label), __VA_ARGS__)
#define NOTE(r, ...) words((r)->note, (r)->note_shown, sizeof((r)->note), __VA_ARGS__)

static struct result *add(struct bench *b, const char *test, const char *unit)
{
	struct result *r;

	if (b->n >= MAX_RESULTS)
		return NULL;
	r = &b->r[b->n++];
	memset(r, 0, sizeof(*r));
	snprintf(r->test, sizeof(r->test), "%s", test);
	r->unit = unit;
	r->nominal = NAN;
	r->gpu_index = -1;
	return r;
}

static void skipped(struct bench *b, const char *part, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void skipped(struct bench *b, const char *part, const char *fmt, ...)
{
	va_list ap, aq;
	struct skip *s;

	if (b->ns >= ARRAY_SIZE(b->s))
		return;
	s = &b->s[b->ns++];
	snprintf(s->part, sizeof(s->part), "%s", part);
	va_start(ap, fmt);
	va_copy(aq, ap);
	vsnprintf(s->reason, sizeof(s->reason), fmt, ap);
	vsnprintf(s->reason_shown, sizeof(s->reason_shown), _(fmt), aq);   /* fmt is marked N_() */
	va_end(aq);
	va_end(ap);
}

/* CPUs this process may use (affinity and cgroup quotas, src/os/sys.h), at most MAX_THREADS. */
static int usable_cpus(void)
{
	int n = sys_usable_cpus();

	return n > MAX_THREADS ? MAX_THREADS : n;
}

/* ---- host: memory copy and CPU sort, on 1 and on all usable threads ---- */

/* Threads wait at the gate until every one of a pass is started. */
struct gate {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool open;
};

struct job {
	char *dst;
	const char *src;
	size_t n;          /* bytes to copy, or elements to sort */
	uint32_t *keys;    /* sort: the thread's working copy */
	const uint32_t *orig;
	struct gate *gate;
	bool sort;
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static void *job_run(void *arg)
{
	struct job *j = arg;

	pthread_mutex_lock(&j->gate->mu);
	while (!j->gate->open)
		pthread_cond_wait(&j->gate->cv, &j->gate->mu);
	pthread_mutex_unlock(&j->gate->mu);
	if (j->sort) {
		memcpy(j->keys, j->orig, j->n * sizeof(uint32_t));
		qsort(j->keys, j->n, sizeof(uint32_t), cmp_u32);
	} else {
		memcpy(j->dst, j->src, j->n);
	}
	return NULL;
}

/*
 * Run `threads` jobs at once, `passes` times; returns the best wall time
 * of a pass (from opening the gate to the last join), or -1 when the
 * threads could not be started.
 */
static double run_jobs(struct job *jobs, int threads, int passes)
{
	pthread_t tid[MAX_THREADS];
	double best = -1;

	for (int p = 0; p < passes; p++) {
		struct gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false};
		int started = 0;
		double t0, t;

		for (int i = 0; i < threads; i++) {
			jobs[i].gate = &g;
			if (pthread_create(&tid[i], NULL, job_run, &jobs[i]))
				break;
			started++;
		}
		pthread_mutex_lock(&g.mu);
		g.open = true;
		pthread_cond_broadcast(&g.cv);
		pthread_mutex_unlock(&g.mu);
		t0 = util_now_mono();
		for (int i = 0; i < started; i++)
			pthread_join(tid[i], NULL);
		t = util_now_mono() - t0;
		pthread_mutex_destroy(&g.mu);
		pthread_cond_destroy(&g.cv);
		if (started < threads)
			return -1;
		if (best < 0 || t < best)
			best = t;
	}
	return best;
}

static uint64_t mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Memory copy: bytes read + written per second (STREAM's Copy counts both). */
static int bench_memory(struct bench *b, int threads)
{
	size_t size = 256u << 20;
	struct sys_memory mem;
	char *src = NULL, *dst = NULL;
	struct job jobs[MAX_THREADS];
	int rc = -1;

	/* two buffers, at most an eighth of the memory free to us (cgroup limit included) each */
	sys_memory(&mem);
	if (mem.avail && (double)mem.avail / 8 < size)
		size = (size_t)((double)mem.avail / 8) & ~(size_t)0xfffff;
	if (size < (16u << 20))
		size = 16u << 20;
	if (!(src = malloc(size)) || !(dst = malloc(size))) {
		skipped(b, "memory", N_("cannot allocate 2 x %zu MiB"), size >> 20);
		goto out_free;
	}
	memset(src, 0x5a, size);   /* fault the pages in before timing */
	memset(dst, 0xa5, size);
	for (int k = 0; k < 2; k++) {
		int nt = k ? threads : 1;
		struct result *r;
		double t;
		size_t slice = size / (size_t)nt;
		int passes = 1;

		for (int i = 0; i < nt; i++)
			jobs[i] = (struct job){.dst = dst + i * slice, .src = src + i * slice,
					       .n = slice, .sort = false};
		/* one pass to learn the time, then as many as fit the budget */
		t = run_jobs(jobs, nt, 1);
		if (t > 0)
			passes = (int)fmin(20, fmax(2, HOST_BUDGET_S / t));
		t = fmin(t, run_jobs(jobs, nt, passes));
		if (t <= 0 || !(r = add(b, k ? "mem_copy_all" : "mem_copy_1t", "GB/s")))
			continue;
		r->value = 2.0 * (double)slice * nt / t / 1e9;
		LABEL(r, nt == 1 ? N_("memory copy, %d thread") : N_("memory copy, %d threads"), nt);
		NOTE(r, N_("%zu MiB buffers, read + write"), size >> 20);
		if (!k && threads == 1)
			break;
	}
	rc = 0;
out_free:
	free(src);
	free(dst);
	return rc;
}

/* CPU: qsort of 2^20 random 32-bit keys per thread, million keys per second. */
static int bench_cpu(struct bench *b, int threads)
{
	uint32_t *orig = malloc(SORT_N * sizeof(uint32_t)), *keys = NULL;
	struct job jobs[MAX_THREADS];
	uint64_t seed = 1;
	int rc = -1;

	if (!orig || !(keys = malloc((size_t)threads * SORT_N * sizeof(uint32_t)))) {
		skipped(b, "cpu", N_("cannot allocate the sort buffers"));
		goto out_free;
	}
	for (size_t i = 0; i < SORT_N; i++)
		orig[i] = (uint32_t)mix(&seed);
	for (int k = 0; k < 2; k++) {
		int nt = k ? threads : 1;
		struct result *r;
		double t;

		for (int i = 0; i < nt; i++)
			jobs[i] = (struct job){.keys = keys + (size_t)i * SORT_N, .orig = orig,
					       .n = SORT_N, .sort = true};
		t = run_jobs(jobs, nt, 3);
		if (t <= 0 || !(r = add(b, k ? "cpu_sort_all" : "cpu_sort_1t", "Melem/s")))
			continue;
		r->value = (double)SORT_N * nt / t / 1e6;
		LABEL(r, nt == 1 ? N_("CPU sort, %d thread") : N_("CPU sort, %d threads"), nt);
		NOTE(r, N_("qsort of 2^20 32-bit keys per thread"));
		if (!k && threads == 1)
			break;
	}
	rc = 0;
out_free:
	free(keys);
	free(orig);
	return rc;
}

/* ---- disk: sequential write + fsync, then read with the cache dropped ---- */

static int bench_disk(struct bench *b, const char *dir, size_t size)
{
	const size_t block = 4u << 20;
	char path[4200], note[96] = "", abs[4096];
	unsigned char *buf = NULL;
	struct statvfs vs;
	struct statfs fs;
	uint64_t seed = 7;
	struct result *r;
	double t0, tw, tr;
	size_t done;
	int fd = -1, rc = -1;

	if (statvfs(dir, &vs)) {
		skipped(b, "disk", "%s: %s", dir, strerror(errno));
		return -1;
	}
	if ((double)vs.f_bavail * vs.f_frsize < (double)size + (64u << 20)) {
		skipped(b, "disk", N_("%s: less than %zu MiB free"), dir, (size + (64u << 20)) >> 20);
		return 0;
	}
	if (realpath(dir, abs))
		dir = abs;
	if (!statfs(dir, &fs) && fs.f_type == 0x01021994)   /* TMPFS_MAGIC */
		snprintf(note, sizeof(note), "%s", N_("tmpfs: RAM, not a disk"));
	if (!(buf = malloc(block))) {
		skipped(b, "disk", N_("out of memory"));
		return -1;
	}
	/* random bytes: zeros would be compressed away by ZFS or btrfs */
	for (size_t i = 0; i + 8 <= block; i += 8) {
		uint64_t v = mix(&seed);
		memcpy(buf + i, &v, 8);
	}
	snprintf(path, sizeof(path), "%s/.gpurent-bench-XXXXXX", dir);
	if ((fd = mkstemp(path)) < 0) {
		skipped(b, "disk", N_("cannot write in %s: %s"), dir, strerror(errno));
		goto out_free;
	}
	t0 = util_now_mono();
	for (done = 0; done < size; done += block) {
		size_t n = size - done < block ? size - done : block;
		ssize_t w;
		memcpy(buf, &done, sizeof(done));   /* every block differs */
		while ((w = write(fd, buf, n)) < 0 && errno == EINTR)
			;
		if (w != (ssize_t)n) {
			skipped(b, "disk", N_("writing %s: %s"), path, w < 0 ? strerror(errno) : "short write");
			goto out_unlink;
		}
		progress_add(b->pr, 0, n);
	}
	if (fsync(fd)) {
		skipped(b, "disk", N_("fsync %s: %s"), path, strerror(errno));
		goto out_unlink;
	}
	tw = util_now_mono() - t0;
	/* after fsync the pages are clean: the kernel can drop them, so the read
	 * below comes from the device (not on tmpfs, which is memory) */
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (lseek(fd, 0, SEEK_SET) < 0) {
		skipped(b, "disk", N_("seek %s: %s"), path, strerror(errno));
		goto out_unlink;
	}
	t0 = util_now_mono();
	for (done = 0; done < size;) {
		ssize_t got = read(fd, buf, block);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			skipped(b, "disk", N_("reading %s: %s"), path, got < 0 ? strerror(errno) : "short file");
			goto out_unlink;
		}
		done += (size_t)got;
		progress_add(b->pr, 0, (uint64_t)got);
	}
	tr = util_now_mono() - t0;
	if ((r = add(b, "disk_write", "GB/s"))) {
		r->value = tw > 0 ? (double)size / tw / 1e9 : 0;
		LABEL(r, N_("disk write %zu MiB + fsync"), size >> 20);
		snprintf(r->note, sizeof(r->note), "%.120s%s%s", dir, note[0] ? "; " : "", note);
		snprintf(r->note_shown, sizeof(r->note_shown), "%.120s%s%s", dir, note[0] ? "; " : "", msg_tr(note));
	}
	if ((r = add(b, "disk_read", "GB/s"))) {
		r->value = tr > 0 ? (double)size / tr / 1e9 : 0;
		LABEL(r, N_("disk read %zu MiB, cache dropped"), size >> 20);
		snprintf(r->note, sizeof(r->note), "%.120s%s%s", dir, note[0] ? "; " : "", note);
		snprintf(r->note_shown, sizeof(r->note_shown), "%.120s%s%s", dir, note[0] ? "; " : "", msg_tr(note));
	}
	rc = 0;
out_unlink:
	unlink(path);
	close(fd);
out_free:
	free(buf);
	return rc;
}

/* ---- GPU ---- */

/* One PCIe lane's bytes per second in each direction (docs/bench.md):
 * gen1-2 at 2.5/5 GT/s with 8b/10b coding, gen3-5 at 8/16/32 GT/s with
 * 128b/130b. 0 for anything else. */
static double pcie_lane_bytes(long gen)
{
	switch (gen) {
	case 1: return 2.5e9 * 8 / 10 / 8;
	case 2: return 5e9 * 8 / 10 / 8;
	case 3: return 8e9 * 128 / 130 / 8;
	case 4: return 16e9 * 128 / 130 / 8;
	case 5: return 32e9 * 128 / 130 / 8;
	default: return 0;
	}
}

/* "0000:3B:00.0" (CUDA) and "00000000:3B:00.0" (NVML) name one card. */
static bool same_bus(const char *a, const char *b)
{
	const char *pa = strchr(a, ':'), *pb = strchr(b, ':');

	return pa && pb && *a && *b && !strcasecmp(pa, pb) &&
	       strtoul(a, NULL, 16) == strtoul(b, NULL, 16);
}

static void gpu_name(struct cuda *c, struct nvml *nv, int dev, char *name, size_t n, int *pgen,
		     int *pwidth)
{
	char bus[64];
	unsigned count = nvml_device_count(nv);

	*pgen = *pwidth = -1;
	if (cuda_device_pci_bus_id(c, dev, bus, sizeof(bus)))
		return;
	for (unsigned i = 0; i < count; i++) {
		struct nvml_device_info d;
		char err[128];
		if (nvml_device_info(nv, i, &d, err, sizeof(err)) || !same_bus(bus, d.pci_bus_id))
			continue;
		if (d.name[0])
			snprintf(name, n, "%s", d.name);
		*pgen = d.pcie_gen_max;
		*pwidth = d.pcie_width_max;
		return;
	}
}

static void bench_one_gpu(struct bench *b, struct cuda *c, struct nvml *nv,
			  const struct gpu_db *gdb, int dev)
{
	static const enum cuda_gemm_type types[] = {CUDA_GEMM_BF16, CUDA_GEMM_FP16, CUDA_GEMM_FP32};
	char name[96], part[16], err[256];
	const struct gpu_spec *spec;
	struct cuda_measure m, m2;
	struct result *r;
	size_t mfree, mtotal, bytes;
	int ccmaj, ccmin, gen, width;

	snprintf(part, sizeof(part), "gpu%d", dev);
	if (cuda_device_describe(c, dev, name, sizeof(name), &ccmaj, &ccmin, &mfree, &mtotal, err,
				 sizeof(err))) {
		skipped(b, part, "%s", err);
		return;
	}
	gpu_name(c, nv, dev, name, sizeof(name), &gen, &width);
	spec = envcheck_find_gpu(gdb, name, mtotal);
	if (!spec)
		skipped(b, part, N_("%s is not in data/gpus.csv: no nominal figures to compare with"), name);
	for (size_t k = 0; k < ARRAY_SIZE(types); k++) {
		enum cuda_gemm_type t = types[k];
		double nominal = !spec ? NAN : t == CUDA_GEMM_FP32 ? spec->fp32_flops :
				 t == CUDA_GEMM_FP16 ? spec->fp16_flops : spec->bf16_flops;
		size_t el = t == CUDA_GEMM_FP32 ? 4 : 2;
		/* the largest of 16384/8192/4096 whose three matrices fit in a third of
		 * free memory (FP32 stops at 8192: a slow card would take seconds) */
		int n = t == CUDA_GEMM_FP32 ? 8192 : 16384;
		char test[24];

		while (n > 1024 && 3.0 * n * n * el > mfree / 3.0)
			n /= 2;
		if (t == CUDA_GEMM_BF16 && ccmaj < 8) {
			skipped(b, part, N_("GEMM bf16: needs compute capability 8.0 (Ampere) or newer, "
				"this is %d.%d"), ccmaj, ccmin);
			continue;
		}
		if (cuda_bench_gemm(c, dev, t, n, GEMM_BUDGET_S, &m, err, sizeof(err))) {
			skipped(b, part, "GEMM %s: %s", cuda_gemm_name(t), err);
			continue;
		}
		snprintf(test, sizeof(test), "gemm_%s", cuda_gemm_name(t));
		if (!(r = add(b, test, "TFLOP/s")))
			return;
		snprintf(r->gpu, sizeof(r->gpu), "%s", name);
		snprintf(r->spec, sizeof(r->spec), "%s", spec ? spec->name : "");
		r->gpu_index = dev;
		r->value = m.value / 1e12;
		r->nominal = nominal > 0 ? nominal / 1e12 : NAN;
		LABEL(r, "GEMM %s %zu^3", cuda_gemm_name(t), m.size);
		NOTE(r, N_("cublasGemmEx, FP32 accumulate, %d runs"), m.iters);
	}
	bytes = (size_t)1 << 30;
	while (bytes > (16u << 20) && 2.0 * bytes > mfree / 2.0)
		bytes /= 2;
	if (cuda_bench_d2d(c, dev, bytes, COPY_BUDGET_S, &m, err, sizeof(err))) {
		skipped(b, part, N_("device copy: %s"), err);
	} else if ((r = add(b, "d2d_copy", "GB/s"))) {
		snprintf(r->gpu, sizeof(r->gpu), "%s", name);
		snprintf(r->spec, sizeof(r->spec), "%s", spec ? spec->name : "");
		r->gpu_index = dev;
		r->value = m.value / 1e9;
		r->nominal = spec ? spec->mem_bw / 1e9 : NAN;
		LABEL(r, N_("device copy %zu MiB"), bytes >> 20);
		NOTE(r, N_("cudaMemcpy device-to-device, read + write"));
	}
	bytes = 256u << 20;
	if (cuda_bench_host(c, dev, bytes, COPY_BUDGET_S, &m, &m2, err, sizeof(err))) {
		skipped(b, part, N_("host<->device copy: %s"), err);
	} else {
		double lane = spec ? pcie_lane_bytes(spec->pcie_gen) : 0;
		for (int k = 0; k < 2; k++) {
			if (!(r = add(b, k ? "d2h_pinned" : "h2d_pinned", "GB/s")))
				return;
			snprintf(r->gpu, sizeof(r->gpu), "%s", name);
			snprintf(r->spec, sizeof(r->spec), "%s", spec ? spec->name : "");
			r->gpu_index = dev;
			r->value = (k ? m2.value : m.value) / 1e9;
			r->nominal = lane > 0 ? 16 * lane / 1e9 : NAN;
			LABEL(r, N_("%s %zu MiB pinned"), k ? "device->host" : "host->device", bytes >> 20);
			if (lane > 0) {
				bool narrow = gen > 0 && width > 0 && (gen < spec->pcie_gen || width < 16);
				NOTE(r, narrow ? N_("nominal PCIe gen%ld x16; this slot is narrower (gpurent env)") :
				     N_("nominal PCIe gen%ld x16"), spec->pcie_gen);
			}
		}
	}
}

static void bench_gpus(struct bench *b, const struct gpu_db *gdb, int which)
{
	struct cuda *c = NULL;
	struct nvml *nv = NULL;
	char err[256];
	int n;

	if (cuda_open(&c, true, err, sizeof(err))) {
		skipped(b, "gpu", N_("skipped: %s"), err);
		return;
	}
	if (!(n = cuda_device_count(c, err, sizeof(err)))) {
		skipped(b, "gpu", N_("skipped: %s"), err);
		goto out_close;
	}
	if (!cuda_has_blas(c))
		skipped(b, "gpu", N_("GEMMs skipped: %s"), cuda_blas_error(c));
	if (which >= n) {
		skipped(b, "gpu", N_("skipped: no CUDA device %d (this box has %d)"), which, n);
		goto out_close;
	}
	nvml_open(&nv, err, sizeof(err));   /* names and links only; optional */
	for (int d = which < 0 ? 0 : which; d < (which < 0 ? n : which + 1); d++)
		bench_one_gpu(b, c, nv, gdb, d);
	nvml_close(nv);
out_close:
	cuda_close(c);
}

/* ---- output ---- */

static void print_results(const struct bench *b, const char *host)
{
	int last_gpu = -1;

	printf(_("gpurent bench on %s\n"), host);
	for (size_t i = 0; i < b->n; i++) {
		const struct result *r = &b->r[i];
		char where[16];

		if (r->gpu_index >= 0) {
			snprintf(where, sizeof(where), "gpu%d", r->gpu_index);
			if (r->gpu_index != last_gpu)
				printf("%-7s %s%s%s%s\n", where, r->gpu, r->spec[0] ? " (nominal: " : "",
				       r->spec, r->spec[0] ? " in data/gpus.csv)" : "");
			last_gpu = r->gpu_index;
		} else {
			snprintf(where, sizeof(where), "%s", !strncmp(r->test, "disk", 4) ? "disk" :
				 !strncmp(r->test, "cpu", 3) ? "cpu" : "memory");
		}
		{
			size_t w = out_width(r->shown);   /* padded by terminal columns */
			printf("%-7s %s%*s %10.*f %-8s", where, r->shown, w < 34 ? (int)(34 - w) : 0, "",
			       r->value >= 100 ? 0 : 2, r->value, r->unit);
		}
		if (isfinite(r->nominal) && r->nominal > 0)
			printf(_(" %4.0f%% of %.5g"), 100 * r->value / r->nominal, r->nominal);
		if (r->note_shown[0])
			printf(_("  (%s)"), r->note_shown);
		putchar('\n');
	}
	for (size_t i = 0; i < b->ns; i++)
		printf("%-7s %s\n", b->s[i].part, b->s[i].reason_shown);
}

static void print_json(const struct bench *b, const char *host, double at, bool stored,
		       const char *ledger)
{
	struct json j;

	json_init(&j, stdout);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", "gpurent.bench/1");
	json_str(&j, "host", host);
	json_num(&j, "measured_at", at);
	json_arr_begin(&j, "results");
	for (size_t i = 0; i < b->n; i++) {
		const struct result *r = &b->r[i];
		json_obj_begin(&j, NULL);
		json_str(&j, "test", r->test);
		json_str(&j, "label", r->label);
		if (r->gpu_index >= 0) {
			json_int(&j, "gpu_index", r->gpu_index);
			json_str(&j, "gpu", r->gpu);
		} else {
			json_null(&j, "gpu");
		}
		json_num(&j, "value", r->value);
		json_str(&j, "unit", r->unit);
		json_num(&j, "nominal", r->nominal);
		json_num(&j, "percent_of_nominal",
			 isfinite(r->nominal) && r->nominal > 0 ? 100 * r->value / r->nominal : NAN);
		json_str(&j, "note", r->note);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_arr_begin(&j, "skipped");
	for (size_t i = 0; i < b->ns; i++) {
		json_obj_begin(&j, NULL);
		json_str(&j, "part", b->s[i].part);
		json_str(&j, "reason", b->s[i].reason);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_bool(&j, "stored", stored);
	if (ledger)
		json_str(&j, "ledger", ledger);
	else
		json_null(&j, "ledger");
	json_obj_end(&j);
	fputc('\n', stdout);
}

/* Store the results; 0, or -1 with err. */
static int store(const struct bench *b, const char *path, const char *host, double at,
		 char *path_out, size_t pathlen, char *err, size_t errlen)
{
	struct ledger_bench rows[MAX_RESULTS];
	struct ledger *l;
	int rc;

	if (ledger_open(path, &l, err, errlen))
		return -1;
	snprintf(path_out, pathlen, "%s", ledger_path(l));
	for (size_t i = 0; i < b->n; i++)
		rows[i] = (struct ledger_bench){at, host, b->r[i].gpu[0] ? b->r[i].gpu : NULL,
						b->r[i].test, b->r[i].value, b->r[i].unit,
						b->r[i].nominal};
	rc = ledger_bench_add(l, rows, b->n, err, errlen);
	ledger_close(l);
	return rc ? -1 : 0;
}

/* ---- --history ---- */

struct latest {
	const struct ledger_bench *row;   /* the newest row of (test, host, gpu) */
};

static int latest_cmp(const void *pa, const void *pb)
{
	const struct ledger_bench *a = ((const struct latest *)pa)->row;
	const struct ledger_bench *b = ((const struct latest *)pb)->row;
	int c = strcmp(a->test, b->test);

	if (c)
		return c;
	return (a->value < b->value) - (a->value > b->value);   /* best first */
}

static bool same_box(const struct ledger_bench *a, const struct ledger_bench *b)
{
	return !strcmp(a->test, b->test) && !strcmp(a->host, b->host) &&
	       !strcmp(a->gpu ? a->gpu : "", b->gpu ? b->gpu : "");
}

static int history(const char *path, bool json)
{
	struct ledger_bench_rows rows;
	struct latest *v = NULL;
	struct ledger *l;
	struct json j;
	char err[512];
	size_t n = 0;
	int rc = EXIT_RUNTIME;

	if (ledger_open(path, &l, err, sizeof(err)))
		return msg_fail("%s", err);
	if (ledger_bench_list(l, 0, &rows, err, sizeof(err))) {
		msg_error("%s", err);
		goto out_close;
	}
	if (rows.n && !(v = calloc(rows.n, sizeof(*v)))) {
		msg_error(_("out of memory"));
		goto out_rows;
	}
	/* rows are oldest first: a later row of the same box replaces the earlier */
	for (size_t i = 0; i < rows.n; i++) {
		size_t k;
		for (k = 0; k < n && !same_box(v[k].row, &rows.v[i]); k++)
			;
		v[k].row = &rows.v[i];
		if (k == n)
			n++;
	}
	if (n)
		qsort(v, n, sizeof(*v), latest_cmp);
	if (json) {
		json_init(&j, stdout);
		json_obj_begin(&j, NULL);
		json_str(&j, "schema", "gpurent.bench-history/1");
		json_str(&j, "ledger", ledger_path(l));
		json_arr_begin(&j, "latest");
	} else if (!n) {
		printf(_("no benchmark results in %s yet: run gpurent bench\n"), ledger_path(l));
	} else {
		printf(_("latest result of each box, best first per test (%s)\n"), ledger_path(l));
	}
	for (size_t i = 0; i < n; i++) {
		const struct ledger_bench *r = v[i].row;
		const struct ledger_bench *best = r;
		char date[32];
		time_t t = (time_t)r->at;
		struct tm tm;

		for (size_t k = i; k > 0 && !strcmp(v[k - 1].row->test, r->test); k--)
			best = v[k - 1].row;
		strftime(date, sizeof(date), "%Y-%m-%d %H:%M", localtime_r(&t, &tm));
		if (json) {
			json_obj_begin(&j, NULL);
			json_str(&j, "test", r->test);
			json_str(&j, "host", r->host);
			if (r->gpu)
				json_str(&j, "gpu", r->gpu);
			else
				json_null(&j, "gpu");
			json_num(&j, "value", r->value);
			json_str(&j, "unit", r->unit);
			json_num(&j, "nominal", r->nominal);
			json_num(&j, "ratio_to_best", best->value > 0 ? r->value / best->value : NAN);
			json_num(&j, "measured_at", r->at);
			json_obj_end(&j);
			continue;
		}
		if (best == r)
			printf("%s (%s)\n", r->test, r->unit);
		printf("  %10.*f  %5.2fx  %-20s %-30s %s", r->value >= 100 ? 0 : 2, r->value,
		       best->value > 0 ? r->value / best->value : 0.0, r->host, r->gpu ? r->gpu : "-",
		       date);
		if (isfinite(r->nominal) && r->nominal > 0)
			printf(_("  %.0f%% of nominal"), 100 * r->value / r->nominal);
		putchar('\n');
	}
	if (json) {
		json_arr_end(&j);
		json_obj_end(&j);
		fputc('\n', stdout);
	}
	rc = msg_finish(EXIT_OK);
	free(v);
out_rows:
	ledger_bench_rows_free(&rows);
out_close:
	ledger_close(l);
	return rc;
}

/* ---- the command ---- */

/* --dir, --ledger: a value that is not empty. */
static int nonempty(const struct opt *o, const char *v, void *ctx, char *err, size_t n)
{
	(void)ctx;
	if (!*v) {
		snprintf(err, n, "%s", _("expected a value"));
		return -1;
	}
	*(const char **)o->dest = v;
	return 0;
}

/* --gpu N|all: o->dest (int) gets the device number, -1 for all. */
static int gpu_arg(const struct opt *o, const char *v, void *ctx, char *err, size_t n)
{
	long k;

	(void)ctx;
	if (!*v) {
		snprintf(err, n, "%s", _("expected a value"));
		return -1;
	}
	if (!strcmp(v, "all")) {
		*(int *)o->dest = -1;
	} else if (units_parse_int(v, 0, 255, &k, err, n)) {
		snprintf(err, n, _("expected a device number or 'all', got '%s'"), v);
		return -1;
	} else {
		*(int *)o->dest = (int)k;
	}
	return 0;
}

/* --disk-size: 1MiB to 64GiB, into o->dest (double bytes). */
static int disk_size_arg(const struct opt *o, const char *v, void *ctx, char *err, size_t n)
{
	double x = 0;

	(void)ctx;
	if (units_parse_bytes(v, &x, err, n) || x < 1048576 || x > 64.0 * 1073741824) {
		snprintf(err, n, _("expected a size from 1MiB to 64GiB, got '%s'"), v);
		return -1;
	}
	*(double *)o->dest = x;
	return 0;
}

int cmd_bench(int argc, char **argv)
{
	const char *dir = ".", *ledger = NULL;
	bool json = false, want_history = false, no_gpu = false, no_store = false;
	int which = 0, rc;
	double disk_size = 256.0 * 1048576, at;
	struct gpu_db gdb;
	struct bench *b;
	char host[256], err[512], stored_at[4096] = "";
	bool stored = false;
	const struct opt opts[] = {
		{.name = "dir", .type = OPT_FILE, .cb = nonempty, .dest = &dir, .arg = "PATH",
		 .help = N_("where the disk test writes its temporary file"), .example = "."},
		OPT_BOOL("json", &json, N_("results as JSON")),
		{.name = "gpu", .type = OPT_STRING, .cb = gpu_arg, .dest = &which, .arg = "N|all",
		 .help = N_("which CUDA device(s) to measure"), .example = "0"},
		OPT_BOOL("no-gpu", &no_gpu, N_("skip the GPU part")),
		{.name = "disk-size", .type = OPT_BYTES, .cb = disk_size_arg, .dest = &disk_size,
		 .arg = "SIZE", .help = N_("bytes the disk test writes"), .example = "1MiB"},
		OPT_BOOL("no-store", &no_store, N_("do not record the results in the ledger")),
		/* the example is refused by the ledger (exit 0, not stored): trying it writes nothing */
		{.name = "ledger", .type = OPT_FILE, .cb = nonempty, .dest = &ledger, .arg = "PATH",
		 .help = N_("the ledger"), .example = "/dev/null"},
		OPT_BOOL("history", &want_history, N_("compare the boxes measured so far")),
		OPT_PROGRESS_FLAGS,
		OPT_TABLE_END,
	};
	const struct opt_cmd oc = {.name = "bench", .usage = usage, .flags = 0, .min_operands = 0,
				   .max_operands = 0, .operands = NULL};

	if ((rc = opt_parse(&oc, opts, argc, argv, NULL, NULL)) != OPT_GO)
		return rc;
	if (want_history)
		return history(ledger, json);
	if ((rc = common_load_data(&gdb, NULL)))
		return rc;
	if (!(b = calloc(1, sizeof(*b)))) {
		gpu_db_free(&gdb);
		return msg_fail(_("out of memory"));
	}
	if (gethostname(host, sizeof(host)))
		snprintf(host, sizeof(host), "unknown-host");
	host[sizeof(host) - 1] = '\0';
	at = (double)time(NULL);
	/* the parts' reasons (the C library's words in them) go into the JSON:
	 * English from here on under --json, in every locale, as env does */
	if (json)
		msg_untranslated();
	/* the parts: memory, CPU, disk (its bytes counted), the GPU */
	struct progress pr = {.label = "bench", .units = _("parts"), .total_units = no_gpu ? 3 : 4};
	b->pr = &pr;
	progress_begin(&pr);
	{
		int threads = usable_cpus();
		bench_memory(b, threads);
		progress_add(&pr, 1, 0);
		bench_cpu(b, threads);
		progress_add(&pr, 1, 0);
	}
	if (bench_disk(b, dir, (size_t)disk_size))
		b->host_failed = true;
	progress_add(&pr, 1, 0);
	if (no_gpu) {
		skipped(b, "gpu", N_("skipped: --no-gpu"));
	} else {
		bench_gpus(b, &gdb, which);
		progress_add(&pr, 1, 0);
	}
	progress_end(&pr);

	if (!no_store && b->n) {
		if (store(b, ledger, host, at, stored_at, sizeof(stored_at), err, sizeof(err)))
			msg_error(_("results not stored: %s"), err);
		else
			stored = true;
	}
	if (json) {
		print_json(b, host, at, stored, stored ? stored_at : NULL);
	} else {
		print_results(b, host);
		if (stored)
			printf(_("stored %zu results in %s (gpurent bench --history compares boxes)\n"), b->n,
			       stored_at);
	}
	rc = msg_finish(b->host_failed ? EXIT_RUNTIME : EXIT_OK);
	free(b);
	gpu_db_free(&gdb);
	return rc;
}
