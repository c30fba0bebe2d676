#!/bin/sh
# bench/bill-audit.sh - `gpurent bill audit` against the size of the bill
# (not a test; issue 26, item 9: bill-audit-quadratic). Bills of N and 10 N
# neutral lines, each line its own resource id, newest first (the worst
# order for a search or an insertion sort), are imported into their own
# ledgers; `bill audit` and `bill audit --budget` run ROUNDS times on each,
# interleaved, and the best time of each is printed with the ratio of the
# large bill's to the small one's. Linear scaling gives about 10x (the
# audit was quadratic: 100x, 35.6 s for 100k lines before the fix). Target:
# 1M lines audit in a few seconds, ratio <= 15. Then a generated legacy
# CUR of CUR_LINES lines (default 1,000,000: 200 GPU boxes billed by the
# hour, the last hour of each run 0.25 Hrs, their disks tagged with the
# box's name, egress, credit lines) is imported and audited once each,
# with the time of each and its peak memory (issue 28 item 8).
#   sh bench/bill-audit.sh [ROUNDS] [N]   (defaults 3 and 100000; CUR_LINES=0 skips the CUR)
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

# ---- a 1M-line CUR, imported and audited ----
C=${CUR_LINES:-1000000}
[ "$C" -gt 0 ] || exit 0
awk -v n="$C" 'BEGIN {
	print "identity/LineItemId,lineItem/LineItemType,lineItem/UsageStartDate,lineItem/UsageEndDate,lineItem/ProductCode,lineItem/UsageType,lineItem/ResourceId,lineItem/UsageAmount,pricing/unit,lineItem/UnblendedCost,lineItem/CurrencyCode,resourceTags/user:Name"
	boxes = 200; t0 = 1700000000
	for (i = 0; i < n; i++) {
		b = i % boxes; h = int(i / boxes)
		s = t0 + h * 3600; e = s + 3600
		k = h % 10
		if (k < 6) {          # GPU hours; some the last quarter hour of a run
			q = (h % 60 == 5) ? 0.25 : 1
			printf "l%d,Usage,%s,%s,AmazonEC2,USE1-BoxUsage:g5.xlarge,i-%04d,%s,Hrs,%.4f,USD,box-%d\n", i, iso(s), iso(e), b, q, q * 1.006, b
		} else if (k < 8) {   # its disk
			printf "l%d,Usage,%s,%s,AmazonEC2,USE1-EBS:VolumeUsage.gp3,vol-%04d,0.14,GB-Mo,0.0110,USD,box-%d\n", i, iso(s), iso(e), b, b
		} else if (k < 9) {   # egress
			printf "l%d,Usage,%s,%s,AmazonEC2,USE1-DataTransfer-Out-Bytes,i-%04d,2.5,GB,0.2250,USD,box-%d\n", i, iso(s), iso(e), b, b
		} else {              # a credit, no usage type
			printf "l%d,Credit,%s,%s,AmazonEC2,,,0,,-0.0500,USD,\n", i, iso(s), iso(e)
		}
	}
}
function iso(t,  d, y, m, md, r) {
	d = int(t / 86400); r = t % 86400
	y = 1970
	while (1) { yd = (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)) ? 366 : 365; if (d < yd) break; d -= yd; y++ }
	split("31 28 31 30 31 30 31 31 30 31 30 31", md, " ")
	if (yd == 366) md[2] = 29
	for (m = 1; d >= md[m]; m++) d -= md[m]
	return sprintf("%04d-%02d-%02dT%02d:%02d:%02dZ", y, m, d + 1, int(r / 3600), int(r % 3600 / 60), r % 60)
}' >"$W/cur.csv"
echo "CUR: $C lines, $(wc -c <"$W/cur.csv" | awk '{printf "%.0f MB", $1 / 1e6}')"
for step in import audit; do
	if [ "$step" = import ]; then set -- "$G" bill --ledger "$W/cur.db" import "$W/cur.csv"
	else set -- "$G" bill --ledger "$W/cur.db" audit; fi
	t0=$(now)
	# wall time, and CPU time (user + system: what the wall time is on an
	# idle machine; a shared one stretches the wall time, not this)
	if [ -x /usr/bin/time ]; then /usr/bin/time -f "%M %U %S" -o "$W/mem" "$@" >"$W/out"; else "$@" >"$W/out"; echo "0 0 0" >"$W/mem"; fi
	echo "CUR $step: $(echo "$(now) $t0" | awk '{printf "%.2f s", $1 - $2}') wall, $(awk '{printf "%.2f s CPU, peak %.0f MB", $2 + $3, $1 / 1024}' "$W/mem")"
	[ "$step" = import ] && head -1 "$W/out" | sed 's|^.*/||; s/^/  /'
	[ "$step" = audit ] && grep -E "lines,|gross|Findings|\[" "$W/out" | head -8 | sed 's/^/  /'
done
