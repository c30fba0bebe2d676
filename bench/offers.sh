#!/bin/sh
# bench/offers.sh - issue 3's offer-search benchmark (not a test): the union
# of the real SkyPilot catalogs in ../shared/data/catalogs replicated to
# 1,000,000 rows; the query "gpu_mem>=40 price<3, sorted by price, top 20"
# answered from a cold process start by gpurent, pandas and Miller on the
# same file in the same run. Prints the median of 9 runs each (after one
# uncounted; OFFERS_RUNS=N for another count), the ratios,
# and peak RSS against the CSV's size. Targets: >= 10x pandas, >= 3x mlr,
# peak memory < 2x the CSV; within 3x of `wc -l` reading the same file
# (issue 32), with the split of gpurent's time from perf's samples.
#   sh bench/offers.sh [ROWS]        (needs python3-pandas, miller, time)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CAT=${CATALOGS:-$ROOT/../shared/data/catalogs}
ROWS=${1:-1000000}
G=${GPURENT:-$ROOT/build/gpurent}
PY=/usr/bin/python3
[ -d "$CAT" ] || { echo "SKIP: $CAT not found (../shared is absent)"; exit 0; }
[ -x "$G" ] || make -C "$ROOT" >/dev/null
if [ "$(id -u)" = 0 ] && ! { $PY -c 'import pandas' 2>/dev/null && command -v mlr >/dev/null && [ -x /usr/bin/time ]; }; then
	apt-get install -y -qq python3-pandas miller time >/dev/null
fi
$PY -c 'import pandas' 2>/dev/null || { echo "needs python3-pandas"; exit 1; }
command -v mlr >/dev/null || { echo "needs miller"; exit 1; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# 1. the union, one header, replicated; each copy's InstanceType gets a
#    suffix so that no row is an exact duplicate of another
$PY - "$CAT" "$W/union.csv" "$ROWS" <<'PY'
import csv, glob, os, sys
cat, out, rows = sys.argv[1], sys.argv[2], int(sys.argv[3])
cols = ["InstanceType", "AcceleratorName", "AcceleratorCount", "vCPUs", "MemoryGiB",
        "Price", "SpotPrice", "Region", "GpuInfo"]
base = []
for f in sorted(glob.glob(os.path.join(cat, "*", "vms.csv"))):
    for r in csv.DictReader(open(f, newline="")):
        base.append([r.get(c, "") for c in cols])
with open(out, "w", newline="") as fh:
    w = csv.writer(fh, lineterminator="\n")
    w.writerow(cols)
    n = k = 0
    while n < rows:
        for r in base:
            if n == rows:
                break
            r2 = list(r)
            r2[0] = "%s-r%d" % (r[0], k)
            w.writerow(r2)
            n += 1
        k += 1
print("union: %d catalog rows from %s, replicated to %d rows" % (len(base), cat, rows))
PY
SIZE=$(wc -c <"$W/union.csv")
echo "CSV: $SIZE bytes"

# 2. the per-GPU memory table the peers join on (gpurent resolves it itself)
"$G" gpus --json | $PY -c '
import csv, json, sys
rows = json.load(sys.stdin)
w = csv.writer(sys.stdout, lineterminator="\n")
w.writerow(["AcceleratorName", "gpu_mem"])
seen = set()
for g in rows:
    for a in [g["name"]] + g["aliases"].split("|"):
        if a and a not in seen:
            seen.add(a); w.writerow([a, "%g" % (g["memory_bytes"] / 1e9)])
' >"$W/mem.csv"

cat >"$W/q.py" <<'PY'
import sys, pandas as pd
df = pd.read_csv(sys.argv[1])
mem = pd.read_csv(sys.argv[2])
df = df[df.AcceleratorCount > 0].merge(mem, on="AcceleratorName", how="inner")
df["price"] = df.Price / df.AcceleratorCount
df = df[(df.gpu_mem >= 40) & (df.price < 3)].sort_values("price").head(20)
df.to_csv(sys.stdout, index=False)
PY

CMD_GPURENT="'$G' offers --catalog '$W/union.csv' 'gpu_mem>=40 price<3' --sort price --limit 20 --csv"
CMD_PANDAS="$PY '$W/q.py' '$W/union.csv' '$W/mem.csv'"
CMD_MLR="mlr --icsv --ocsv join -j AcceleratorName -f '$W/mem.csv' \
then filter '\$AcceleratorCount > 0' then put '\$price = \$Price / \$AcceleratorCount' \
then filter '\$gpu_mem >= 40 && \$price < 3' then sort -nf price then head -n 20 '$W/union.csv'"

# written back before anything is timed (a 60 MB file still being flushed
# takes the CPU and the disk from whatever runs then), then in the page cache
sync "$W/union.csv" 2>/dev/null || sync
cat "$W/union.csv" >/dev/null
CMD_WC="wc -l '$W/union.csv'"
# median wall seconds of RUNS runs after one uncounted (the clock read
# around each, in ns: wc -l takes about 15 ms, /usr/bin/time's
# resolution is 10), and the peak RSS in KiB
RUNS=${OFFERS_RUNS:-9}
measure() {
	sh -c "exec $1" >/dev/null 2>&1 || true
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		i=$((i + 1))
		t0=$(date +%s%N)
		/usr/bin/time -f "%M" -o "$W/m.$i" sh -c "exec $1" >"$W/out.$2" 2>"$W/err.$2" ||
			{ echo "$2 failed:" >&2; cat "$W/err.$2" >&2; exit 1; }
		t1=$(date +%s%N)
		echo "$(( (t1 - t0) / 1000 )) $(cat "$W/m.$i")" >"$W/t.$i"
	done
	cat "$W"/t.* | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p" | awk '{ printf "%.6f %s\n", $1 / 1e6, $2 }'
	rm -f "$W"/t.* "$W"/m.*
}
set -- $(measure "$CMD_WC" wc); tw=$1
set -- $(measure "$CMD_GPURENT" gpurent); tg=$1 mg=$2
set -- $(measure "$CMD_PANDAS" pandas); tp=$1 mp=$2
set -- $(measure "$CMD_MLR" mlr); tm=$1 mm=$2
echo "top rows (gpurent | pandas | mlr):"
for p in gpurent pandas mlr; do sed -n 2p "$W/out.$p" | cut -c1-110; done
$PY - "$tg" "$tp" "$tm" "$mg" "$mp" "$mm" "$SIZE" "$tw" <<'PY'
import sys
tg, tp, tm = map(float, sys.argv[1:4])
mg, mp, mm, size = map(float, sys.argv[4:8])
tw = float(sys.argv[8])
tg = max(tg, 0.0005)
print("median wall time: gpurent %.3f s, pandas %.3f s, mlr %.3f s, wc -l %.3f s" % (tg, tp, tm, tw))
print("ratio vs pandas: %.1fx (target >= 10x)   ratio vs mlr: %.1fx (target >= 3x)" % (tp / tg, tm / tg))
r = tg / max(tw, 0.0005)
print("gpurent / wc -l: %.2fx (target <= 3x: %s)" % (r, "met" if r <= 3 else "MISSED"))
print("peak RSS: gpurent %.0f MiB = %.2fx the CSV (target < 2x); pandas %.0f MiB, mlr %.0f MiB"
      % (mg / 1024, mg * 1024 / size, mp / 1024, mm / 1024))
PY

# where gpurent's time goes: perf's samples (both threads, user and kernel)
# grouped by what each function does. SKIP without perf or its permission.
if command -v perf >/dev/null 2>&1 &&
   perf record -q -o "$W/perf.data" -F 20000 sh -c "exec $CMD_GPURENT" >/dev/null 2>"$W/perf.err"; then
	echo "time split of gpurent's run (perf samples, both threads):"
	perf report -i "$W/perf.data" --no-children --stdio -g none --sort sym 2>/dev/null |
	awk '/^ +[0-9.]+%/ {
		p = $1; sub(/%/, "", p); s = $NF
		if (s ~ /csv_scan|bits64|parse_number|^load_skypilot$|load_sky_range|sky_row|sky_prices|sky_sizes|sky_place|sky_count|str_of|gpuinfo/) g = "parse (fields, numbers)"
		else if (s ~ /resolve_gpu|names_norm|tolower|family|strcmp|strcasecmp|memcmp/) g = "lookup (GPU names)"
		else if (s ~ /seen_|XXH|hash_record|merge_second|probe_run|probe_halves|table_|cmp_u64|bsearch|^push$|add_peer|arena|find_split/) g = "duplicates and offers (hash, merge)"
		else if (s ~ /keep|query|filter|match/) g = "filter"
		else if (s ~ /sort|cmp_/) g = "sort"
		else if (s ~ /clear_page/) g = "kernel: zeroing new pages (duplicate tables)"
		else if ($0 ~ /\[k\]/) g = "kernel (mapping the file, page faults, threads)"
		else g = "other (start, output, libc)"
		t[g] += p; tot += p
	} END { for (g in t) printf "  %5.1f%%  %s\n", t[g] * 100 / tot, g }' | sort -rn
else
	echo "SKIP the time split: perf cannot record here ($(head -1 "$W/perf.err" 2>/dev/null))"
fi
