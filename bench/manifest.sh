#!/bin/sh
# bench/manifest.sh - issue 5's manifest benchmark (not a test): a tree of
# 3,000 small files (30-120 KB, like a folder of images) and four 256 MB
# files, warm in the page cache, hashed in the same run by gpurent and by its
# peers from Debian's packages. Each command runs ROUNDS times, interleaved;
# the best time of each is compared. Targets (XXH3 mode): >= 4x
# `hashdeep -r -c sha256`, >= 1.5x `b3sum`, >= 1x `xxhsum -H3`; (SHA-256
# mode): >= 4x coreutils `sha256sum`.
#   sh bench/manifest.sh [ROUNDS]    (installs hashdeep, b3sum, xxhash as root)
# BENCH_DIR=DIR keeps the tree there between runs (made if absent).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${1:-5}
G=${GPURENT:-$ROOT/build/gpurent}
[ -x "$G" ] || make -C "$ROOT" >/dev/null
need=""
command -v hashdeep >/dev/null || need="$need hashdeep"
command -v b3sum >/dev/null || need="$need b3sum"
command -v xxhsum >/dev/null || need="$need xxhash"
if [ -n "$need" ] && [ "$(id -u)" = 0 ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >/dev/null
	need=""
fi
[ -z "$need" ] || { echo "bench/manifest.sh needs:$need (apt-get install -y$need)"; exit 1; }

if [ -n "${BENCH_DIR:-}" ]; then
	W=$BENCH_DIR
	mkdir -p "$W"
	trap 'rm -f "$W.out"' EXIT
else
	W=$(mktemp -d)
	trap 'rm -rf "$W" "$W.out"' EXIT
fi
D=$W/tree
if [ ! -f "$W/.complete" ]; then
	rm -rf "$D"
	mkdir -p "$D/big"
	i=0
	while [ "$i" -lt 3000 ]; do
		sub=$D/img/$((i % 30))
		[ -d "$sub" ] || mkdir -p "$sub"
		size=$(( (30 + (i * 7919) % 91) * 1000 ))          # 30..120 KB, spread evenly
		head -c "$size" /dev/urandom >"$sub/$i.jpg"
		i=$((i + 1))
	done
	for j in 0 1 2 3; do
		head -c 268435456 /dev/urandom >"$D/big/shard-$j.bin"
	done
	: >"$W/.complete"
fi
FILES=$(find "$D/img" "$D/big" -type f | wc -l)
BYTES=$(find "$D/img" "$D/big" -type f -exec cat {} + | wc -c)
cd "$D"
# warm the page cache (twice: the second pass finds it all there)
find img big -type f -exec cat {} + >/dev/null
find img big -type f -exec cat {} + >/dev/null

now() { date +%s.%N; }
# best TOOL-VARIABLE COMMAND...: run once, keep the smaller time in $best_<var>
time_it() {
	var=$1; shift
	t0=$(now)
	"$@" >"$W.out" 2>/dev/null || { echo "$var: command failed: $*"; exit 1; }
	t1=$(now)
	eval "prev=\${best_$var:-}"
	eval "best_$var=$(awk -v a="$t0" -v b="$t1" -v p="$prev" 'BEGIN { t = b - a; print (p != "" && p < t) ? p : t }')"
}
list() { find img big -type f -print0; }
b3() { list | xargs -0 b3sum; }
xxh() { list | xargs -0 xxhsum -H3; }
sha() { list | xargs -0 sha256sum; }

echo "tree: $FILES files, $BYTES bytes (3000 of 30-120 KB, 4 of 256 MB), page cache warm"
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "best of $ROUNDS interleaved rounds:"
r=0
while [ "$r" -lt "$ROUNDS" ]; do
	time_it gx "$G" manifest . -o "$W.m"
	time_it hashdeep hashdeep -r -c sha256 img big
	time_it b3sum b3
	time_it xxhsum xxh
	time_it gs "$G" manifest . --hash sha256 -o "$W.m"
	time_it sha256sum sha
	r=$((r + 1))
done
rm -f "$W.m"

# report NAME TIME PEER-TIME TARGET
report() {
	awk -v n="$1" -v g="$2" -v p="$3" -v t="$4" 'BEGIN {
		r = p / g
		v = (r >= t) ? "met" : "MISSED"
		printf "  %-34s %6.3f s vs %6.3f s   %5.2fx  (target >= %sx: %s)\n", n, g, p, r, t, v
	}'
}
awk -v b="$BYTES" -v x="$best_gx" -v s="$best_gs" 'BEGIN {
	printf "gpurent manifest: xxh3 %.3f s (%.2f GB/s), sha256 %.3f s (%.2f GB/s)\n", x, b / x / 1e9, s, b / s / 1e9
}'
report "xxh3 vs hashdeep -r -c sha256" "$best_gx" "$best_hashdeep" 4
report "xxh3 vs b3sum" "$best_gx" "$best_b3sum" 1.5
report "xxh3 vs xxhsum -H3" "$best_gx" "$best_xxhsum" 1
report "sha256 vs sha256sum (coreutils)" "$best_gs" "$best_sha256sum" 4
