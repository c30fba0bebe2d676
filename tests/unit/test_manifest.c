/*
 * test_manifest.c - hashing (known digests), the three manifest formats
 * (round trips with odd names, one error per malformed line), the
 * comparison behind `gpurent verify`, and the ordered thread pool.
 */
#include "testutil.h"

#include <pthread.h>
#include <sched.h>

#include "core/files/hashing.h"
#include "core/files/manifest.h"
#include "base/pool.h"
#include "os/crypto.h"
#include "base/util.h"

/* ---- hashing ---- */

static void hex_of(enum hash_algo a, const void *p, size_t n, char *hex)
{
	struct hash_ctx h;
	unsigned char d[HASH_MAX_BYTES];
	char err[128];

	assert_int_equal(hash_init(&h, a, err, sizeof(err)), 0);
	assert_int_equal(hash_buffer(&h, p, n, d), 0);
	hash_to_hex(d, hash_size(a), hex);
	hash_free(&h);
}

static void test_hash_known_values(void **s)
{
	char hex[HASH_MAX_HEX + 1];

	(void)s;
	/* FIPS 180-2 appendix B.1 */
	hex_of(HASH_SHA256, "abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	hex_of(HASH_SHA256, "", 0, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	/* XXH3-128 of nothing, canonical (big-endian) form as xxhsum -H2 prints it */
	hex_of(HASH_XXH3, "", 0, hex);
	assert_string_equal(hex, "99aa06d3014798d86001c324468d497f");
	/* "a" as `printf a | xxhsum -H2` prints it */
	hex_of(HASH_XXH3, "a", 1, hex);
	assert_string_equal(hex, "a96faf705af16834e6c632b61e964e1f");
	assert_int_equal(hash_size(HASH_XXH3), 16);
	assert_int_equal(hash_size(HASH_SHA256), 32);
	/* RFC 1321 A.5, FIPS 180-2 appendix A.1 and C.1, RFC 7693 appendix A */
	hex_of(HASH_MD5, "abc", 3, hex);
	assert_string_equal(hex, "900150983cd24fb0d6963f7d28e17f72");
	hex_of(HASH_SHA1, "abc", 3, hex);
	assert_string_equal(hex, "a9993e364706816aba3e25717850c26c9cd0d89d");
	hex_of(HASH_SHA512, "abc", 3, hex);
	assert_string_equal(hex, "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
				 "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f");
	hex_of(HASH_BLAKE2B, "abc", 3, hex);
	assert_string_equal(hex, "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
				 "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923");
	/* "z" as xxhsum 0.8.1 -H0, -H1, -H3 and -H2 print it (`printf z | xxhsum -H3`) */
	hex_of(HASH_XXH32, "z", 1, hex);
	assert_string_equal(hex, "a73026ce");
	hex_of(HASH_XXH64, "z", 1, hex);
	assert_string_equal(hex, "048a5a7677a8e488");
	hex_of(HASH_XXH3_64, "z", 1, hex);
	assert_string_equal(hex, "54a7d9dde88eadb0");
	hex_of(HASH_XXH3, "z", 1, hex);
	assert_string_equal(hex, "7c282968b0591d9654a7d9dde88eadb0");
	{
		struct hash_ctx h;
		char err[128];
		assert_int_equal(hash_init(&h, HASH_BLAKE3, err, sizeof(err)), -1);   /* b3sum's job */
		assert_non_null(strstr(err, "b3sum"));
		hash_free(&h);
	}
}

/* SHA-256 is injected: none installed is an error, not a crash; a stand-in
 * implementation gets every call; libcrypto's is put back. */
static int fake_calls;
static int fake_new(void **ctx, enum hash_algo a, char *err, size_t errlen)
{
	assert_int_equal(a, HASH_SHA256);
	(void)err;
	(void)errlen;
	fake_calls++;
	*ctx = &fake_calls;
	return 0;
}
static void fake_free(void *ctx) { assert_ptr_equal(ctx, &fake_calls); fake_calls++; }
static int fake_begin(void *ctx) { (void)ctx; fake_calls++; return 0; }
static int fake_update(void *ctx, const void *p, size_t n) { (void)ctx; (void)p; (void)n; fake_calls++; return 0; }
static int fake_final(void *ctx, unsigned char *out)
{
	(void)ctx;
	memset(out, 0xab, 32);
	fake_calls++;
	return 0;
}

static void test_hash_sha256_injected(void **s)
{
	static const struct hash_crypto_ops fake = {fake_new, fake_free, fake_begin, fake_update,
						     fake_final};
	struct hash_ctx h;
	unsigned char d[HASH_MAX_BYTES];
	char err[128], hex[HASH_MAX_HEX + 1];

	(void)s;
	hashing_set_crypto(NULL);
	assert_int_equal(hash_init(&h, HASH_SHA256, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "SHA256 is not available"));
	hash_free(&h);
	assert_int_equal(hash_init(&h, HASH_XXH3, err, sizeof(err)), 0);   /* XXH3 needs nothing */
	hash_free(&h);
	hashing_set_crypto(&fake);
	fake_calls = 0;
	assert_int_equal(hash_init(&h, HASH_SHA256, err, sizeof(err)), 0);
	assert_int_equal(hash_buffer(&h, "abc", 3, d), 0);
	hash_free(&h);
	assert_int_equal(fake_calls, 5);   /* new, begin, update, final, free */
	hash_to_hex(d, 32, hex);
	assert_string_equal(hex, "abababababababababababababababababababababababababababababababab");
	hashing_set_crypto(crypto_hash_ops());
	hex_of(HASH_SHA256, "abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

/* Streaming in odd-sized pieces gives the one-shot digest. */
static void test_hash_streaming(void **s)
{
	enum hash_algo algos[] = {HASH_XXH3, HASH_SHA256, HASH_MD5, HASH_SHA1, HASH_SHA512,
				  HASH_BLAKE2B, HASH_XXH32, HASH_XXH64, HASH_XXH3_64};
	size_t n = 3 * 1000 * 1000 + 7;
	unsigned char *buf = malloc(n), one[HASH_MAX_BYTES], str[HASH_MAX_BYTES];
	char err[128];

	(void)s;
	assert_non_null(buf);
	for (size_t i = 0; i < n; i++)
		buf[i] = (unsigned char)(i * 2654435761u >> 13);
	for (size_t a = 0; a < ARRAY_SIZE(algos); a++) {
		struct hash_ctx h;
		assert_int_equal(hash_init(&h, algos[a], err, sizeof(err)), 0);
		assert_int_equal(hash_buffer(&h, buf, n, one), 0);
		for (int round = 0; round < 2; round++) {   /* the context is reusable */
			size_t off = 0, step = 1;
			assert_int_equal(hash_begin(&h), 0);
			while (off < n) {
				size_t k = n - off < step ? n - off : step;
				assert_int_equal(hash_update(&h, buf + off, k), 0);
				off += k;
				step = step * 3 + 1;
			}
			assert_int_equal(hash_final(&h, str), 0);
			assert_memory_equal(one, str, hash_size(algos[a]));
		}
		buf[n / 2] ^= 1;   /* one flipped bit changes the digest */
		assert_int_equal(hash_buffer(&h, buf, n, str), 0);
		assert_memory_not_equal(one, str, hash_size(algos[a]));
		buf[n / 2] ^= 1;
		hash_free(&h);
	}
	free(buf);
}

static void test_hash_names_hex(void **s)
{
	enum hash_algo a;
	unsigned char d[4];

	(void)s;
	assert_int_equal(hash_parse_name("XXH3", &a), 0);
	assert_int_equal(a, HASH_XXH3);
	assert_int_equal(hash_parse_name("sha-256", &a), 0);
	assert_int_equal(a, HASH_SHA256);
	assert_int_equal(hash_parse_name("md5", &a), 0);
	assert_int_equal(a, HASH_MD5);
	assert_int_equal(hash_parse_name("xxh3-64", &a), 0);
	assert_int_equal(a, HASH_XXH3_64);
	assert_int_equal(hash_parse_name("crc32", &a), -1);
	/* every algorithm's name and tag read back as itself */
	for (int i = 0; i < HASH_NALGOS; i++) {
		const char *t = hash_tag((enum hash_algo)i);
		assert_int_equal(hash_parse_name(hash_name((enum hash_algo)i), &a), 0);
		assert_int_equal(a, i);
		assert_int_equal(hash_parse_tag(t, strlen(t), &a), 0);
		assert_int_equal(a, i);
	}
	assert_int_equal(hash_parse_tag("BLAKE2b-256", 11, &a), -1);
	assert_int_equal(hash_parse_tag("sha256", 6, &a), -1);   /* tags are written upper-case */
	assert_int_equal(hash_from_hex("00fFa9", 3, d), 0);
	assert_int_equal(d[1], 0xff);
	assert_int_equal(d[2], 0xa9);
	assert_int_equal(hash_from_hex("0g", 1, d), -1);
	assert_int_equal(hash_from_hex("0", 1, d), -1);   /* stops at the terminator */
}

/* ---- formats ---- */

/* Names every format must carry through a round trip (hashdeep: no newlines). */
static const char *const odd_names[] = {
	"plain.bin", "sp ace.jpg", " leading and trailing ", "back\\slash", "new\nline",
	"cr\rreturn", "bad\xff\xfeutf8", "caf\xc3\xa9/\xe5\x9b\xbe.png", "com,ma,", "dir/sub/deep.txt",
	"#hash-first", "%%%% not a header", "star*name", "two  spaces",
};
#define NODD (ARRAY_SIZE(odd_names))

static void fill(struct manifest *m, bool with_newlines, bool with_link)
{
	for (size_t i = 0; i < NODD; i++) {
		struct mf_entry *e;
		if (!with_newlines && strpbrk(odd_names[i], "\n\r"))
			continue;
		e = manifest_add(m, odd_names[i], strlen(odd_names[i]), MF_FILE, 1000 * i + 3);
		assert_non_null(e);
		for (size_t k = 0; k < HASH_MAX_BYTES; k++)
			e->hash[k] = (unsigned char)(i * 31 + k);
		e->has_hash = true;
	}
	if (with_link) {
		struct mf_entry *e = manifest_add(m, "link to", 7, MF_SYMLINK, 9);
		memset(e->hash, 0xab, sizeof(e->hash));
		e->has_hash = true;
	}
	manifest_sort(m);
}

static void round_trip(enum mf_format f, enum hash_algo a, bool newlines, bool link)
{
	struct manifest m, back;
	struct mf_parse_opts po = {.algo_set = true, .algo = a};
	char *text, err[512];
	size_t len;

	manifest_init(&m, f, a);
	fill(&m, newlines, link);
	assert_int_equal(manifest_render(&m, "/data", "gpurent manifest .", &text, &len, err, sizeof(err)), 0);
	if (manifest_parse_opts(text, len, "m", &po, &back, err, sizeof(err)))
		fail_msg("%s: %s\n%s", manifest_format_name(f), err, text);
	/* XXH3-64 sum files are written as xxhsum -H3 writes them: tag lines */
	assert_int_equal(back.format, f == MF_SHA256SUM && a == HASH_XXH3_64 ? MF_BSD : f);
	assert_int_equal(back.algo, a);
	assert_int_equal(back.n, m.n);
	for (size_t i = 0; i < m.n; i++) {
		assert_string_equal(back.v[i].path, m.v[i].path);
		assert_int_equal(back.v[i].kind, m.v[i].kind);
		assert_true(back.v[i].has_hash);
		assert_memory_equal(back.v[i].hash, m.v[i].hash, hash_size(a));
		if (f == MF_GPURENT || f == MF_HASHDEEP)
			assert_int_equal(back.v[i].size, m.v[i].size);
	}
	assert_int_equal(back.has_sizes, f == MF_GPURENT || f == MF_HASHDEEP);
	free(text);
	manifest_free(&back);
	manifest_free(&m);
}

static void test_round_trips(void **s)
{
	(void)s;
	round_trip(MF_GPURENT, HASH_XXH3, true, true);
	round_trip(MF_GPURENT, HASH_SHA256, true, true);
	round_trip(MF_SHA256SUM, HASH_SHA256, true, false);
	round_trip(MF_SHA256SUM, HASH_XXH3, false, false);   /* xxhsum -H2 layout: no newlines */
	round_trip(MF_HASHDEEP, HASH_SHA256, false, false);
	for (int a = 0; a < HASH_NALGOS; a++) {
		bool xxh = hash_is_xxh((enum hash_algo)a);
		round_trip(MF_SHA256SUM, (enum hash_algo)a, !xxh, false);
		round_trip(MF_BSD, (enum hash_algo)a, !xxh, false);
		round_trip(MF_GPURENT, (enum hash_algo)a, true, true);
	}
	round_trip(MF_HASHDEEP, HASH_MD5, false, false);
	round_trip(MF_HASHDEEP, HASH_SHA1, false, false);
}

/* The exact bytes: coreutils' escaping, hashdeep's "./" and header. */
static void test_render_exact(void **s)
{
	struct manifest m;
	struct mf_entry *e;
	char *text, err[256], esc[64];
	size_t len;

	(void)s;
	manifest_init(&m, MF_SHA256SUM, HASH_SHA256);
	e = manifest_add(&m, "a\\b\nc", 5, MF_FILE, 4);
	memset(e->hash, 0x11, 32);
	e->has_hash = true;
	e = manifest_add(&m, "x y", 3, MF_FILE, 7);
	memset(e->hash, 0x22, 32);
	e->has_hash = true;
	e = manifest_add(&m, "ln", 2, MF_SYMLINK, 1);   /* not expressible: left out */
	e->has_hash = true;
	manifest_sort(&m);
	assert_int_equal(manifest_render(&m, NULL, NULL, &text, &len, err, sizeof(err)), 0);
	assert_string_equal(text,
		"\\1111111111111111111111111111111111111111111111111111111111111111  a\\\\b\\nc\n"
		"2222222222222222222222222222222222222222222222222222222222222222  x y\n");
	free(text);
	m.format = MF_GPURENT;
	assert_int_equal(manifest_render(&m, NULL, NULL, &text, &len, err, sizeof(err)), 0);
	assert_non_null(strstr(text, "# gpurent manifest 1\n# hash: sha256\n# follow-symlinks: no\n"
				     "# files: 2\n# symlinks: 1\n# bytes: 11\n"));
	assert_non_null(strstr(text, "\n\\f 4 1111"));
	assert_non_null(strstr(text, "1111 a\\\\b\\nc\nl 1 0000"));
	free(text);
	m.format = MF_HASHDEEP;
	assert_int_equal(manifest_render(&m, NULL, NULL, &text, &len, err, sizeof(err)), -1);
	assert_string_equal(err, "a name with a newline or carriage return cannot be written in "
				 "the hashdeep format (use gpurent or sha256sum)");
	manifest_free(&m);

	manifest_init(&m, MF_HASHDEEP, HASH_SHA256);
	e = manifest_add(&m, "d/f,1", 5, MF_FILE, 12);
	memset(e->hash, 0xcd, 32);
	e->has_hash = true;
	assert_int_equal(manifest_render(&m, "/data\nx", "gpurent manifest", &text, &len, err, sizeof(err)), 0);
	assert_string_equal(text, "%%%% HASHDEEP-1.0\n%%%% size,sha256,filename\n"
				  "## Invoked from: /data?x\n## $ gpurent manifest\n## \n"
				  "12,cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd,./d/f,1\n");
	free(text);
	m.algo = HASH_XXH3;
	assert_int_equal(manifest_render(&m, NULL, NULL, &text, &len, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "hashdeep format holds md5, sha1 or sha256"));
	manifest_free(&m);

	assert_true(manifest_escape("a\\b\rc", esc, sizeof(esc)));
	assert_string_equal(esc, "a\\\\b\\rc");
	assert_false(manifest_escape("plain name", esc, sizeof(esc)));
	assert_string_equal(esc, "plain name");
}

/* Files written by the real tools, as they write them. */
static void test_parse_foreign(void **s)
{
	const char *sum = "# a comment sha256sum -c skips\n"
		"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  ./abc.txt\n"
		"\\e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 *new\\nline\n";
	const char *hd = "%%%% HASHDEEP-1.0\n%%%% size,md5,sha256,filename\n"
		"## Invoked from: /tmp/d\n## $ hashdeep -c md5,sha256 -r -l .\n## \n"
		"3,900150983cd24fb0d6963f7d28e17f72,ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad,./a,b/c.txt\n";
	struct manifest m;
	char err[256];

	(void)s;
	assert_int_equal(manifest_parse(sum, strlen(sum), "SHA256SUMS", &m, err, sizeof(err)), 0);
	assert_int_equal(m.format, MF_SHA256SUM);
	assert_int_equal(m.algo, HASH_SHA256);
	assert_int_equal(m.n, 2);
	assert_string_equal(m.v[0].path, "abc.txt");
	assert_string_equal(m.v[1].path, "new\nline");
	assert_int_equal(m.v[0].line, 2);
	assert_false(m.has_sizes);
	manifest_free(&m);
	assert_int_equal(manifest_parse(hd, strlen(hd), "h", &m, err, sizeof(err)), 0);
	assert_int_equal(m.format, MF_HASHDEEP);
	assert_int_equal(m.n, 1);
	assert_string_equal(m.v[0].path, "a,b/c.txt");
	assert_int_equal(m.v[0].size, 3);
	assert_int_equal(m.v[0].hash[0], 0xba);
	manifest_free(&m);
}

#define H32 "0123456789abcdef0123456789abcdef"
#define H64 H32 H32
#define GP_HEAD "# gpurent manifest 1\n# hash: xxh3-128\n# follow-symlinks: no\n"

/* Data-driven: malformed input and the one line it must produce. */
static void test_parse_errors(void **s)
{
	static const struct { const char *in, *err; } cases[] = {
		{"", "m:1: expected a manifest: '# gpurent manifest 1', '%%%% HASHDEEP-1.0', 'HASH  NAME' or 'TAG (NAME) = HASH' lines"},
		{"# only comments\n", "m:1: expected a manifest"},
		{"# gpurent manifest 2\n", "m:1: expected '# gpurent manifest 1' (this gpurent reads version 1)"},
		{"# gpurent manifest 1\n", "m:2: expected the header lines '# hash:', '# files:' and '# bytes:'"},
		{GP_HEAD "# files: 1\n# bytes: 3\n# colour: red\n", "m:6: unknown header key 'colour'"},
		{GP_HEAD "# files: x\n", "m:4: files: expected a whole number from 0 to 1000000000000, got 'x'"},
		{"# gpurent manifest 1\n# hash: crc32\n", "m:2: hash: expected xxh3-128, sha256, md5, sha1, sha512, blake2b, blake3, xxh32, xxh64 or xxh3-64, got 'crc32'"},
		{"# gpurent manifest 1\n# follow-symlinks: maybe\n", "m:2: follow-symlinks: expected yes or no, got 'maybe'"},
		{GP_HEAD "f 3 " H32 " a\n", "m:4: expected the header lines '# hash:', '# files:' and '# bytes:' before the first entry"},
		{GP_HEAD "# files: 1\n# bytes: 3\nf 3 " H32 "\n", "m:6: expected an entry 'f|l SIZE HASH PATH'"},
		{GP_HEAD "# files: 1\n# bytes: 3\nx 3 " H32 " a\n", "m:6: expected an entry 'f|l SIZE HASH PATH', got 'x 3 0123"},
		{GP_HEAD "# files: 1\n# bytes: 3\nf 3k " H32 " a\n", "m:6: size: expected a size in bytes from 0 to 1000000000000000000 (1 EB), got '3k'"},
		{GP_HEAD "# files: 1\n# bytes: 3\nf 3 " H64 " a\n", "m:6: expected 32 hex digits (xxh3-128), got '0123"},
		{GP_HEAD "# files: 1\n# bytes: 3\nf 3 0123456789abcdef0123456789abcdeg a\n", "m:6: expected 32 hex digits (xxh3-128)"},
		{GP_HEAD "# files: 1\n# bytes: 3\n\\f 3 " H32 " a\\tb\n", "m:6: expected \\\\, \\n or \\r after a backslash in an escaped name"},
		{GP_HEAD "# files: 1\n# bytes: 3\nf 3 " H32 " /etc/passwd\n", "m:6: expected a relative path without empty, '.' or '..' parts, got '/etc/passwd'"},
		{GP_HEAD "# files: 1\n# bytes: 3\nf 3 " H32 " a/../../b\n", "m:6: expected a relative path"},
		{GP_HEAD "# files: 1\n# bytes: 3\nf 3 " H32 " a//b\n", "m:6: expected a relative path"},
		{GP_HEAD "# files: 1\n# bytes: 3\nf 3 " H32 " a/\n", "m:6: expected a relative path"},
		{GP_HEAD "# files: 2\n# bytes: 6\nf 3 " H32 " a\nf 3 " H32 " a\n", "m:7: duplicate name 'a' (also on line 6)"},
		{GP_HEAD "# files: 3\n# bytes: 6\nf 3 " H32 " a\nf 3 " H32 " b\n", "m:4: files: the header says 3, the manifest lists 2 (truncated or edited?)"},
		{GP_HEAD "# files: 2\n# bytes: 7\nf 3 " H32 " a\nf 3 " H32 " b\n", "m:5: bytes: the header says 7, the sizes add up to 6"},
		{GP_HEAD "# files: 1\n# bytes: 3\n# symlinks: 1\nf 3 " H32 " a\n", "m:6: symlinks: the header says 1, the manifest lists 0"},
		{GP_HEAD "# files: 1\n# bytes: 3\nf 3 " H32 " a\n# hash: sha256\n", "m:7: hash: expected once, before the first entry"},
		{H64 "  a\n" H32 "  b\n", "m:2: expected 64 hex digits (sha256), got '0123"},
		{H64 " a\n", "m:1: expected 'HASH  NAME' (sha256sum format) or 'TAG (NAME) = HASH', got '0123"},
		{H64 "  /abs\n", "m:1: expected a relative path without empty, '.' or '..' parts, got '/abs' (write the manifest from inside the directory, e.g. hashdeep -l -r .)"},
		{H64 "  a\nfoo\n", "m:2: expected 'HASH  NAME' (sha256sum format) or 'TAG (NAME) = HASH', got 'foo'"},
		{H64 "  a\n" H64 "  ./a\n", "m:2: duplicate name 'a' (also on line 1)"},
		{H64 "  a\0b\n", "m:2: expected 'HASH  NAME'"},   /* a NUL: sha256sum -z records */
		{"# gpurent manifest 1\n#\0x\n", "m:2: expected text, found a NUL byte"},
		{"%%%% HASHDEEP-1.0\n", "m:2: expected the hashdeep column line '%%%% size,sha256,filename'"},
		{"%%%% HASHDEEP-1.0\n%%%% size,md5,filename\n", "m:2: expected columns size, sha256 and filename last, got 'size,md5,filename'"},
		{"%%%% HASHDEEP-1.0\n%%%% size,sha256,filename\n3," H64 "\n", "m:3: expected 3 comma-separated columns"},
		{"%%%% HASHDEEP-1.0\n%%%% size,sha256,filename\nx," H64 ",./a\n", "m:3: size: expected a size in bytes from 0 to 1000000000000000000 (1 EB), got 'x'"},
		/* manifest-bytes-total-wraps: no number read from a manifest wraps */
		{GP_HEAD "# files: 2\n# bytes: 1\nf 18446744073709551615 " H32 " a\nf 2 " H32 " b\n",
		 "m:6: size: expected a size in bytes from 0 to 1000000000000000000 (1 EB), got '18446744073709551615'"},
		{GP_HEAD "# files: 2\n# bytes: 1\nf 1000000000000000000 " H32 " a\nf 1 " H32 " b\n",
		 "m:7: size: expected the sizes to add up to at most 1000000000000000000 bytes (1 EB), got 1 more after 1000000000000000000"},
		{GP_HEAD "# files: 1\n# bytes: 18446744073709551616\n", "m:5: bytes: expected a whole number from 0 to 1000000000000000000, got '18446744073709551616'"},
		{GP_HEAD "# files: 1\n# bytes: 1000000000000000001\n", "m:5: bytes: expected a whole number from 0 to 1000000000000000000"},
		{GP_HEAD "# files: 99999999999999999999\n", "m:4: files: expected a whole number from 0 to 1000000000000"},
		{GP_HEAD "# files: 1\n# bytes: 3\n# symlinks: -1\n", "m:6: symlinks: expected a whole number"},
		{GP_HEAD "# files: 1\n# bytes: 3\nf 0x3 " H32 " a\n", "m:6: size: expected a size in bytes"},
		{"%%%% HASHDEEP-1.0\n%%%% size,sha256,filename\n18446744073709551615," H64 ",./a\n", "m:3: size: expected a size in bytes from 0 to 1000000000000000000 (1 EB)"},
		{"%%%% HASHDEEP-1.0\n%%%% size,sha256,filename\n900000000000000000," H64 ",./a\n900000000000000000," H64 ",./b\n",
		 "m:4: size: expected the sizes to add up to at most"},
		{"%%%% HASHDEEP-1.0\n%%%% size,sha256,filename\n-1," H64 ",./a\n", "m:3: size: expected a size in bytes"},
		{"%%%% HASHDEEP-1.0\n%%%% size,sha256,filename\n3," H32 ",./a\n", "m:3: expected 64 hex digits (sha256)"},
		{"%%%% HASHDEEP-1.0 \n", "m:1: expected '%%%% HASHDEEP-1.0'"},
	};
	static const struct mf_parse_opts sha256 = {.algo_set = true, .algo = HASH_SHA256};
	char err[512];

	(void)s;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct manifest m;
		size_t len = strlen(cases[i].in);
		if (!strcmp(cases[i].err, "m:2: expected text, found a NUL byte"))
			len = 21 + 4;   /* the literal goes on past its NUL */
		if (!strcmp(cases[i].err, "m:2: expected 'HASH  NAME'"))
			len = 64 + 6;
		err[0] = '\0';
		/* the checksum lines are SHA-256 here (--hash sha256): the detection has its own test */
		if (manifest_parse_opts(cases[i].in, len, "m", &sha256, &m, err, sizeof(err)) != -1)
			fail_msg("case %zu: parsed, expected '%s'", i, cases[i].err);
		if (strncmp(err, cases[i].err, strlen(cases[i].err)))
			fail_msg("case %zu:\n got      '%s'\n expected '%s...'", i, err, cases[i].err);
		assert_null(strchr(err, '\n'));   /* one line */
		assert_int_equal(m.n, 0);
	}
}

/* The detection table of docs/manifest.md: digest lengths and file names. */
static void test_detect_table(void **s)
{
	static const struct { size_t hex; int r; enum hash_algo a; } lens[] = {
		{8, 1, HASH_XXH32}, {16, 0, 0}, {32, 0, 0}, {40, 1, HASH_SHA1}, {64, 0, 0},
		{128, 0, 0}, {96, 0 - 1, 0}, {0, -1, 0}, {56, -1, 0},
	};
	static const struct { const char *name; int r; enum hash_algo a; bool any; } names[] = {
		{"SHA256SUMS", 0, HASH_SHA256, false}, {"dl/sha256sums", 0, HASH_SHA256, false},
		{"MD5SUMS", 0, HASH_MD5, false}, {"x/data.md5", 0, HASH_MD5, false},
		{"a.SHA1", 0, HASH_SHA1, false}, {"SHA512SUMS", 0, HASH_SHA512, false},
		{"B2SUMS", 0, HASH_BLAKE2B, false}, {"t.b3", 0, HASH_BLAKE3, false},
		{"t.blake3", 0, HASH_BLAKE3, false}, {"t.xxh32", 0, HASH_XXH32, false},
		{"t.xxh64", 0, HASH_XXH64, false}, {"t.xxh128", 0, HASH_XXH3, false},
		{"t.xxh3", 0, HASH_XXH3, true}, {"data.manifest", -1, 0, false},
		{".md5", -1, 0, false}, {"md5.d/list", -1, 0, false}, {"SHA256SUMS.asc", -1, 0, false},
	};
	enum hash_algo a;
	const char *cands;
	bool any;

	(void)s;
	for (size_t i = 0; i < ARRAY_SIZE(lens); i++) {
		int r = manifest_algo_by_length(lens[i].hex, &a, &cands);
		assert_int_equal(r, lens[i].r);
		if (r == 1)
			assert_int_equal(a, lens[i].a);
		if (r == 0)
			assert_non_null(cands);
	}
	/* every length an algorithm writes is in the table, and a unique one is that algorithm */
	for (int i = 0; i < HASH_NALGOS; i++) {
		int r = manifest_algo_by_length(2 * hash_size((enum hash_algo)i), &a, &cands);
		assert_true(r >= 0);
		if (r == 1)
			assert_int_equal(a, i);
	}
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		int r = manifest_algo_by_filename(names[i].name, &a, &any);
		if (r != names[i].r)
			fail_msg("%s: %d, expected %d", names[i].name, r, names[i].r);
		if (!r) {
			assert_int_equal(a, names[i].a);
			assert_int_equal(any, names[i].any);
		}
	}
}

/* One file, parsed with a name and maybe --hash: its algorithm, format and first name. */
static void parse_ok(const char *in, const char *fname, const struct mf_parse_opts *o,
		     enum hash_algo a, enum mf_format f, size_t n, const char *first)
{
	struct manifest m;
	char err[512];

	if (manifest_parse_opts(in, strlen(in), fname, o, &m, err, sizeof(err)))
		fail_msg("%s: %s", fname, err);
	assert_int_equal(m.algo, a);
	assert_int_equal(m.format, f);
	assert_int_equal(m.n, n);
	assert_string_equal(m.v[0].path, first);
	assert_true(m.v[0].has_hash);
	manifest_free(&m);
}

static void parse_err(const char *in, const char *fname, const struct mf_parse_opts *o,
		      const char *want)
{
	struct manifest m;
	char err[512];

	if (!manifest_parse_opts(in, strlen(in), fname, o, &m, err, sizeof(err)))
		fail_msg("%s: parsed, expected '%s'", in, want);
	if (strncmp(err, want, strlen(want)))
		fail_msg("\n got      '%s'\n expected '%s...'", err, want);
	assert_null(strchr(err, '\n'));
	assert_int_equal(m.n, 0);
}

/* The forms the tools write (outputs of md5sum, sha256sum --tag / -z, b2sum, xxhsum 0.8.1
 * and 0.8.2, hashdeep -c sha1 on this box), and what decides the hash. */
static void test_parse_forms(void **s)
{
	static const struct mf_parse_opts md5 = {.algo_set = true, .algo = HASH_MD5};
	static const struct mf_parse_opts xxh3 = {.algo_set = true, .algo = HASH_XXH3, .xxh3_any = true};
	static const struct mf_parse_opts sha1 = {.algo_set = true, .algo = HASH_SHA1};
	static const char zero[] = H64 "  a\\b\0" H64 "  new\nline\0";
	const char *md5sum = H32 "  ./x\n" H32 " *bin\n";

	(void)s;
	/* 32 digits: MD5 or XXH128, never guessed (issue 11: md5sum read as XXH3-128) */
	parse_err(md5sum, "list.txt", NULL, "list.txt:1: 32 hex digits could be MD5 or XXH128");
	parse_ok(md5sum, "list.txt", &md5, HASH_MD5, MF_SHA256SUM, 2, "bin");
	parse_ok(md5sum, "MD5SUMS", NULL, HASH_MD5, MF_SHA256SUM, 2, "bin");
	parse_ok(md5sum, "d.xxh3", NULL, HASH_XXH3, MF_SHA256SUM, 2, "bin");
	parse_ok(md5sum, "l", &xxh3, HASH_XXH3, MF_SHA256SUM, 2, "bin");
	/* 64 digits: SHA-256, BLAKE3 or BLAKE2b-256 (issue 11: b3sum read as SHA-256) */
	parse_err(H64 "  a\n", "B", NULL, "B:1: 64 hex digits could be SHA256, BLAKE3");
	parse_ok(H64 "  a\n", "B3SUMS", NULL, HASH_BLAKE3, MF_SHA256SUM, 1, "a");
	parse_err(H64 "  a\n", "x.md5", NULL, "x.md5:1: expected 32 hex digits (md5, from the file name), got 64");
	parse_err(H64 "  a\n", "x", &md5, "x:1: expected 32 hex digits (md5, from --hash), got 64");
	/* unique lengths */
	parse_ok("0123abcd  a\n", "l", NULL, HASH_XXH32, MF_SHA256SUM, 1, "a");
	parse_ok("0123456789abcdef01234567890abcdef0123456  a\n", "l", NULL, HASH_SHA1,
		 MF_SHA256SUM, 1, "a");
	parse_err("0123456789abcdef  a\n", "l", NULL, "l:1: 16 hex digits could be XXH64 or XXH3");
	parse_ok("0123456789abcdef  a\n", "l", &xxh3, HASH_XXH3_64, MF_SHA256SUM, 1, "a");
	parse_err("0123456789  a\n", "l", NULL, "l:1: expected a digest of 8, 16, 32, 40, 64 or 128 hex digits");
	/* xxhsum 0.8.2 marks XXH3-64 */
	parse_ok("XXH3_0123456789abcdef  a\n", "l", NULL, HASH_XXH3_64, MF_BSD, 1, "a");
	/* BSD tags decide; escaped tag lines; a name holding ") = " */
	parse_ok("SHA256 (a) = " H64 "\n\\SHA256 (b\\\\c) = " H64 "\n",
		 "l", NULL, HASH_SHA256, MF_BSD, 2, "a");
	parse_ok("MD5 (x) = y) = " H32 "\n", "l", NULL, HASH_MD5, MF_BSD, 1, "x) = y");
	parse_ok("XXH3 (a) = 0123456789abcdef\n", "l", NULL, HASH_XXH3_64, MF_BSD, 1, "a");
	parse_ok("XXH128 (a) = " H32 "\n", "l", NULL, HASH_XXH3, MF_BSD, 1, "a");
	parse_ok("BLAKE2b (a) = " H64 H64 "\n", "l", NULL, HASH_BLAKE2B, MF_BSD, 1, "a");
	parse_err("BLAKE2b-256 (a) = " H64 "\n", "l", NULL, "l:1: BLAKE2b-256: only BLAKE2b-512");
	parse_err("SHA384 (a) = " H64 H32 "\n", "l", NULL, "l:1: unknown tag 'SHA384'");
	parse_err("SHA256 (a) = " H64 "\nMD5 (b) = " H32 "\n", "l", NULL,
		  "l:2: a MD5 line in a file of SHA256 lines");
	parse_err("MD5 (a) = " H32 "\n", "l", &sha1, "l:1: --hash says sha1, the line's tag says MD5");
	parse_err("SHA256 (a) = " H32 "\n", "l", NULL, "l:1: expected 64 hex digits (sha256)");
	/* CRLF lines (issue 11: 22 missing, 22 extra), a CR inside a name stays */
	parse_ok(H64 "  a\r\n" H64 "  b\rc\r\n", "SHA256SUMS", NULL, HASH_SHA256,
		 MF_SHA256SUM, 2, "a");
	{
		struct manifest m;
		char err[256];
		const char *t = H64 "  b\rc\r\n";
		assert_int_equal(manifest_parse(t, strlen(t), "SHA256SUMS", &m, err, sizeof(err)), 0);
		assert_string_equal(m.v[0].path, "b\rc");
		manifest_free(&m);
		/* verify-cr-name: b3sum, hashdeep, md5deep write a final CR raw; where
		 * other lines end in a bare LF it is the name's own */
		t = H64 "  cr\r\n" H64 "  plain\n";
		assert_int_equal(manifest_parse(t, strlen(t), "B3SUMS", &m, err, sizeof(err)), 0);
		assert_int_equal(m.n, 2);
		assert_string_equal(m.v[0].path, "cr\r");
		assert_string_equal(m.v[1].path, "plain");
		manifest_free(&m);
		t = "%%%% HASHDEEP-1.0\n%%%% size,md5,filename\n1," H32 ",./cr\r\n";
		assert_int_equal(manifest_parse(t, strlen(t), "hd.txt", &m, err, sizeof(err)), 0);
		assert_int_equal(m.n, 1);
		assert_string_equal(m.v[0].path, "cr\r");
		manifest_free(&m);
		/* a file of CRLF lines throughout (Windows): the CRs are line ends */
		t = "%%%% HASHDEEP-1.0\r\n%%%% size,md5,filename\r\n1," H32 ",./cr\r\n";
		assert_int_equal(manifest_parse(t, strlen(t), "hd.txt", &m, err, sizeof(err)), 0);
		assert_string_equal(m.v[0].path, "cr");
		manifest_free(&m);
		/* -z records: names not escaped, newlines are names */
		assert_int_equal(manifest_parse(zero, sizeof(zero) - 1, "SHA256SUMS", &m, err, sizeof(err)), 0);
		assert_true(m.zero);
		assert_int_equal(m.n, 2);
		assert_string_equal(m.v[0].path, "a\\b");
		assert_string_equal(m.v[1].path, "new\nline");
		manifest_free(&m);
	}
	/* hashdeep with md5 only, sha1 only, or all three (sha256 taken; --hash picks) */
	parse_ok("%%%% HASHDEEP-1.0\n%%%% size,md5,filename\n1," H32 ",./a\n", "l", NULL,
		 HASH_MD5, MF_HASHDEEP, 1, "a");
	parse_ok("%%%% HASHDEEP-1.0\n%%%% size,sha1,filename\n## x\n1,0123456789abcdef01234567890abcdef0123456,./a\n", "l", NULL, HASH_SHA1, MF_HASHDEEP, 1, "a");
	parse_ok("%%%% HASHDEEP-1.0\n%%%% size,md5,sha1,sha256,filename\n"
		 "1," H32 ",0123456789abcdef01234567890abcdef0123456," H64 ",./a\n",
		 "l", &sha1, HASH_SHA1, MF_HASHDEEP, 1, "a");
	parse_err("%%%% HASHDEEP-1.0\n%%%% size,tiger,filename\n", "l", NULL,
		  "l:2: expected columns size, md5, sha1 or sha256 and filename last");
}

/* Every prefix of a valid manifest parses or fails cleanly (ASan watches). */
static void test_parse_truncated(void **s)
{
	struct manifest m, back;
	enum mf_format fs[] = {MF_GPURENT, MF_SHA256SUM, MF_HASHDEEP};
	char *text, err[512];
	size_t len;

	(void)s;
	for (size_t k = 0; k < 3; k++) {
		manifest_init(&m, fs[k], HASH_SHA256);
		fill(&m, fs[k] != MF_HASHDEEP, fs[k] == MF_GPURENT);
		assert_int_equal(manifest_render(&m, "/d", "c", &text, &len, err, sizeof(err)), 0);
		for (size_t cut = 0; cut <= len; cut++) {
			char *copy = malloc(cut ? cut : 1);
			memcpy(copy, text, cut);
			if (manifest_parse(copy, cut, "t", &back, err, sizeof(err)) == 0)
				manifest_free(&back);
			else
				assert_true(!strncmp(err, "t:", 2));
			free(copy);
		}
		free(text);
		manifest_free(&m);
	}
}

/* ---- comparing ---- */

static struct mf_entry *put(struct manifest *m, const char *path, enum mf_kind k, uint64_t size, int h)
{
	struct mf_entry *e = manifest_add(m, path, strlen(path), k, size);

	assert_non_null(e);
	if (h >= 0) {
		memset(e->hash, h, sizeof(e->hash));
		e->has_hash = true;
	}
	return e;
}

static void test_compare_each_damage(void **s)
{
	struct manifest want, have;
	struct mf_diff d;
	size_t idx[16], n;

	(void)s;
	manifest_init(&want, MF_GPURENT, HASH_XXH3);
	put(&want, "same", MF_FILE, 10, 1);
	put(&want, "deleted", MF_FILE, 10, 2);
	put(&want, "truncated", MF_FILE, 10, 3);
	put(&want, "flipped", MF_FILE, 10, 4);
	put(&want, "fifo-now", MF_FILE, 10, 5);
	put(&want, "noperm", MF_FILE, 10, 6);
	put(&want, "link", MF_SYMLINK, 3, 7);
	put(&want, "link-retarget", MF_SYMLINK, 3, 8);
	put(&want, "became-link", MF_FILE, 10, 9);
	put(&want, "locked/a", MF_FILE, 1, 10);
	put(&want, "locked/b", MF_FILE, 1, 11);
	manifest_sort(&want);

	manifest_init(&have, MF_GPURENT, HASH_XXH3);
	put(&have, "same", MF_FILE, 10, 1);
	put(&have, "truncated", MF_FILE, 4, -1);
	put(&have, "flipped", MF_FILE, 10, 44);
	put(&have, "fifo-now", MF_OTHER, 0, -1);
	put(&have, "noperm", MF_UNREADABLE, 10, -1)->err = 13;
	put(&have, "link", MF_SYMLINK, 3, 7);
	put(&have, "link-retarget", MF_SYMLINK, 3, 88);
	put(&have, "became-link", MF_SYMLINK, 5, 9);
	put(&have, "added", MF_FILE, 5, -1);
	put(&have, "new-link", MF_SYMLINK, 5, 1);
	put(&have, "a-fifo", MF_OTHER, 0, -1);   /* never recorded: not extra */
	put(&have, "locked", MF_DIR_UNREADABLE, 0, -1)->err = 13;
	put(&have, "locked-too", MF_DIR_UNREADABLE, 0, -1)->err = 13;
	manifest_sort(&have);

	/* Only same-size regular files recorded as files get hashed. */
	n = manifest_plan(&want, &have, idx);
	assert_int_equal(n, 2);
	assert_string_equal(have.v[idx[0]].path, "flipped");
	assert_string_equal(have.v[idx[1]].path, "same");

	assert_int_equal(manifest_compare(&want, &have, false, &d), 0);
	assert_int_equal(d.expected, 11);
	assert_int_equal(d.count[MF_MISSING], 1);           /* deleted */
	assert_int_equal(d.count[MF_EXTRA], 2);             /* added, new-link */
	assert_int_equal(d.count[MF_SIZE_CHANGED], 1);      /* truncated */
	assert_int_equal(d.count[MF_CONTENT_CHANGED], 3);   /* flipped, link-retarget, became-link */
	assert_int_equal(d.count[MF_UNREADABLE_FILE], 5);   /* fifo-now, noperm, locked/a, locked/b, locked-too */
	assert_int_equal(d.matched, 2);                     /* same, link */
	assert_int_equal(d.matched_bytes, 10);
	assert_int_equal(d.n, 12);
	/* In path order, each with what it compares. */
	assert_string_equal(d.v[0].have->path, "added");
	assert_int_equal(d.v[0].what, MF_EXTRA);
	assert_null(d.v[0].want);
	assert_string_equal(d.v[1].want->path, "became-link");
	assert_int_equal(d.v[1].what, MF_CONTENT_CHANGED);
	assert_string_equal(d.v[2].want->path, "deleted");
	assert_null(d.v[2].have);
	for (size_t i = 0; i < d.n; i++)
		if (d.v[i].want && !strcmp(d.v[i].want->path, "locked/a"))
			assert_string_equal(d.v[i].have->path, "locked");
	mf_diff_free(&d);

	/* --quick: sizes only, so the flipped byte goes unseen. */
	assert_int_equal(manifest_compare(&want, &have, true, &d), 0);
	assert_int_equal(d.count[MF_CONTENT_CHANGED], 2);
	assert_int_equal(d.count[MF_SIZE_CHANGED], 1);
	assert_int_equal(d.matched, 3);
	mf_diff_free(&d);
	manifest_free(&have);
	manifest_free(&want);
}

/* sha256sum files: no sizes, no symlinks; a link where a file was is followed by the caller. */
static void test_compare_sha256sum(void **s)
{
	struct manifest want, have;
	struct mf_diff d;
	size_t idx[8];

	(void)s;
	manifest_init(&want, MF_SHA256SUM, HASH_SHA256);
	want.has_sizes = false;
	put(&want, "a", MF_FILE, 0, 1);
	put(&want, "b", MF_FILE, 0, 2);
	manifest_sort(&want);
	manifest_init(&have, MF_SHA256SUM, HASH_SHA256);
	put(&have, "a", MF_FILE, 100, 1);
	put(&have, "b", MF_FILE, 5, 3);
	put(&have, "ln", MF_SYMLINK, 1, 1);   /* the format cannot record links: ignored */
	manifest_sort(&have);
	assert_int_equal(manifest_plan(&want, &have, idx), 2);   /* no sizes: hash both */
	assert_int_equal(manifest_compare(&want, &have, false, &d), 0);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.v[0].what, MF_CONTENT_CHANGED);
	assert_string_equal(d.v[0].want->path, "b");
	mf_diff_free(&d);
	assert_int_equal(manifest_compare(&want, &have, true, &d), 0);   /* names only */
	assert_int_equal(d.n, 0);
	assert_int_equal(d.matched, 2);
	mf_diff_free(&d);
	assert_int_equal(manifest_find(&have, "ln"), 2);
	assert_int_equal(manifest_find(&have, "zz"), -1);
	manifest_free(&have);
	manifest_free(&want);
}

/* ---- the pool ---- */

struct job {
	unsigned long id;
	unsigned spins;
	int ran;
	unsigned long worker;
};

static void work(void *worker, void *p)
{
	struct job *j = p;
	volatile unsigned x = 0;

	/* Uneven work, so later jobs often finish before earlier ones. */
	for (unsigned i = 0; i < j->spins; i++)
		x += i;
	if (j->spins % 7 == 0)
		sched_yield();
	j->ran++;
	j->worker = (unsigned long)(uintptr_t)worker;
}

static void test_pool_order(void **s)
{
	enum { N = 2000 };
	struct job *jobs = calloc(N, sizeof(*jobs));
	uintptr_t ids[4] = {1, 2, 3, 4};
	void *workers[4] = {(void *)ids[0], (void *)ids[1], (void *)ids[2], (void *)ids[3]};
	unsigned long seq, next = 0, sub = 0;
	char err[128];
	struct pool *p;

	(void)s;
	assert_non_null(jobs);
	p = pool_new(4, 16, work, workers, err, sizeof(err));
	assert_non_null(p);
	for (unsigned long i = 0; i < N; i++) {
		jobs[i].id = i;
		jobs[i].spins = (unsigned)((N - i) * 37 % 20000);
	}
	while (next < N) {
		struct job *j;
		while (sub < N && sub - next < 16) {
			assert_int_equal(pool_submit(p, &jobs[sub]), sub);
			sub++;
		}
		assert_true(pool_in_flight(p) <= 16);
		j = pool_next(p, &seq);
		assert_non_null(j);
		assert_int_equal(seq, next);       /* back in submission order */
		assert_int_equal(j->id, next);
		assert_int_equal(j->ran, 1);        /* finished when returned */
		assert_true(j->worker >= 1 && j->worker <= 4);
		next++;
	}
	assert_null(pool_next(p, NULL));        /* nothing in flight */
	assert_int_equal(pool_in_flight(p), 0);
	/* Jobs still queued at pool_free() run before the poison pills stop the workers. */
	for (unsigned long i = 0; i < 8; i++)
		pool_submit(p, &jobs[i]);
	pool_free(p);
	for (unsigned long i = 0; i < 8; i++)
		assert_int_equal(jobs[i].ran, 2);
	free(jobs);

	assert_null(pool_new(0, 4, work, NULL, err, sizeof(err)));
	assert_non_null(strstr(err, "1 to 256 threads"));
	p = pool_new(3, 1, work, NULL, err, sizeof(err));   /* stopped with nothing to do */
	assert_non_null(p);
	pool_free(p);
	pool_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hash_known_values),
		cmocka_unit_test(test_hash_streaming),
		cmocka_unit_test(test_hash_sha256_injected),
		cmocka_unit_test(test_hash_names_hex),
		cmocka_unit_test(test_round_trips),
		cmocka_unit_test(test_render_exact),
		cmocka_unit_test(test_parse_foreign),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_detect_table),
		cmocka_unit_test(test_parse_forms),
		cmocka_unit_test(test_parse_truncated),
		cmocka_unit_test(test_compare_each_damage),
		cmocka_unit_test(test_compare_sha256sum),
		cmocka_unit_test(test_pool_order),
	};
	hashing_set_crypto(crypto_hash_ops());   /* libcrypto's, as the commands install it */
	return cmocka_run_group_tests_name("manifest", tests, NULL, NULL);
}
