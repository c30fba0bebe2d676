/*
 * fuzz_sky_task.c - workload_load_yaml on SkyPilot task YAMLs (a resources:
 * section, skipped task keys): fuzz_workload.c's checks, its own corpus.
 */
#define FUZZ_FNAME "task.yaml"
#include "fuzz_workload.c"
