#!/bin/sh
# bench/bill-audit.sh - `gpurent bill audit` against the size of the bill
# (not a test; issue 26, item 9: bill-audit-quadratic). Bills of N and 10 N
# neutral lines, each line its own resource id, newest first (the worst
# order for a search or an insertion sort), are imported into their own
# ledgers; `bill audit` and `bill audit --budget` run ROUNDS times on each,
# interleaved, and the best time of each is printed with the ratio of the
# large bill's to the small one's. Linear scaling gives about 10x (the
# audit was quadratic: 100x, 35.6 s for 100k lines before the fix). Target:
# 1M lines audit in a few seconds, ratio <= 15.
#   sh bench/bill-audit.sh [ROUNDS] [N]   (defaults 3 and 100000)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${1:-3}
N=${2:-100000}
G=${GPURENT:-$ROOT/build/gpurent}
[ -x "$G" ] || make -C "$ROOT" >/dev/null
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
now() { date +%s.%N; }
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"

for n in "$N" $((N * 10)); do
	awk -v n="$n" 'BEGIN {
		print "time,end,item,resource,kind,quantity,unit,amount,currency"
		for (i = n; i > 0; i--) { t = 1700000000 + i * 3600
			printf "%d,%d,gpu-h,res-%d,gpu,1,h,1.5,USD\n", t, t + 3600, i } }' >"$W/bill-$n.csv"
	t0=$(now)
	"$G" bill --ledger "$W/$n.db" import "$W/bill-$n.csv" >/dev/null
	echo "import $n lines: $(echo "$(now) $t0" | awk '{printf "%.2f s", $1 - $2}')"
done

best() { sort -g "$1" | head -1; }
: >"$W/times"
r=0
while [ "$r" -lt "$ROUNDS" ]; do
	for n in "$N" $((N * 10)); do
		for mode in plain budget; do
			set -- "$G" bill --ledger "$W/$n.db" audit
			[ "$mode" = budget ] && set -- "$@" --budget 100USD
			t0=$(now)
			"$@" >"$W/out"
			echo "$(now) $t0" | awk '{printf "%.4f\n", $1 - $2}' >>"$W/$mode-$n"
		done
	done
	r=$((r + 1))
done
for mode in plain budget; do
	a=$(best "$W/$mode-$N") b=$(best "$W/$mode-$((N * 10))")
	echo "$mode: $N lines $a s, $((N * 10)) lines $b s, ratio $(echo "$b $a" | awk '{printf "%.1f", $1 / $2}') (linear: 10)"
done
