/*
 * fuzz_verify_names.c - a file name (the input: any bytes but NUL and
 * '/') written into a checksum file the way each real tool writes it,
 * read back by manifest_parse() (what `gpurent verify` reads) as the same
 * name. The writers are modelled here from the tools, not from gpurent's
 * renderer:
 *   sha256sum (coreutils 9.1)  a name holding '\', LF or CR: a leading '\'
 *                              and "\\" "\n" "\r"; else the name raw
 *   b3sum 1.x                  the same for '\' and LF only: a CR stays raw
 *   md5deep                    "HASH  NAME", the name raw (no LF possible)
 *   hashdeep                   its header, then "SIZE,MD5,SHA256,NAME" raw
 * Each file holds a second entry "a" on a plain LF line, so that it is not
 * a Windows file (every line CRLF: docs/manifest.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/files/manifest.h"
#include "fuzz.h"

#define H32 "0123456789abcdef0123456789abcdef"
#define H64 H32 H32

enum writer { W_SHA256SUM, W_B3SUM, W_MD5DEEP, W_HASHDEEP, W_N };

/* name written as w writes it into out (room enough); returns its length */
static size_t put_name(enum writer w, const char *name, size_t n, char *out)
{
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		if (w == W_SHA256SUM && (c == '\\' || c == '\n' || c == '\r')) {
			out[o++] = '\\';
			out[o++] = c == '\\' ? '\\' : c == '\n' ? 'n' : 'r';
		} else if (w == W_B3SUM && (c == '\\' || c == '\n')) {
			out[o++] = '\\';
			out[o++] = c == '\\' ? '\\' : 'n';
		} else {
			out[o++] = c;
		}
	}
	return o;
}

static bool escaped(enum writer w, const char *name, size_t n)
{
	if (w == W_SHA256SUM)
		return memchr(name, '\\', n) || memchr(name, '\n', n) || memchr(name, '\r', n);
	if (w == W_B3SUM)
		return memchr(name, '\\', n) || memchr(name, '\n', n);
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *name = (const char *)data;
	static const char *const fname[W_N] = {"SHA256SUMS", "B3SUMS", "x.md5", "x.hashdeep"};
	char err[512];

	if (size == 0 || size > 4096 || memchr(data, 0, size) || memchr(data, '/', size))
		return 0;
	/* "." and ".." name no file */
	if ((size == 1 && name[0] == '.') || (size == 2 && name[0] == '.' && name[1] == '.'))
		return 0;
	/* "a" sorts apart from a name that is not "a" itself */
	if (size == 1 && name[0] == 'a')
		return 0;
	for (int w = 0; w < W_N; w++) {
		/* md5deep and hashdeep cannot hold a newline in a name */
		if ((w == W_MD5DEEP || w == W_HASHDEEP) && memchr(name, '\n', size))
			continue;
		char *buf = malloc(2 * size + 512), *p = buf;
		struct manifest m;
		if (!buf)
			return 0;
		if (w == W_HASHDEEP)
			p += sprintf(p, "%%%%%%%% HASHDEEP-1.0\n%%%%%%%% size,md5,sha256,filename\n## \n");
		const char *hash = w == W_MD5DEEP ? H32 : H64;
		if (w == W_HASHDEEP) {
			p += sprintf(p, "1,%s,%s,a\n7,%s,%s,", H32, H64, H32, H64);
		} else {
			p += sprintf(p, "%s  a\n", hash);
			if (escaped((enum writer)w, name, size))
				*p++ = '\\';
			p += sprintf(p, "%s  ", hash);
		}
		p += put_name((enum writer)w, name, size, p);
		*p++ = '\n';
		int rc = manifest_parse(buf, (size_t)(p - buf), fname[w], &m, err, sizeof(err));
		if (rc)
			fprintf(stderr, "fuzz_verify_names: writer %d: %s\n", w, err);
		FUZZ_CHECK(rc == 0);
		{
			long i = manifest_find(&m, "a");
			FUZZ_CHECK(m.n == 2 && i >= 0);
			const struct mf_entry *e = &m.v[1 - i];
			FUZZ_CHECK(strlen(e->path) == size && !memcmp(e->path, name, size));
			manifest_free(&m);
		}
		free(buf);
	}
	return 0;
}
