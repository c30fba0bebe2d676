#!/bin/sh
# tests/cli/manifest.sh - `gpurent manifest` and `gpurent verify` on real
# trees in a fresh temp dir: round trips in the three formats, every kind of
# damage counted, odd names, sha256sum/hashdeep/xxhsum interoperability both
# ways, one-line errors. Prints "manifest: N passed, M failed".
#
# Unreadable files: the tests run as root, who can read a chmod 000 file, so
# they make unreadable entries three ways: a FIFO where a file was (never
# opened), a symlink followed with --follow-symlinks whose target is gone,
# and, where setpriv can drop to nobody, chmod 000 files and directories.
. "$(dirname "$0")/lib/common.sh"
skip() { echo "SKIP: $*"; }

# expect_rc NAME CODE PATTERN CMD...: exit CODE and stdout matches (grep -E)
expect_rc() {
	name=$1 code=$2 pat=$3; shift 3
	run "$@"
	if [ "$rc" -ne "$code" ]; then bad "$name: exit $rc, expected $code: $(head -3 "$T/err") $(head -3 "$T/out")"; return; fi
	if ! grep -Eq -- "$pat" "$T/out"; then bad "$name: stdout lacks /$pat/:"; cat "$T/out"; return; fi
	ok
}

# check NAME COMMAND-STRING: the shell command succeeds
check() { if sh -c "$2" >/dev/null 2>&1; then ok; else bad "$1"; fi; }

NL=$(printf 'new\nline')
NLC='
'

BADUTF=$(printf 'bad\377utf8')

# A tree with small files, files at the read-buffer and mapping thresholds,
# a 10 MiB file (hashed through mmap), an empty file, odd names, a symlink
# and a FIFO. $1: the directory; $2: "hashdeep" to leave out the newline
# name (the format cannot hold it), the FIFO (hashdeep -r blocks on it) and
# the symlink (hashdeep -r follows it, and calls the target "moved").
mktree() {
	mkdir -p "$1/sub/deeper" "$1/sp ace"
	head -c 102400 /dev/urandom >"$1/a.bin"
	head -c 1000 /dev/zero >"$1/zeros.bin"
	printf 'hello\n' >"$1/sub/b.txt"
	printf 'deep\n' >"$1/sub/deeper/c.txt"
	: >"$1/empty"
	head -c 1048576 /dev/urandom >"$1/one-mib.bin"
	head -c 1048577 /dev/urandom >"$1/one-mib-plus.bin"
	head -c 8388608 /dev/urandom >"$1/eight-mib.bin"
	head -c 10485760 /dev/urandom >"$1/big.bin"
	printf 'x' >"$1/sp ace/file name.jpg"
	printf 'y' >"$1/back\\slash"
	printf 'z' >"$1/$BADUTF"
	printf 'w' >"$1/com,ma"
	printf 'c' >"$1/caf$(printf '\303\251').png"
	[ "${2:-}" = hashdeep ] && return
	ln -s a.bin "$1/link"
	printf 'n' >"$1/$NL"
	mkfifo "$1/fifo"
}
mktree data
NFILES=$(find data -type f -printf x | wc -c)
NBYTES=$(find data -type f -exec cat {} + | wc -c)

# --- help, usage and the one-line errors
run "$G" help manifest; cp out h1
run "$G" manifest --help; cp out h2
if cmp -s h1 h2 && [ -s h1 ]; then ok; else bad "help manifest != manifest --help"; fi
run "$G" help verify; cp out h1
run "$G" verify --help; cp out h2
if cmp -s h1 h2 && [ -s h1 ]; then ok; else bad "help verify != verify --help"; fi
expect_ok help-lists 'manifest .*models .*verify ' sh -c "\"$G\" help | tr '\n' ' '"
# the one-line errors of options and operands: tests/cli/cases/manifest.test
expect_err not-a-dir 2 "data/a.bin: cannot open directory: Not a directory" "$G" manifest data/a.bin

# --- gpurent format: header, sorted lines, symlinks recorded, FIFO left out
expect_ok write "^m\\.gp: $NFILES files, .*1 symlinks \\(xxh3-128, gpurent format\\)" "$G" manifest data -o m.gp
if [ -s err ]; then bad "manifest printed to stderr when it is not a terminal: $(cat err)"; else ok; fi
check header-count "grep -qx '# files: $NFILES' m.gp && grep -qx '# bytes: $NBYTES' m.gp && grep -qx '# symlinks: 1' m.gp"
check header-first "head -1 m.gp | grep -qx '# gpurent manifest 1' && sed -n 2p m.gp | grep -qx '# hash: xxh3-128'"
check symlink-line "grep -q '^l 5 [0-9a-f]\{32\} link\$' m.gp"
check fifo-left-out "! grep -q ' fifo\$' m.gp"
check escaped-names "grep -qxF '\\f 1 $(printf y | xxhsum -H2 2>/dev/null | cut -c1-32) back\\\\slash' m.gp || ! command -v xxhsum"
sed -n 's/^\\\{0,1\}[fl] [0-9]* [0-9a-f]* //p' m.gp >paths
if LC_ALL=C sort -c paths 2>/dev/null; then ok; else bad "manifest lines are not in byte order"; fi
expect_ok verify-gp "^verify: OK: $((NFILES + 1)) entries, .* match m\\.gp \\(xxh3-128\\)" "$G" verify m.gp data
if [ -s err ]; then bad "verify printed to stderr: $(cat err)"; else ok; fi
(cd data && "$G" verify ../m.gp) >out 2>&1 && grep -q '^verify: OK' out && ok || bad "verify defaults to the current directory"
# Same bytes on every run and thread count (sorted, not in completion order).
"$G" manifest data -o m.j1 -j 1 >/dev/null && "$G" manifest data -o m.j7 -j 7 >/dev/null
if cmp -s m.gp m.j1 && cmp -s m.gp m.j7; then ok; else bad "manifest differs between runs or thread counts"; fi
# stdout output, also into the tree itself (which is then left out)
"$G" manifest data >m.stdout 2>err && cmp -s m.gp m.stdout && ok || bad "manifest to stdout differs from -o"
"$G" manifest data >data/inside.manifest 2>err && ! grep -q 'inside.manifest' data/inside.manifest && ok \
	|| bad "a manifest written into the tree recorded itself"
expect_ok verify-inside '^verify: OK' "$G" verify data/inside.manifest data
"$G" manifest data -o data/inside.manifest >/dev/null && ! grep -q 'inside.manifest' data/inside.manifest && ok \
	|| bad "re-running manifest -o into the tree recorded the old manifest"
rm -f data/inside.manifest
ls m.gp.* data/inside.manifest.* 2>/dev/null | grep -q . && bad "a temp file was left behind" || ok

# --- the hashes are the real ones: SHA-256 = sha256sum, XXH3-128 = xxhsum -H2
"$G" manifest data --hash sha256 -o m.sha >/dev/null
for f in a.bin one-mib.bin one-mib-plus.bin eight-mib.bin big.bin empty; do
	want=$(sha256sum "data/$f" | cut -c1-64)
	grep -q "^f [0-9]* $want $f\$" m.sha && ok || bad "sha256 of $f differs from sha256sum"
done
if command -v xxhsum >/dev/null 2>&1; then
	for f in a.bin one-mib.bin one-mib-plus.bin eight-mib.bin big.bin empty; do
		want=$(xxhsum -H2 "data/$f" 2>/dev/null | cut -c1-32)
		grep -q "^f [0-9]* $want $f\$" m.gp && ok || bad "xxh3-128 of $f differs from xxhsum -H2"
	done
else
	skip "xxhsum not installed: XXH3-128 values not cross-checked"
fi

# --- sha256sum format: sha256sum -c accepts ours, we accept sha256sum's
expect_ok write-sum 'sha256, sha256sum format' "$G" manifest data --format sha256sum -o m.sha256
grep -q 'note: 1 symlink left out' err && ok || bad "sha256sum format: no note about the left-out symlink"
check sum-escaped "grep -qxF '\\$(printf n | sha256sum | cut -c1-64)  new\\nline' m.sha256"
if (cd data && sha256sum --quiet -c ../m.sha256) >out 2>&1; then ok; else bad "sha256sum -c rejects gpurent's file: $(cat out)"; fi
expect_ok verify-sum "^verify: OK: $NFILES entries match m\\.sha256 \\(sha256\\)" "$G" verify m.sha256 data
(cd data && find . -type f -print0 | xargs -0 sha256sum) >their.sum
# 64 hex digits with no other sign: SHA-256, BLAKE3 or BLAKE2b-256; refused, never guessed
expect_err their-sum-ambiguous 2 "their.sum:1: 64 hex digits could be SHA256, BLAKE3 or BLAKE2b-256" "$G" verify their.sum data
expect_ok verify-their-sum "^verify: OK: $NFILES entries match their\\.sum" "$G" verify their.sum data --hash sha256
cp their.sum SHA256SUMS
expect_ok verify-their-sum-name "^verify: OK: $NFILES entries match SHA256SUMS \\(sha256\\)" "$G" verify SHA256SUMS data
grep -q '^\\' their.sum && ok || bad "sha256sum escaped no name (test tree lacks odd names?)"

# --- every checksum tool, both ways, on a tree of odd names (issue 11): the
# tool writes, gpurent verifies intact; gpurent writes (--format sha256sum and
# bsd), the tool's -c accepts; one file damaged, both say so. A missing tool
# is a SKIP line naming its package (tools/deps.sh installs them all as root).
CR=$(printf '\r') TAB=$(printf '\t')
# mkodd DIR [nonl|b3|hd]: nonl leaves out the newline name (xxhsum 0.8.1
# escapes nothing), b3 the invalid byte (b3sum prints it as U+FFFD), hd the
# newline and CR names (hashdeep's lines cannot hold them)
mkodd() {
	mkdir -p "$1/sub"
	printf 1 >"$1/sp ace"; printf 4 >"$1/ta${TAB}b"; printf 5 >"$1/back\\slash"
	printf 6 >"$1/-dash"; printf 7 >"$1/caf$(printf '\303\251')"; printf content >"$1/sub/plain"
	[ "${2:-}" = b3 ] || printf 8 >"$1/$BADUTF"
	[ "${2:-}" = hd ] || printf 3 >"$1/cr${CR}mid"
	# verify-cr-name: a name that ends in CR (b3sum writes it raw)
	[ "${2:-}" = nonl ] || [ "${2:-}" = hd ] || printf 9 >"$1/crend${CR}"
	[ "${2:-}" = nonl ] || [ "${2:-}" = hd ] || printf 2 >"$1/$NL"
}
pkg_of() { case $1 in xxhsum) echo xxhash ;; b3sum) echo b3sum ;; hashdeep | md5deep) echo hashdeep ;; *) echo coreutils ;; esac; }
for spec in "md5sum md5 md5 md5" "sha1sum sha1 sha1 sha1" "sha256sum sha256 sha256 sha256" \
	"sha512sum sha512 sha512 sha512" "b2sum blake2b blake2b b2" "b3sum blake3 blake3 b3" \
	"xxhsum:-H0 xxh32 xxh32 xxh32" "xxhsum:-H1 xxh64 xxh64 xxh64" "xxhsum:-H2 xxh128 xxh3-128 xxh128" \
	"xxhsum:-H3 xxh3-64 xxh3-64 xxh3"; do
	set -- $spec
	tool=${1%%:*} topt= h=$2 hname=$3 ext=$4
	case $1 in *:*) topt=${1#*:} ;; esac
	if ! command -v "$tool" >/dev/null 2>&1; then skip "$tool not installed (package $(pkg_of "$tool")): $hname round trips"; continue; fi
	kind=; case $tool in xxhsum) kind=nonl ;; b3sum) kind=b3 ;; esac
	rm -rf odd && mkodd odd $kind
	N=$(find odd -type f -printf x | wc -c)
	(cd odd && find . -type f -print0 | xargs -0 "$tool" $topt --) >"their.$ext" 2>/dev/null
	grep -q 'sub/plain' "their.$ext" && ok || bad "$tool wrote no sum file"
	expect_ok "$hname-theirs" "^verify: OK: $N entries match their\\.$ext \\($hname\\)" "$G" verify "their.$ext" odd
	cp "their.$ext" their.list
	expect_ok "$hname-theirs-hash" "^verify: OK: $N entries match their\\.list \\($hname\\)" "$G" verify their.list odd --hash "$h"
	if [ "$tool" != b3sum ]; then
		for fmt in sha256sum bsd; do
			"$G" manifest odd --format $fmt --hash "$h" -o "ours.$ext" >/dev/null 2>err || bad "manifest --format $fmt --hash $h: $(cat err)"
			# every line checked: xxhsum exits 0 past a line it calls improperly formatted
			(cd odd && "$tool" -c "../ours.$ext") >out 2>&1 && [ "$(grep -c ': OK$' out)" -eq "$N" ] && ! grep -qi 'improperly' out \
				&& ok || bad "$tool -c rejects gpurent's $fmt $hname file: $(grep -v ': OK$' out | head -3)"
			expect_ok "$hname-$fmt-ours" "^verify: OK: $N entries" "$G" verify "ours.$ext" odd
		done
	fi
	printf 'CONTENT' >odd/sub/plain
	expect_rc "$hname-damaged" 1 '^content-changed: +sub/plain$' "$G" verify "their.$ext" odd
	(cd odd && "$tool" -c "../their.$ext") >out 2>&1 && bad "$tool -c passed a damaged tree" || ok
done
if command -v b3sum >/dev/null 2>&1; then
	rm -rf odd && mkodd odd b3 && (cd odd && find . -type f -print0 | xargs -0 b3sum --) >their.b3
	cp their.b3 b3.list
	# 64 hex digits were read as SHA-256 (21 content-changed): now refused, never misjudged
	expect_err b3-ambiguous 2 "b3.list:1: 64 hex digits could be SHA256, BLAKE3 or BLAKE2b-256" "$G" verify b3.list odd
	GPURENT_B3SUM=/nonexistent/b3sum expect_err b3-missing 2 "BLAKE3 (a b3sum file) needs the b3sum program (Debian package b3sum), which is not installed" "$G" verify their.b3 odd
	rm odd/sub/plain && printf x >odd/new
	expect_rc b3-missing-extra 1 '^verify: FAILED: 1 missing, 1 extra, 0 size-changed, 0 content-changed' "$G" verify their.b3 odd
else
	skip "b3sum not installed (package b3sum): BLAKE3 files"
fi
rm -rf odd && mkodd odd
ODDN=$(find odd -type f -printf x | wc -c)
(cd odd && find . -type f -print0 | xargs -0 md5sum --) >md5.list
# 32 hex digits were read as XXH3-128 (22 content-changed): now refused, never misjudged
expect_err md5-ambiguous 2 "md5.list:1: 32 hex digits could be MD5 or XXH128 (md5sum, xxhsum -H2): say which with --hash" "$G" verify md5.list odd
(cd odd && find . -type f -print0 | xargs -0 sha256sum --) >odd.sha256
# CRLF (was: every name missing and extra); sha256sum -c accepts it too
sed 's/$/\r/' odd.sha256 >crlf.sha256
expect_ok crlf "^verify: OK: $ODDN entries match crlf\\.sha256" "$G" verify crlf.sha256 odd
(cd odd && sha256sum -c ../crlf.sha256) >out 2>&1 && ok || bad "sha256sum -c rejects the CRLF file: $(head -3 out)"
# sha256sum -z: NUL-terminated, names unescaped (a newline is part of a name)
(cd odd && find . -type f -print0 | xargs -0 sha256sum -z --) >z.sha256
expect_ok zero "^verify: OK: $ODDN entries match z\\.sha256" "$G" verify z.sha256 odd
# --tag lines name their hash: no --hash needed
for t in md5sum sha1sum sha256sum sha512sum b2sum; do
	(cd odd && find . -type f -print0 | xargs -0 $t --tag --) >tag.list
	expect_ok "$t-tag" "^verify: OK: $ODDN entries match tag\\.list" "$G" verify tag.list odd
done
printf 'CONTENT' >odd/sub/plain
expect_rc zero-damaged 1 '^content-changed: +sub/plain$' "$G" verify z.sha256 odd
expect_rc crlf-damaged 1 '^content-changed: +sub/plain$' "$G" verify crlf.sha256 odd
(cd odd && b2sum -l 256 --tag -- sp\ ace) >b2-256.list
expect_err b2-256 2 "b2-256.list:1: BLAKE2b-256: only BLAKE2b-512" "$G" verify b2-256.list odd
if command -v hashdeep >/dev/null 2>&1; then
	for c in md5 sha1 sha256; do
		rm -rf odd && mkodd odd hd
		N=$(find odd -type f -printf x | wc -c)
		(cd odd && hashdeep -c $c -r -l .) >"their-$c.hd" 2>/dev/null
		expect_ok "hashdeep-$c-theirs" "^verify: OK: $N entries, .* match their-$c\\.hd \\($c\\)" "$G" verify "their-$c.hd" odd
		"$G" manifest odd --format hashdeep --hash $c -o "ours-$c.hd" >/dev/null 2>&1
		(cd odd && hashdeep -a -k "../ours-$c.hd" -r -l .) >out 2>&1
		grep -q 'Audit passed' out && ok || bad "hashdeep -a rejects gpurent's $c file: $(head -3 out)"
		printf 'CONTENT' >odd/sub/plain
		expect_rc "hashdeep-$c-damaged" 1 '^content-changed: +sub/plain$' "$G" verify "their-$c.hd" odd
		(cd odd && hashdeep -a -k "../ours-$c.hd" -r -l .) >out 2>&1
		grep -q 'Audit failed' out && ok || bad "hashdeep -a passed a damaged tree ($c)"
	done
else
	skip "hashdeep not installed (package hashdeep): md5/sha1 hashdeep files"
fi
# verify-cr-name: b3sum, hashdeep and md5deep write a name's final CR as it
# is; in a file whose other lines end in LF it is the name's, not a CRLF
rm -rf crt && mkdir crt && printf h >"crt/cr$CR" && printf a >crt/plain
for spec in "b3sum:b3sum crt.b3" "hashdeep:hashdeep -r -l . crt.hd" "md5deep:md5deep -r -l . crt.md5"; do
	tool=${spec%%:*} cmd=${spec#*:}
	if ! command -v "$tool" >/dev/null 2>&1; then skip "$tool not installed (package $(pkg_of "$tool")): a name ending in CR"; continue; fi
	out=${cmd##* } cmd=${cmd% *}
	[ "$tool" = b3sum ] && cmd="b3sum -- cr$CR plain"
	(cd crt && eval "$cmd") >"$out" 2>/dev/null
	expect_ok "$tool-cr-name" "^verify: OK: 2 entries.* match $out " "$G" verify "$out" crt
done
# the same lines written on Windows (CRLF) still read
printf '%s  %s\r\n' "$(sha256sum <crt/plain | cut -c1-64)" plain >crt.sha256
rm -rf crw && mkdir crw && cp crt/plain crw/
expect_ok crlf-one "^verify: OK: 1 entries.* match crt\\.sha256 " "$G" verify crt.sha256 crw
rm -rf odd && mkodd odd
run "$G" manifest odd --format sha256sum --hash md5 -o plain.list
grep -q "note: 32 hex digits could be MD5 or XXH128 (md5sum, xxhsum -H2): name the file \*.md5" err && ok || bad "no note that plain.list does not name its hash: $(cat err)"
run "$G" manifest odd --format sha256sum --hash md5 -o named.md5
[ ! -s err ] && ok || bad "a note although named.md5 names its hash: $(cat err)"
expect_err xxh-newline 1 "a name with a newline or a final carriage return cannot be written in xxhsum's format" "$G" manifest odd --format sha256sum --hash xxh64 -o nl.xxh64

# --- hashdeep format (no newline names), both ways
mktree hd hashdeep
HDFILES=$(find hd -type f -printf x | wc -c)
if command -v xxhsum >/dev/null 2>&1; then
	# xxhsum -H2 writes the same 'HASH  NAME' lines with XXH3-128 (names unescaped)
	(cd hd && find . -type f -print0 | xargs -0 xxhsum -H2 2>/dev/null) >their.xxh
	expect_err xxhsum-ambiguous 2 "their.xxh:1: 32 hex digits could be MD5 or XXH128" "$G" verify their.xxh hd
	expect_ok verify-xxhsum "^verify: OK: $HDFILES entries match their\\.xxh \\(xxh3-128\\)" "$G" verify their.xxh hd --hash xxh3
	"$G" manifest hd --format sha256sum --hash xxh3 -o m.xxh128 >/dev/null
	(cd hd && xxhsum -H2 -c ../m.xxh128) >out 2>&1 && [ "$(grep -c ': OK$' out)" -eq "$HDFILES" ] && ! grep -qi 'improperly' out \
		&& ok || bad "xxhsum -c rejects gpurent's xxh3 sum file: $(tail -3 out)"
fi
expect_err hashdeep-newline 1 "a name with a newline cannot be written in the hashdeep format" "$G" manifest data --format hashdeep -o m.hd
[ ! -e m.hd ] && ok || bad "hashdeep: a manifest was written despite the error"
expect_ok write-hd 'sha256, hashdeep format' "$G" manifest hd --format hashdeep -o m.hd
check hd-header "head -2 m.hd | tr '\n' '|' | grep -qx '%%%% HASHDEEP-1.0|%%%% size,sha256,filename|'"
check hd-line "grep -q '^102400,[0-9a-f]\{64\},\./a\.bin\$' m.hd"
expect_ok verify-hd "^verify: OK: $HDFILES entries, .* match m\\.hd \\(sha256\\)" "$G" verify m.hd hd
if command -v hashdeep >/dev/null 2>&1; then
	(cd hd && hashdeep -a -k ../m.hd -r -l .) >out 2>&1
	if grep -q 'Audit passed' out; then ok; else bad "hashdeep -a -k rejects gpurent's file: $(cat out)"; fi
	(cd hd && hashdeep -c md5,sha256 -r -l .) >their.hd 2>/dev/null
	expect_ok verify-their-hd '^verify: OK: .* match their\.hd \(sha256\)' "$G" verify their.hd hd
	(cd hd && hashdeep -c sha256 -r "$T/hd") >abs.hd 2>/dev/null
	expect_err their-hd-absolute 2 "abs.hd:6: expected a relative path" "$G" verify abs.hd hd
	# and hashdeep's audit notices damage in gpurent's file's tree
	cp -r hd hd2 && printf 'more' >>hd2/a.bin
	(cd hd2 && hashdeep -a -k ../m.hd -r -l .) >out 2>&1
	grep -q 'Audit failed' out && ok || bad "hashdeep audit passed a damaged tree"
	rm -rf hd2
else
	skip "hashdeep not installed (tools/deps.sh installs it as root): hashdeep interoperability"
fi

# --- every kind of damage, alone, then all at once; counts in the summary
damage() { rm -rf d && cp -a data d; }   # a fresh copy (cp -a keeps the link and FIFO)
"$G" manifest data -o m.gp >/dev/null
damage; rm d/sub/b.txt
expect_rc delete 1 '^missing: +sub/b\.txt$' "$G" verify m.gp d
grep -q '^verify: FAILED: 1 missing, 0 extra, 0 size-changed, 0 content-changed, 0 unreadable' out && ok || bad "delete: summary $(tail -1 out)"
damage; printf 'new' >d/sub/added.txt
expect_rc add 1 '^extra: +sub/added\.txt$' "$G" verify m.gp d
grep -q 'FAILED: 0 missing, 1 extra,' out && ok || bad "add: summary $(tail -1 out)"
damage; truncate -s 10 d/a.bin
expect_rc truncate 1 '^size-changed: +a\.bin \(102400 -> 10 bytes\)$' "$G" verify m.gp d
damage; printf '!' >>d/sub/deeper/c.txt
expect_rc grow 1 '^size-changed: +sub/deeper/c\.txt \(5 -> 6 bytes\)$' "$G" verify m.gp d
damage; printf '\001' | dd of=d/zeros.bin bs=1 seek=500 conv=notrunc 2>/dev/null
expect_rc flip-byte 1 '^content-changed: +zeros\.bin$' "$G" verify m.gp d
grep -qF ', 1 content-changed, 0 unreadable (' out && ok || bad "flip: summary $(tail -1 out)"
expect_rc flip-quick 0 '^verify: OK: .*quick: names and sizes' "$G" verify m.gp d --quick
# the byte's complement: big.bin is random, so a fixed byte may already be there
damage; b=$(od -An -tu1 -j9000000 -N1 d/big.bin | tr -d ' ')
printf "\\$(printf %o $((255 - b)))" | dd of=d/big.bin bs=1 seek=9000000 conv=notrunc 2>/dev/null
expect_rc flip-big 1 '^content-changed: +big\.bin$' "$G" verify m.gp d
damage; rm d/link && ln -s zeros.bin d/link
expect_rc relink 1 '^content-changed: +link$' "$G" verify m.gp d
damage; rm d/link && cp data/a.bin d/link
expect_rc link-to-file 1 '^content-changed: +link \(was a symlink, now a file\)$' "$G" verify m.gp d
damage; rm d/zeros.bin && mkfifo d/zeros.bin
expect_rc fifo 1 '^unreadable: +zeros\.bin \(not a regular file\)$' "$G" verify m.gp d
grep -qF ', 1 unreadable (' out && ok || bad "fifo: summary $(tail -1 out)"
damage; rm d/sub/b.txt; printf 'x' >d/extra; truncate -s 5 d/a.bin
printf '\001' | dd of=d/zeros.bin bs=1 seek=1 conv=notrunc 2>/dev/null
rm d/empty && mkfifo d/empty
expect_rc all-at-once 1 '^verify: FAILED: 1 missing, 1 extra, 1 size-changed, 1 content-changed, 1 unreadable \('"$((NFILES + 1)) recorded, $((NFILES - 3)) match"'\)$' "$G" verify m.gp d
check all-in-order "grep -v '^verify' out | sed 's/^[a-z-]*: *//; s/ (.*//' | LC_ALL=C sort -c"
expect_rc all-quick 1 '^verify: FAILED: 1 missing, 1 extra, 1 size-changed, 0 content-changed, 1 unreadable' "$G" verify m.gp d --quick
damage; rm "d/$NL" "d/back\\slash"
expect_rc odd-missing 1 '^missing: +back\\\\slash$' "$G" verify m.gp d
grep -qx 'missing:         new\\nline' out && ok || bad "a missing name with a newline is not shown escaped"

# in the other formats too (sha256sum: no sizes, so a resized file has another hash)
damage; truncate -s 10 d/a.bin; rm d/sub/b.txt; printf 'x' >d/extra
expect_rc sum-damage 1 '^verify: FAILED: 1 missing, 1 extra, 0 size-changed, 1 content-changed, 0 unreadable' "$G" verify m.sha256 d
expect_rc sum-quick 1 '^verify: FAILED: 1 missing, 1 extra, 0 size-changed, 0 content-changed' "$G" verify m.sha256 d --quick
rm -rf dh && cp -a hd dh && truncate -s 10 dh/a.bin && mkfifo dh/empty.tmp
printf '\001' | dd of=dh/zeros.bin bs=1 seek=3 conv=notrunc 2>/dev/null
expect_rc hd-damage 1 '^verify: FAILED: 0 missing, 0 extra, 1 size-changed, 1 content-changed, 0 unreadable' "$G" verify m.hd dh

# unreadable: a followed symlink whose target is gone
mkdir -p f && printf 'target' >outside.bin && printf 'in' >f/in.txt && ln -s ../outside.bin f/ln
expect_ok follow-write '2 files' "$G" manifest f --follow-symlinks -o m.follow
check follow-header "grep -qx '# follow-symlinks: yes' m.follow && grep -q '^f 6 .* ln\$' m.follow"
expect_ok follow-ok '^verify: OK' "$G" verify m.follow f
rm outside.bin
expect_rc dangling 1 '^unreadable: +ln \(No such file or directory\)$' "$G" verify m.follow f
expect_err follow-manifest-dangling 1 "1 entry could not be read; no manifest written" sh -c "\"$G\" manifest f --follow-symlinks -o m2 2>&1 >/dev/null | tail -1 >&2; exit 1"
expect_err hash-contradicts 2 "--hash: m.gp's header says its hash is xxh3-128, not sha256" "$G" verify m.gp data --hash sha256
expect_err follow-contradicts 2 "--follow-symlinks: m.gp records symlinks as links" "$G" verify m.gp data --follow-symlinks

# unreadable as an unprivileged user (root reads everything)
if command -v setpriv >/dev/null 2>&1 && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
	chmod 755 "$T"
	damage; chmod -R a+rX d; chmod 644 m.gp
	$NOBODY "$G" verify m.gp d >out 2>err; rc=$?
	[ "$rc" -eq 0 ] && ok || bad "nobody cannot verify a readable tree: $(cat err)"
	chmod 000 d/a.bin
	expect_rc eacces 1 '^unreadable: +a\.bin \(Permission denied\)$' $NOBODY "$G" verify m.gp d
	grep -q 'FAILED: 0 missing, 0 extra, 0 size-changed, 0 content-changed, 1 unreadable' out && ok || bad "eacces: summary $(tail -1 out)"
	chmod 000 d/sub
	expect_rc eacces-dir 1 '^unreadable: +sub/b\.txt \(directory cannot be listed: Permission denied\)$' $NOBODY "$G" verify m.gp d
	grep -qF ', 3 unreadable (' out && ok || bad "eacces-dir: expected a.bin, sub/b.txt, sub/deeper/c.txt unreadable: $(tail -1 out)"
	chmod 755 d/sub
	chmod 777 .
	$NOBODY "$G" manifest d -o nobody.m >out 2>err; rc=$?
	[ "$rc" -eq 1 ] && grep -q '^gpurent manifest: a\.bin: cannot read: Permission denied$' err && [ ! -e nobody.m ] \
		&& ok || bad "manifest of an unreadable file: exit $rc, $(cat err)"
	chmod 755 .
	chmod 644 d/a.bin
else
	skip "setpriv cannot drop to nobody here: chmod 000 cases (the FIFO and dangling-link cases ran)"
fi

# --- malformed manifests: one line FILE:LINE: what was expected, exit 2
sed '9s/^f [0-9]* /f 12x /' m.gp >bad1.m
expect_err bad-size-line 2 "bad1.m:9: size: expected a size in bytes from 0 to 1000000000000000000 (1 EB), got '12x'" "$G" verify bad1.m data
sed '$d' m.gp >bad2.m
expect_err truncated-manifest 2 "bad2.m:4: files: the header says $NFILES, the manifest lists $((NFILES - 1)) (truncated or edited?)" "$G" verify bad2.m data
sed '3s/.*/# follow-symlinks: perhaps/' m.gp >bad3.m
expect_err bad-header 2 "bad3.m:3: follow-symlinks: expected yes or no, got 'perhaps'" "$G" verify bad3.m data
printf 'not a manifest\n' >bad4.m
expect_err not-manifest 2 "bad4.m:1: expected 'HASH  NAME' (sha256sum format) or 'TAG (NAME) = HASH', got 'not a manifest'" "$G" verify bad4.m data
: >empty.m
expect_err empty-manifest 2 "empty.m:1: expected a manifest" "$G" verify empty.m data
printf '%s  ../etc/passwd\n' "$(printf x | sha256sum | cut -c1-64)" >escape.sha256
expect_err escape-dir 2 "escape.sha256:1: expected a relative path without empty, '.' or '..' parts, got '../etc/passwd'" "$G" verify escape.sha256 data
expect_err verify-no-dir 2 "gpurent verify: nowhere: cannot open directory" "$G" verify m.gp nowhere

# --- the documentation names both commands and every option
for c in manifest verify; do
	grep -q "gpurent $c" "$ROOT/README.md" && grep -q "^\\\\fB$c\\\\fR" "$ROOT/docs/gpurent.1" && ok \
		|| bad "$c missing from README.md or the COMMANDS of docs/gpurent.1"
	"$G" $c --help | grep -o -- '--[a-z][a-z-]*' | sort -u >opts
	while read -r o; do
		grep -Fq -- "$o" "$ROOT/docs/gpurent.1" && grep -Fq -- "$o" "$ROOT/docs/manifest.md" \
			&& ok || bad "$c $o: not in docs/gpurent.1 or docs/manifest.md"
	done <opts
done

# --- walk-deep-stack-overflow: a chain 2,000 directories deep is refused with
# one line and exit 2 (WALK_MAX_DEPTH 256), never a crash; 256 levels still work
mkdir deep && (cd deep && i=0 && while [ $i -lt 2000 ]; do mkdir d && cd d || exit 1; i=$((i + 1)); done && echo x >f) \
	|| bad "cannot make the deep chain"
for c in "manifest deep -o deep.mf" "verify m.gp deep"; do
	run timeout 60 "$G" $c
	if [ "$rc" -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && grep -q "^gpurent ${c%% *}: deep/d/d/.*: directories nested deeper than 256 levels\$" err; then
		ok
	else
		bad "deep chain ($c): rc $rc $(cut -c1-200 err)"
	fi
done
[ ! -e deep.mf ] && ok || bad "deep chain: no manifest written"
mkdir deep256 && (cd deep256 && i=0 && while [ $i -lt 256 ]; do mkdir d && cd d || exit 1; i=$((i + 1)); done && echo x >f)
expect_rc deep-256 0 '^deep256.mf: 1 files' "$G" manifest deep256 -o deep256.mf
expect_rc deep-256-verify 0 '^verify: OK: 1 entries' "$G" verify deep256.mf deep256

# --- terminal-escape-injection: names with ESC/BEL/OSC are escaped in every report
mkdir evil && cp data/zeros.bin evil/ 2>/dev/null; echo a >evil/ok
"$G" manifest evil -o evil.mf >/dev/null 2>&1 || bad "manifest evil"
printf x >"evil/$(printf 'pwn\033]0;pwned\007x')"
printf x >"evil/$(printf 'clr\033[2Jx')"
mkfifo evil/fifo
run timeout 10 "$G" verify evil.mf evil
if [ "$rc" -eq 1 ] && grep -Fq 'extra:           clr\x1b[2Jx' out && grep -Fq 'extra:           pwn\x1b]0;pwned\x07x' out \
	&& tr -d '\033\007' <out | cmp -s - out; then ok; else bad "verify escapes names: rc $rc $(cat -v out)"; fi
chmod 000 evil/ok 2>/dev/null
mkdir "evil/$(printf 'dir\033[2J')"
ln -s nowhere "evil/$(printf 'dir\033[2J')/$(printf 'l\033]0;t\007')"
run timeout 10 "$G" manifest evil --follow-symlinks -o evil2.mf
if [ "$rc" -eq 1 ] && grep -Fq 'l\x1b]0;t\x07: cannot read' err && tr -d '\033\007' <err | cmp -s - err; then
	ok; else bad "manifest escapes names on stderr: rc $rc $(cat -v err)"; fi

# plan-task-name-escape: the manifest's own file name is escaped in the summary
# line of manifest and verify (out.h)
mkdir -p escd && echo x >escd/f
ename=$(printf 'm\033]0;t\007.txt')
run "$G" manifest escd -o "$ename"
if [ "$rc" -eq 0 ] && grep -Fq 'm\x1b]0;t\x07.txt: 1 files' out && tr -d '\033\007' <out | cmp -s - out; then
	ok; else bad "manifest escapes its output's name: rc $rc $(cat -v out)"; fi
run "$G" verify "$ename" escd
if [ "$rc" -eq 0 ] && grep -Fq 'match m\x1b]0;t\x07.txt (' out && tr -d '\033\007' <out | cmp -s - out; then
	ok; else bad "verify escapes the manifest's name: rc $rc $(cat -v out)"; fi

echo "manifest: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
