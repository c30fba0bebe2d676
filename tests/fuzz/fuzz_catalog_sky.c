/*
 * fuzz_catalog_sky.c - catalog_load on SkyPilot vms.csv catalogs (columns by
 * name, GpuInfo dicts): fuzz_catalog.c's checks, its own corpus.
 */
#define FUZZ_FNAME "vms.csv"
#define FUZZ_PROVIDER "lambda"
#include "fuzz_catalog.c"
