/*
 * nvml_probe.c - print what src/hw/nvml.c reads, one field per token, for
 * the tests (against the fake libnvidia-ml.so) and for trying the loader
 * on a real driver: build/progs/nvml_probe.
 */
#include <stdio.h>

#include "hw/nvml.c"

int main(void)
{
	struct nvml *n;
	char err[256], drv[96];
	int ma, mi;
	unsigned count;

	if (nvml_open(&n, err, sizeof(err))) {
		printf("no nvml: %s\ngpus %u\n", err, nvml_device_count(NULL));
		return 0;
	}
	printf("library %s\n", nvml_library(n));
	if (!nvml_driver_version(n, drv, sizeof(drv)))
		printf("driver %s\n", drv);
	if (!nvml_cuda_driver_version(n, &ma, &mi))
		printf("cuda %d.%d\n", ma, mi);
	count = nvml_device_count(n);
	printf("gpus %u\n", count);
	for (unsigned i = 0; i <= count; i++) {
		struct nvml_device_info d;
		struct nvml_sample s;

		if (nvml_device_info(n, i, &d, err, sizeof(err))) {
			printf("gpu %u: %s\n", i, err);
			continue;
		}
		printf("gpu %u name=\"%s\" uuid=%s bus=%s devid=0x%08x mem=%llu used=%llu free=%llu util=%d memutil=%d "
		       "mig=%d/%d virt=%s cc=%d.%d pcie=%d/%d width=%d/%d nvlink=%d\n",
		       d.index, d.name, d.uuid, d.pci_bus_id, d.pci_device_id, (unsigned long long)d.mem_total,
		       (unsigned long long)d.mem_used, (unsigned long long)d.mem_free, d.util_gpu, d.util_mem,
		       d.mig_current, d.mig_pending, nvml_virt_mode_name(d.virt_mode), d.cc_major, d.cc_minor,
		       d.pcie_gen, d.pcie_gen_max, d.pcie_width, d.pcie_width_max, d.nvlink_active);
		if (!nvml_device_sample(n, i, &s))
			printf("sample %u util=%d memutil=%d used=%llu total=%llu\n", i, s.util_gpu, s.util_mem,
			       (unsigned long long)s.mem_used, (unsigned long long)s.mem_total);
	}
	nvml_close(n);
	return 0;
}
