#!/bin/sh
# bench/manifest.sh - the manifest benchmarks (not a test), two cases:
# "images" (issue 5): a tree of 3,000 small files (30-120 KB, like a folder
# of images) and four 256 MB files, warm in the page cache, hashed in the
# same run by gpurent and by its peers from Debian's packages. Each command
# runs ROUNDS times, interleaved; the best time of each is compared. Targets
# (XXH3 mode): >= 4x `hashdeep -r -c sha256`, >= 1.5x `b3sum`, >= 1x
# `xxhsum -H3`; (SHA-256 mode): >= 4x coreutils `sha256sum`.
# "many" (issue 11): 200,000 files of 1-4 KB in 2,000 directories,
# deterministic content, warm; `find -printf '%s %p\n'`, `find | xargs
# xxhsum -H3`, `gpurent manifest -o M` and `gpurent verify M --quick` run in
# turn each round, and each round's ratios are taken pair by pair (so a
# drift of the machine's speed cancels); min, median and max are printed.
# Targets: manifest <= 2x find, >= 2x faster than xxhsum, verify --quick
# <= 1.2x find.
#   sh bench/manifest.sh [ROUNDS]    (installs hashdeep, b3sum, xxhash as root)
# BENCH_CASES="images many" picks the cases (default both); BENCH_DIR=DIR
# keeps the trees there between runs (made if absent).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${1:-5}
CASES=${BENCH_CASES:-images many}
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
	trap 'rm -f "$W.out" "$W.m" "$W.many.m" "$W.ratios" "$W.times"' EXIT
else
	W=$(mktemp -d)
	trap 'rm -rf "$W" "$W.out" "$W.m" "$W.many.m" "$W.ratios" "$W.times"' EXIT
fi
now() { date +%s.%N; }
# cpu: log the user + system seconds of every command this shell has
# waited for (`times`' second line; in this shell, never in a $(...) subshell)
cpu() { times >>"$W.times"; }
machine() {
	echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
}

case_images() {
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
	machine
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
	cd "$ROOT"
}

# ---- many small files ----
case_many() {
	M=$W/many
	if [ ! -f "$W/.many-complete" ]; then
		rm -rf "$M"
		# 200 x 10 directories; file i holds 1024 + (i * 7919) mod 3073 bytes
		# (1-4 KB, spread evenly) that start with its number
		awk -v d="$M" 'BEGIN { for (a = 0; a < 200; a++) for (b = 0; b < 10; b++) printf "%s/%03d/%d\n", d, a, b }' |
			xargs mkdir -p
		awk -v d="$M" 'BEGIN {
			blk = "gpurent many small files benchmark "
			while (length(blk) < 4200) blk = blk blk
			for (i = 0; i < 200000; i++) {
				f = sprintf("%s/%03d/%d/%d.dat", d, i % 200, int(i / 200) % 10, i)
				size = 1024 + (i * 7919) % 3073
				printf "%08d%s", i, substr(blk, 1, size - 8) > f
				close(f)
			}
		}'
		: >"$W/.many-complete"
	fi
	cd "$M"
	files=$(find . -type f | wc -l)
	bytes=$(find . -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')
	du=$(du -sm . | cut -f1)
	# the tree on disk first (200,000 files just written are still being
	# flushed for a while: that writeback would run during the rounds),
	# then warm: read everything, and run each command once, uncounted
	sync
	find . -type f -exec cat {} + >/dev/null
	"$G" manifest . -o "$W.many.m" >/dev/null
	"$G" verify "$W.many.m" . --quick >/dev/null || { echo "verify --quick failed on an intact tree"; exit 1; }
	find . -type f -print0 | xargs -0 xxhsum -H3 >/dev/null 2>&1
	echo
	echo "many small files: $files files, $bytes bytes ($du MB on disk), 200 x 10 directories, page cache warm"
	machine
	: >"$W.ratios"
	: >"$W.times"
	r=0
	while [ "$r" -lt "$ROUNDS" ]; do
		cpu; t0=$(now)
		find . -type f -printf '%s %p\n' >/dev/null
		t1=$(now); cpu
		find . -type f -print0 | xargs -0 xxhsum -H3 >/dev/null 2>&1
		t2=$(now); cpu
		"$G" manifest . -o "$W.many.m" >/dev/null
		t3=$(now); cpu
		"$G" verify "$W.many.m" . --quick >/dev/null
		t4=$(now); cpu
		echo "$t0 $t1 $t2 $t3 $t4" >>"$W.ratios"
		r=$((r + 1))
	done
	rm -f "$W.many.m"
	cd "$ROOT"
	awk -v n="$ROUNDS" '
	function sort(a, k,   i, j, t) { for (i = 2; i <= k; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t } }
	function row(name, a, k, target, ok,   med) {
		sort(a, k)
		med = (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
		printf "  %-44s %5.2f  (min %5.2f, max %5.2f)  target %s: %s\n", name, med, a[1], a[k], target,
			(ok == "le" ? med <= substr(target, 4) : med >= substr(target, 4)) ? "met" : "MISSED"
	}
	function trow(name, a, k, unit,   med) {
		sort(a, k)
		med = (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
		if (unit == "x")
			printf "  %-44s %5.2f  (min %5.2f, max %5.2f)\n", name, med, a[1], a[k]
		else
			printf "  %-44s %6.3f s  (min %6.3f, max %6.3f)\n", name, med, a[1], a[k]
	}
	NR == FNR {
		# the children line of each `times`: cumulative CPU seconds
		if (FNR % 2 == 0) { split($1, u, /[ms]/); split($2, y, /[ms]/); c[++nc] = u[1] * 60 + u[2] + y[1] * 60 + y[2] }
		next
	}
	{
		k++
		for (i = 0; i < 5; i++) C[i] = c[5 * (k - 1) + 1 + i]
		$6 = C[0]; $7 = C[1]; $8 = C[2]; $9 = C[3]; $10 = C[4]
		f[k] = $2 - $1; x[k] = $3 - $2; g[k] = $4 - $3; v[k] = $5 - $4
		rg[k] = g[k] / f[k]; rx[k] = x[k] / g[k]; rv[k] = v[k] / f[k]
		cf[k] = $7 - $6; cx[k] = $8 - $7; cg[k] = $9 - $8; cv[k] = $10 - $9
		qg[k] = cg[k] / cf[k]; qx[k] = cx[k] / cg[k]; qv[k] = cv[k] / cf[k]
	}
	END {
		printf "%d interleaved rounds, median (min, max):\n", k
		trow("find -type f -printf \"%s %p\\n\"", f, k)
		trow("find -print0 | xargs -0 xxhsum -H3", x, k)
		trow("gpurent manifest -o M", g, k)
		trow("gpurent verify M --quick", v, k)
		print "ratios, pair by pair in each round:"
		row("manifest / find", rg, k, "<= 2", "le")
		row("xxhsum / manifest (manifest is faster by)", rx, k, ">= 2", "ge")
		row("verify --quick / find", rv, k, "<= 1.2", "le")
		print "CPU seconds (user + system; what a loaded machine cannot inflate much):"
		trow("find", cf, k)
		trow("find | xargs xxhsum -H3", cx, k)
		trow("gpurent manifest", cg, k)
		trow("gpurent verify --quick", cv, k)
		trow("CPU manifest / find", qg, k, "x")
		trow("CPU xxhsum / manifest", qx, k, "x")
		trow("CPU verify --quick / find", qv, k, "x")
	}' "$W.times" "$W.ratios"
	rm -f "$W.ratios" "$W.times"
}

for c in $CASES; do
	case $c in
	images) case_images ;;
	many) case_many ;;
	*) echo "bench/manifest.sh: unknown case '$c' (images, many)"; exit 2 ;;
	esac
done
