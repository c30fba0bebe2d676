/*
 * catalog_vast.h - vast.ai's offer search answer (the JSON of POST
 * /api/v0/bundles/, vast-cli vast.py `search offers`) written as a
 * SkyPilot vms.csv in the layout of SkyPilot's own vast fetcher
 * (sky/catalog/data_fetchers/fetch_vast.py), so the SkyPilot loader
 * reads it (docs/offers.md "Fetched catalogs").
 */
#ifndef GPURENT_CATALOG_VAST_H
#define GPURENT_CATALOG_VAST_H

#include <stddef.h>

#include "base/strbuf.h"

/* fetch_vast.py's columns, in its order (mapped_keys). */
#define CATALOG_VAST_HEADER \
	"InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,HostingType"

/*
 * Convert buf (len bytes of JSON: an object whose "offers" is an array of
 * objects) into out (a growing strbuf the caller releases): the header,
 * then one row per offer with a GPU count, a GPU name and a price. Offers
 * without them are counted in *skipped. Returns 0 with *rows set, or -1
 * with "FILE: byte N: expected ..." in err (fname names the input) when
 * the text is not such JSON (nesting over 64 levels included). Pure.
 */
int catalog_vast_to_csv(const char *buf, size_t len, const char *fname, struct strbuf *out,
			size_t *rows, size_t *skipped, char *err, size_t errlen);

#endif
