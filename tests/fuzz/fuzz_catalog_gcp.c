/*
 * fuzz_catalog_gcp.c - catalog_load on a GCP vms.csv (GPU rows joined with
 * their host VM rows, catalog_gcp.c): fuzz_catalog.c's checks, its own corpus.
 */
#define FUZZ_FNAME "vms.csv"
#define FUZZ_PROVIDER "gcp"
#include "fuzz_catalog.c"
