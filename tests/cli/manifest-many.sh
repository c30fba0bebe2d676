#!/bin/sh
# tests/cli/manifest-many.sh - the parallel walk of `gpurent manifest` and
# `gpurent verify` on a tree made to cross its batch limits: directories of
# more than 64 files (several batches each), big files inside a batch (the
# rest of the batch is handed on), empty directories, nesting. The manifest
# must not depend on the number of threads, its hashes must be the files'
# (checked by coreutils' sha256sum -c), a lost file must be found among
# thousands. Prints "manifest-many: N passed, M failed".
. "$(dirname "$0")/lib/common.sh"
NAME=manifest-many

# 6 directories of 150 files (1-700 bytes, each unlike the others),
# 3 files of 1.5 MB inside one batch, an empty and a nested directory
mkdir -p t/empty t/a/b/c/d
i=0
while [ "$i" -lt 6 ]; do
	mkdir -p "t/d$i"
	i=$((i + 1))
done
awk 'BEGIN {
	for (i = 0; i < 900; i++) {
		f = sprintf("t/d%d/f%03d", i % 6, i)
		s = ""
		for (k = 0; k < (i * 37) % 70; k++) s = s "0123456789"
		printf "%d:%s", i, s > f
		close(f)
	}
}'
for n in 1 2 3; do
	head -c 1500000 /dev/zero | tr '\0' "$n" >"t/d2/big$n"
done
printf 'deep\n' >t/a/b/c/d/leaf
NFILES=$(find t -type f | wc -l)

expect_ok count "^m1: $NFILES files" "$G" manifest t -o m1 -j 1
expect_ok j4 "^m4: $NFILES files" "$G" manifest t -o m4 -j 4
expect_ok j64 "^m64: $NFILES files" "$G" manifest t -o m64 --jobs 64
if cmp -s m1 m4 && cmp -s m1 m64; then ok; else bad "manifests differ between -j 1, 4 and 64"; fi
# the sizes written are the files' own
find t -type f -printf '%s %P\n' | LC_ALL=C sort -k2 >sizes.want
grep '^f ' m4 | awk '{ print $2, $4 }' >sizes.have
if cmp -s sizes.want sizes.have; then ok; else bad "sizes in the manifest differ from find's"; diff sizes.want sizes.have | head -5; fi
# the hashes are the files' own: sha256sum -c checks gpurent's sha256sum format
expect_ok sha256 "^s: $NFILES files" "$G" manifest t --format sha256sum -o s -j 3
if (cd t && sha256sum --quiet -c ../s) >/dev/null 2>&1; then ok; else bad "sha256sum -c rejects the manifest"; fi

expect_ok verify "^verify: OK: $NFILES entries" "$G" verify m4 t
expect_ok quick "^verify: OK: $NFILES entries.*quick" "$G" verify m4 t --quick -j 2
rm t/d4/f400 t/d2/big2
printf 'x' >>t/d0/f006
run "$G" verify m4 t --quick
if [ "$rc" -eq 1 ] && grep -q '^missing: *d4/f400$' "$T/out" && grep -q '^missing: *d2/big2$' "$T/out" &&
	grep -q '^size-changed: *d0/f006 ' "$T/out" && [ "$(grep -c '^[a-z-]*:  ' "$T/out")" -eq 3 ]; then
	ok
else
	bad "verify --quick: expected 2 missing and 1 size-changed:"; cat "$T/out"
fi
run "$G" verify m4 t -j 3
if [ "$rc" -eq 1 ] && grep -q '^verify: FAILED: 2 missing, 0 extra, 1 size-changed' "$T/out"; then ok; else bad "verify: $(tail -1 "$T/out")"; fi
finish
