/*
 * fake_nvml.c - a stand-in libnvidia-ml.so.1 for tests, selected with
 * LD_LIBRARY_PATH. It reads scripted readings from the file named by
 * FAKE_NVML_SCRIPT at nvmlInit (unset: NVML works and sees no GPU):
 *
 *   init 9                       nvmlInit returns 9 (driver not loaded)
 *   driver 550.54.15             nvmlSystemGetDriverVersion
 *   cuda 12040                   nvmlSystemGetCudaDriverVersion_v2
 *   gpu name="NVIDIA H100 80GB HBM3" uuid=GPU-0 mem=80GiB used=1GiB
 *       util=90@2,0 memutil=30 mig=0 mig_pending=0 virt=0 cc=9.0
 *       pcie=4/5 width=16/16 nvlink=18 busid=00000000:3B:00.0 devid=0x233010de
 *       migmem=9984MiB procs=/tmp/procs
 *
 * (one `gpu` line per device, all on one line). util is a time series:
 * VALUE@SECONDS holds VALUE for that long from nvmlInit on, the last value
 * holds for ever ("90@2,0": busy for two seconds, then idle). A key left
 * out makes its call answer NVML_ERROR_NOT_SUPPORTED, like a real driver.
 *
 * procs=FILE: the processes on that GPU for nvmlDeviceGetComputeRunningProcesses
 * (_v3, _v2 and the plain call, each with its own struct layout). FILE holds
 * "PID BYTES" lines (BYTES as mem=, "-" for NVML_VALUE_NOT_AVAILABLE) that
 * the fake programs (tests/progs/fakeprobe.c) rewrite as they run; it is
 * re-read at every call, and a missing file means no process. Without
 * procs= the calls answer NOT_SUPPORTED. FAKE_NVML_PROCS_API=2 or 1 makes
 * the newer calls answer NOT_FOUND, to test the fallback to the older ones.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define OK 0
#define E_UNINIT 1
#define E_ARG 2
#define E_NOTSUP 3
#define E_SIZE 7
#define E_VERSION 25
#define MAXDEV 16
#define MAXSER 32

struct fake_dev {
	char name[96], uuid[96], busid[32];
	unsigned devid;
	unsigned long long mem, used;
	int has_mem;
	double util_v[MAXSER], util_t[MAXSER];  /* value, seconds it holds (last: for ever) */
	int nutil;
	int memutil;                            /* -1: not supported */
	int mig, mig_pending, virt, ccmaj, ccmin, gen, genmax, width, widthmax, nvlink;
	unsigned long long migmem;              /* memory of the one MIG instance it shows; 0 none */
	char procs[512];                        /* procs=FILE; "" none */
};

static struct fake_dev devs[MAXDEV];
static struct fake_dev migdevs[MAXDEV];    /* the MIG instance of devs[i] (migmem=) */
static int ndev, init_rc, inited, cuda = -1;
static char driver[80];
static struct timespec t0;

static unsigned long long parse_bytes(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (!strncmp(end, "GiB", 3))
		v *= 1073741824.0;
	else if (!strncmp(end, "MiB", 3))
		v *= 1048576.0;
	else if (!strncmp(end, "GB", 2))
		v *= 1e9;
	return (unsigned long long)v;
}

static void parse_util(struct fake_dev *d, const char *s)
{
	d->nutil = 0;
	while (*s && d->nutil < MAXSER) {
		char *end;
		d->util_v[d->nutil] = strtod(s, &end);
		d->util_t[d->nutil] = -1;
		if (*end == '@')
			d->util_t[d->nutil] = strtod(end + 1, &end);
		d->nutil++;
		s = *end == ',' ? end + 1 : end;
		if (*end != ',')
			break;
	}
}

/* key=value or key="value with spaces"; returns the position after it */
static char *next_kv(char *p, char **key, char **val)
{
	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return NULL;
	*key = p;
	while (*p && *p != '=' && !isspace((unsigned char)*p))
		p++;
	if (*p != '=') {
		*val = p;
		if (*p)
			*p++ = '\0';
		return p;
	}
	*p++ = '\0';
	if (*p == '"') {
		*val = ++p;
		while (*p && *p != '"')
			p++;
	} else {
		*val = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
	}
	if (*p)
		*p++ = '\0';
	return p;
}

static void parse_gpu(char *p)
{
	struct fake_dev *d;
	char *k, *v;

	if (ndev >= MAXDEV)
		return;
	d = &devs[ndev++];
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "Fake GPU");
	snprintf(d->uuid, sizeof(d->uuid), "GPU-fake-%d", ndev - 1);
	d->memutil = d->mig = d->mig_pending = d->virt = d->ccmaj = d->gen = d->genmax = -1;
	d->width = d->widthmax = d->nvlink = -1;
	while ((p = next_kv(p, &k, &v))) {
		if (!strcmp(k, "name"))
			snprintf(d->name, sizeof(d->name), "%s", v);
		else if (!strcmp(k, "uuid"))
			snprintf(d->uuid, sizeof(d->uuid), "%s", v);
		else if (!strcmp(k, "busid"))
			snprintf(d->busid, sizeof(d->busid), "%s", v);
		else if (!strcmp(k, "devid"))
			d->devid = (unsigned)strtoul(v, NULL, 0);
		else if (!strcmp(k, "mem"))
			d->mem = parse_bytes(v), d->has_mem = 1;
		else if (!strcmp(k, "used"))
			d->used = parse_bytes(v);
		else if (!strcmp(k, "util"))
			parse_util(d, v);
		else if (!strcmp(k, "memutil"))
			d->memutil = atoi(v);
		else if (!strcmp(k, "mig"))
			d->mig = atoi(v);
		else if (!strcmp(k, "mig_pending"))
			d->mig_pending = atoi(v);
		else if (!strcmp(k, "virt"))
			d->virt = atoi(v);
		else if (!strcmp(k, "cc"))
			sscanf(v, "%d.%d", &d->ccmaj, &d->ccmin);
		else if (!strcmp(k, "pcie"))
			sscanf(v, "%d/%d", &d->gen, &d->genmax);
		else if (!strcmp(k, "width"))
			sscanf(v, "%d/%d", &d->width, &d->widthmax);
		else if (!strcmp(k, "nvlink"))
			d->nvlink = atoi(v);
		else if (!strcmp(k, "migmem"))
			d->migmem = parse_bytes(v);
		else if (!strcmp(k, "procs"))
			snprintf(d->procs, sizeof(d->procs), "%s", v);
	}
	if (d->mig >= 0 && d->mig_pending < 0)
		d->mig_pending = d->mig;
}

static void load_script(void)
{
	const char *path = getenv("FAKE_NVML_SCRIPT");
	char line[1024];
	FILE *f;

	ndev = 0;
	init_rc = OK;
	cuda = -1;
	driver[0] = '\0';
	if (!path || !(f = fopen(path, "r")))
		return;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		while (isspace((unsigned char)*p))
			p++;
		if (!strncmp(p, "init ", 5))
			init_rc = atoi(p + 5);
		else if (!strncmp(p, "driver ", 7))
			sscanf(p + 7, "%79s", driver);
		else if (!strncmp(p, "cuda ", 5))
			cuda = atoi(p + 5);
		else if (!strncmp(p, "gpu", 3) && (isspace((unsigned char)p[3]) || !p[3]))
			parse_gpu(p + 3);
	}
	fclose(f);
}

typedef struct fake_dev *nvmlDevice_t;
typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct { unsigned int version; unsigned long long total, reserved, free, used; } nvmlMemory_v2_t;
typedef struct { unsigned int gpu, memory; } nvmlUtilization_t;
typedef struct {
	char busIdLegacy[16];
	unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
	char busId[32];
} nvmlPciInfo_t;

int nvmlInit_v2(void)
{
	load_script();
	if (init_rc != OK)
		return init_rc;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	inited = 1;
	return OK;
}

int nvmlInit(void)
{
	return nvmlInit_v2();
}

int nvmlShutdown(void)
{
	if (!inited)
		return E_UNINIT;
	inited = 0;
	return OK;
}

const char *nvmlErrorString(int r)
{
	switch (r) {
	case OK: return "Success";
	case E_UNINIT: return "Uninitialized";
	case E_ARG: return "Invalid Argument";
	case E_NOTSUP: return "Not Supported";
	case 9: return "Driver Not Loaded";
	case E_VERSION: return "Argument Version Mismatch";
	default: return "Unknown Error";
	}
}

int nvmlDeviceGetCount_v2(unsigned int *count)
{
	if (!inited)
		return E_UNINIT;
	*count = (unsigned)ndev;
	return OK;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *dev)
{
	if (!inited)
		return E_UNINIT;
	if (i >= (unsigned)ndev)
		return E_ARG;
	*dev = &devs[i];
	return OK;
}

static int copy_str(char *out, unsigned int len, const char *s)
{
	if (strlen(s) + 1 > len)
		return E_SIZE;
	memcpy(out, s, strlen(s) + 1);
	return OK;
}

int nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int len)
{
	return copy_str(name, len, d->name);
}

int nvmlDeviceGetUUID(nvmlDevice_t d, char *uuid, unsigned int len)
{
	return copy_str(uuid, len, d->uuid);
}

int nvmlSystemGetDriverVersion(char *v, unsigned int len)
{
	if (!driver[0])
		return E_NOTSUP;
	return copy_str(v, len, driver);
}

int nvmlSystemGetCudaDriverVersion_v2(int *v)
{
	if (cuda < 0)
		return E_NOTSUP;
	*v = cuda;
	return OK;
}

int nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m)
{
	if (!d->has_mem)
		return E_NOTSUP;
	m->total = d->mem;
	m->used = d->used;
	m->free = d->mem - d->used;
	return OK;
}

int nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t d, nvmlMemory_v2_t *m)
{
	if (m->version != (unsigned)(sizeof(nvmlMemory_v2_t) | (2u << 24)))
		return E_VERSION;
	if (!d->has_mem)
		return E_NOTSUP;
	m->total = d->mem;
	m->reserved = 0;
	m->used = d->used;
	m->free = d->mem - d->used;
	return OK;
}

int nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u)
{
	struct timespec now;
	double t, acc = 0;
	int i;

	if (!d->nutil)
		return E_NOTSUP;
	clock_gettime(CLOCK_MONOTONIC, &now);
	t = (double)(now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9;
	for (i = 0; i < d->nutil - 1; i++) {
		if (d->util_t[i] < 0 || t < acc + d->util_t[i])
			break;
		acc += d->util_t[i];
	}
	u->gpu = (unsigned)d->util_v[i];
	u->memory = d->memutil >= 0 ? (unsigned)d->memutil : 0;
	return OK;
}

int nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *p)
{
	if (!d->busid[0])
		return E_NOTSUP;
	memset(p, 0, sizeof(*p));
	snprintf(p->busId, sizeof(p->busId), "%s", d->busid);
	snprintf(p->busIdLegacy, sizeof(p->busIdLegacy), "%.15s", d->busid + (strlen(d->busid) > 12 ? 4 : 0));
	p->pciDeviceId = d->devid;
	return OK;
}

int nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned int *cur, unsigned int *pend)
{
	if (d->mig < 0)
		return E_NOTSUP;
	*cur = (unsigned)d->mig;
	*pend = (unsigned)d->mig_pending;
	return OK;
}

int nvmlDeviceGetVirtualizationMode(nvmlDevice_t d, int *mode)
{
	if (d->virt < 0)
		return E_NOTSUP;
	*mode = d->virt;
	return OK;
}

int nvmlDeviceGetCudaComputeCapability(nvmlDevice_t d, int *ma, int *mi)
{
	if (d->ccmaj < 0)
		return E_NOTSUP;
	*ma = d->ccmaj;
	*mi = d->ccmin;
	return OK;
}

static int uint_reading(int v, unsigned int *out)
{
	if (v < 0)
		return E_NOTSUP;
	*out = (unsigned)v;
	return OK;
}

int nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t d, unsigned int *v) { return uint_reading(d->gen, v); }
int nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t d, unsigned int *v) { return uint_reading(d->genmax, v); }
int nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t d, unsigned int *v) { return uint_reading(d->width, v); }
int nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t d, unsigned int *v) { return uint_reading(d->widthmax, v); }

int nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned int link, int *active)
{
	if (d->nvlink < 0)
		return E_NOTSUP;
	if (link >= 18)
		return E_ARG;
	*active = (int)link < d->nvlink;
	return OK;
}

/* MIG: with mig=1 the card has up to 7 instance slots; slot 0 is the one
 * instance this process may open when migmem= is given (a container given
 * one slice), the others answer NOT_FOUND (6). */
int nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t d, unsigned int *count)
{
	if (d->mig < 0)
		return E_NOTSUP;
	*count = d->mig == 1 ? 7 : 0;
	return OK;
}

int nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t d, unsigned int i, nvmlDevice_t *mig)
{
	struct fake_dev *m;

	if (d->mig != 1)
		return E_ARG;
	if (i != 0 || !d->migmem)
		return 6;   /* NVML_ERROR_NOT_FOUND */
	m = &migdevs[d - devs];
	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "%.80s MIG", d->name);
	m->mem = d->migmem;
	m->has_mem = 1;
	m->mig = m->virt = m->ccmaj = m->gen = m->genmax = m->width = m->widthmax = m->nvlink = -1;
	*mig = m;
	return OK;
}

/* ---- per-process memory (procs=FILE) ---- */
typedef struct { unsigned int pid; unsigned long long used; } proc_v1;
typedef struct { unsigned int pid; unsigned long long used; unsigned int gi, ci; } proc_v2;
typedef struct { unsigned int pid; unsigned long long used; unsigned int gi, ci; unsigned long long cc; } proc_v3;
#define E_NOTFOUND 6
#define MAXPROC 64

/* The file's "PID BYTES" lines into pids/used; how many, or -1 (no procs=). */
static int read_procs(struct fake_dev *d, unsigned *pids, unsigned long long *used)
{
	char line[256];
	int n = 0;
	FILE *f;

	if (!d->procs[0])
		return -1;
	if (!(f = fopen(d->procs, "r")))
		return 0;
	while (n < MAXPROC && fgets(line, sizeof(line), f)) {
		char *end, *p;
		unsigned long pid = strtoul(line, &end, 10);
		if (end == line || !pid)
			continue;
		for (p = end; isspace((unsigned char)*p); p++)
			;
		pids[n] = (unsigned)pid;
		used[n] = *p == '-' ? ~0ULL : parse_bytes(p);
		n++;
	}
	fclose(f);
	return n;
}

/* The shared part of the three calls: api is 1, 2 or 3. */
static int procs_call(int api, nvmlDevice_t d, unsigned int *count, void *infos)
{
	const char *only = getenv("FAKE_NVML_PROCS_API");
	unsigned pids[MAXPROC];
	unsigned long long used[MAXPROC];
	int n;

	if (only && atoi(only) < api)
		return E_NOTFOUND;   /* as if this driver lacked the newer symbol */
	if (!inited)
		return E_UNINIT;
	if (!d || !count)
		return E_ARG;
	if ((n = read_procs(d, pids, used)) < 0)
		return E_NOTSUP;
	if ((unsigned)n > *count) {
		*count = (unsigned)n;
		return E_SIZE;
	}
	for (int i = 0; i < n; i++) {
		if (api == 1)
			((proc_v1 *)infos)[i] = (proc_v1){pids[i], used[i]};
		else if (api == 2)
			((proc_v2 *)infos)[i] = (proc_v2){pids[i], used[i], 0, 0};
		else
			((proc_v3 *)infos)[i] = (proc_v3){pids[i], used[i], 0, 0, 0};
	}
	*count = (unsigned)n;
	return OK;
}

int nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int *count, void *infos)
{
	return procs_call(3, d, count, infos);
}

int nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t d, unsigned int *count, void *infos)
{
	return procs_call(2, d, count, infos);
}

int nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t d, unsigned int *count, void *infos)
{
	return procs_call(1, d, count, infos);
}
