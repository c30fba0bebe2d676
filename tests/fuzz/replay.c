/*
 * replay.c - run a fuzz harness without libFuzzer: feeds each file named
 * on the command line to LLVMFuzzerTestOneInput once (make fuzz-replay).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static int replay(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0, got;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (len == cap) {
			unsigned char *nb = realloc(buf, cap = cap ? cap * 2 : 4096);
			if (!nb) {
				fprintf(stderr, "replay: %s: out of memory\n", path);
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nb;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
	} while (got > 0);
	if (ferror(f)) {
		fprintf(stderr, "replay: %s: read error\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	/* an exact-size copy, as libFuzzer passes it, so ASan sees overreads */
	{
		unsigned char *exact = malloc(len ? len : 1);
		if (!exact) {
			free(buf);
			return -1;
		}
		memcpy(exact, buf, len);
		free(buf);
		LLVMFuzzerTestOneInput(exact, len);
		free(exact);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int fail = 0;

	for (int i = 1; i < argc; i++)
		if (replay(argv[i]))
			fail = 1;
	return fail;
}
