#!/bin/sh
# tests/cli/catalogs.sh - catalog folders as SkyPilot lays them out (issue 11):
# only vms.csv files are catalogs inside folders, ~/.sky/catalogs/vN by
# number, spot-only rows, and the real ../shared catalogs where present.
# Prints "catalogs: N passed, M failed".
NAME=catalogs
. "$(dirname "$0")/lib/common.sh"

F=$ROOT/tests/data
EX=$ROOT/examples/lora-7b.yaml
SKY=$F/skytree/.sky/catalogs

# HOME's newest version by number: v10, not v8 (string order) nor "latest"
HOME=$F/skytree run "$G" offers --limit 0
[ "$rc" -eq 0 ] && [ ! -s "$T/err" ] && ok || bad "a SkyPilot HOME tree loads: rc $rc: $(cat "$T/err")"
grep -q '^lium .*B300_8x_v10 ' "$T/out" && ok || bad "v10 is the newest: $(grep -c . "$T/out") lines"
! grep -Eq 'v8only|v7only|_latest' "$T/out" && ok || bad "v8, v7 and latest/ are not read: $(grep -E 'only|latest' "$T/out")"
grep -q "$SKY/v10/lium/vms.csv (skypilot): 2 rows, 2 offers$" "$T/out" && ok \
	|| bad "the v10 catalog in the summary: $(grep v10 "$T/out")"
grep -q '^  2 other CSV files in catalog folders ignored (only vms.csv files are catalogs)$' "$T/out" \
	&& ok || bad "one summary line for kubernetes/images.csv and slurm/pricing.csv: $(grep -i ignored "$T/out")"
# the B300 of lium's 8x row: ~288 GB per GPU, not the total divided by 8
grep -Eq '^lium .*B300_8x_v10 +B300 +8 +28[0-9]\.[0-9] ' "$T/out" && ok || bad "B300 8x memory per GPU: $(grep B300 "$T/out")"

# without v10, v8 is the newest; v7's metadata.csv is not read either
mkdir -p h8/.sky/catalogs && cp -R "$SKY/v7" "$SKY/v8" "$SKY/latest" h8/.sky/catalogs/
HOME=$T/h8 run "$G" offers --limit 0
[ "$rc" -eq 0 ] && grep -q '^jarvislabs .*1x_H100_v8only ' "$T/out" && ! grep -q v7only "$T/out" \
	&& ok || bad "v8 over v7: rc $rc $(cat "$T/err")"
grep -q '^  3 other CSV files in catalog folders ignored' "$T/out" && ok \
	|| bad "images.csv, pricing.csv, accelerators.csv ignored: $(grep -i ignored "$T/out")"
# a v9 between them: numbers, not strings (v9 < v10, v9 > v8)
mkdir -p h8/.sky/catalogs/v9/lium && cp "$SKY/v10/lium/vms.csv" h8/.sky/catalogs/v9/lium/
HOME=$T/h8 run "$G" offers --limit 0
grep -q 'B300_8x_v10' "$T/out" && ! grep -q v8only "$T/out" && ok || bad "v9 over v8"
cp -R "$SKY/v10" h8/.sky/catalogs/v10 && rm -r h8/.sky/catalogs/v9 && mkdir -p h8/.sky/catalogs/v10x/lium
HOME=$T/h8 run "$G" offers --limit 0
grep -q "h8/.sky/catalogs/v10/lium" "$T/out" && ! grep -q 'v10x' "$T/out" && ok || bad "v10x is not a version"

# plan on the HOME tree: no stop on images.csv or pricing.csv
HOME=$F/skytree run "$G" plan "$EX"
! grep -q 'required column missing' "$T/err" && [ "$rc" -ne 2 ] && ok || bad "plan with a SkyPilot HOME: rc $rc: $(cat "$T/err")"

# --catalog DIR: only vms.csv
run "$G" offers --catalog "$SKY/v8" --limit 0
[ "$rc" -eq 0 ] && grep -q '^1 of 1 matching offers shown' "$T/out" && ok || bad "--catalog v8/: rc $rc $(cat "$T/err")"
# a folder of CSVs none of which is a catalog: one line naming it, exit 2
run "$G" offers --catalog "$F/skytree-empty/.sky/catalogs/v8"
[ "$rc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "skytree-empty/.sky/catalogs/v8: no catalog: no vms.csv" "$T/err" \
	&& ok || bad "no vms.csv in the folder: rc $rc: $(cat "$T/err")"
# ... beside a catalog: a note, and the rest loads
run "$G" offers --catalog "$F/skytree-empty/.sky/catalogs/v8" --catalog "$F/catalog-lium.csv"
[ "$rc" -eq 0 ] && grep -q 'note: .*skytree-empty/.sky/catalogs/v8: no vms.csv' "$T/err" \
	&& grep -q '^2 of 2 matching offers shown' "$T/out" && ok || bad "a note beside a catalog: rc $rc: $(cat "$T/err")"
HOME=$F/skytree-empty run "$G" offers
[ "$rc" -eq 0 ] && grep -q 'note: .*catalogs/v8: no vms.csv' "$T/err" && ok || bad "an empty HOME version: rc $rc $(cat "$T/err")"
# a CSV named on the command line is read whatever its name
cp "$F/catalog-verda.csv" prices.csv
run "$G" offers --catalog prices.csv --limit 0
[ "$rc" -eq 0 ] && grep -q 'prices.csv (skypilot): 6 rows, 4 offers' "$T/out" && ok || bad "a catalog by any name: rc $rc $(cat "$T/err")"
run "$G" offers --catalog "$SKY/v8/kubernetes/images.csv"
[ "$rc" -eq 2 ] && grep -q 'images.csv:1: AcceleratorName: required column missing' "$T/err" \
	&& ok || bad "images.csv named by hand is read, and refused: rc $rc $(cat "$T/err")"

# spot-only rows: '-' for on-demand, the spot price, ranked on spot
run "$G" offers --catalog "$F/catalog-verda.csv" --limit 0
grep -q 'catalog-verda.csv (skypilot): 6 rows, 4 offers; 1 CPU-only skipped; 1 without a price skipped; 2 spot-only' "$T/out" \
	&& ok || bad "spot-only in the report: $(grep verda "$T/out")"
first=$(sed -n 2p "$T/out")
echo "$first" | grep -Eq '^catalog-verda +8B200.240V +B200 +8 +[0-9.]+ +- +1\.711 ' && ok || bad "the spot-only row first, '-' on demand: $first"
run "$G" offers --catalog "$F/catalog-verda.csv" --limit 0 --sort price-
last=$(grep '^catalog-verda' "$T/out" | tail -1)
echo "$last" | grep -q '8B200.240V' && ok || bad "descending: the spot-only row last on its spot price: $last"
if need_py "spot_only in the JSON"; then
	run "$G" offers --catalog "$F/catalog-verda.csv" --limit 0 --json
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
o = {x["instance"]: x for x in d["offers"]}
s = o["8B200.240V"]
assert s["spot_only"] is True and s["price_per_gpu_hour"] == 0 and abs(s["spot_price_per_gpu_hour"] - 13.69 / 8) < 1e-9, s
assert o["1B300.30V"]["spot_only"] is False
' "$T/out" && ok || bad "spot_only in the JSON"
fi

# the real catalogs in ../shared: every vms.csv loads, the rest is ignored
S=$ROOT/../shared/data/catalogs
if [ -d "$S" ]; then
	run "$G" offers --catalog "$S" --limit 0
	[ "$rc" -eq 0 ] && [ ! -s "$T/err" ] && ok || bad "the shared catalogs: rc $rc: $(head -3 "$T/err")"
	n=$(find "$S" -name '*.csv' ! -name vms.csv | wc -l)
	if [ "$n" -gt 0 ]; then
		grep -q "^  $n other CSV files\? in catalog folders ignored" "$T/out" && ok || bad "$n non-vms CSVs ignored: $(grep ignored "$T/out")"
	fi
	mkdir -p hs/.sky/catalogs && ln -s "$S" hs/.sky/catalogs/v8
	HOME=$T/hs run "$G" plan "$EX"
	! grep -q 'required column missing' "$T/err" && [ "$rc" -ne 2 ] && ok || bad "plan on the shared catalogs as ~/.sky: rc $rc: $(head -3 "$T/err")"
else
	echo "SKIP: ../shared/data/catalogs absent: the real catalogs are not checked"
fi

finish
