/*
 * fuzz_nettcp.c - secscan_parse_tcp() (src/core/box/secscan.h) on the input
 * as /proc/net/tcp and as tcp6, and secscan_key_kind() on it as a key
 * file's first bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "core/box/secscan.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (int v6 = 0; v6 <= 1; v6++) {
		struct sec_sock *v = NULL;
		size_t n = 7;
		char err[256] = "";
		int rc = secscan_parse_tcp((const char *)data, size, "tcp", v6, &v, &n, err, sizeof(err));

		/* "0, or -1 with ... in err and nothing allocated" */
		FUZZ_CHECK(rc == 0 || rc == -1);
		if (rc) {
			FUZZ_CHECK(v == NULL && n == 0);
			FUZZ_CHECK(!strncmp(err, "tcp:", 4));
		}
		for (size_t i = 0; i < n; i++) {
			FUZZ_CHECK(memchr(v[i].addr, '\0', sizeof(v[i].addr)) != NULL);
			FUZZ_CHECK(v[i].port >= 0 && v[i].port <= 0xffff);
			FUZZ_CHECK(v[i].bind == SEC_BIND_ANY || v[i].bind == SEC_BIND_LOOPBACK ||
				   v[i].bind == SEC_BIND_ADDR);
		}
		free(v);
	}
	{
		enum sec_key k = secscan_key_kind((const char *)data, size);
		FUZZ_CHECK(k >= SEC_KEY_NOT_A_KEY && k <= SEC_KEY_UNKNOWN);
	}
	return 0;
}
