#!/bin/sh
# catalog-update.sh - `gpurent catalog update` against a local catalog
# server on 127.0.0.1 (tests/cli/lib/catserver.py: the hosted layout,
# misbehaving on request), `catalog list`, and the age of prices in plan.
# No request leaves the loopback address.
NAME=catalog-update
. "$(dirname "$0")/lib/common.sh"

if ! need_py "catalog update against a local HTTP server"; then finish; exit $?; fi

# the user's own ~/.sky never reaches the test: a HOME of its own, with a
# SkyPilot catalog folder whose lambda copy the fetched one replaces
export HOME="$T/home"
mkdir -p "$HOME/.sky/catalogs/v8/lambda" "$HOME/.sky/catalogs/v8/cudo"
S=$T/srv
mkdir -p "$S/catalogs/v8/lambda" "$S/catalogs/v8/runpod"
# lambda_cat PRICE [ROWS]: a lambda catalog whose H100 costs PRICE; ROWS
# (default 4) GPU rows
lambda_cat() {
	echo "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice"
	echo "gpu_1x_h100_pcie,H100,1,26.0,200.0,$1,us-east-1,\"{'Gpus': [{'Name': 'H100', 'Manufacturer': 'NVIDIA', 'Count': 1.0, 'MemoryInfo': {'SizeInMiB': 81920}}], 'TotalGpuMemoryInMiB': 81920}\","
	[ "${2:-4}" -ge 2 ] && echo "gpu_1x_a100_sxm4,A100-80GB,1,30.0,200.0,1.29,us-east-1,\"{'Gpus': [{'Name': 'A100-80GB', 'Manufacturer': 'NVIDIA', 'Count': 1.0, 'MemoryInfo': {'SizeInMiB': 81920}}], 'TotalGpuMemoryInMiB': 81920}\","
	[ "${2:-4}" -ge 3 ] && echo "gpu_8x_h100_sxm5,H100,8,208.0,1800.0,23.92,us-east-1,\"{'Gpus': [{'Name': 'H100', 'Manufacturer': 'NVIDIA', 'Count': 8.0, 'MemoryInfo': {'SizeInMiB': 81920}}], 'TotalGpuMemoryInMiB': 655360}\","
	[ "${2:-4}" -ge 4 ] && echo "gpu_1x_a10,A10,1,30.0,200.0,0.75,us-east-1,\"{'Gpus': [{'Name': 'A10', 'Manufacturer': 'NVIDIA', 'Count': 1.0, 'MemoryInfo': {'SizeInMiB': 24576}}], 'TotalGpuMemoryInMiB': 24576}\","
	return 0
}
lambda_cat 2.49 >"$S/catalogs/v8/lambda/vms.csv"
cat >"$S/catalogs/v8/runpod/vms.csv" <<'CSV'
InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Region,SpotPrice,Price,AvailabilityZone
1x_A100-80GB_SECURE,A100-80GB,1,8.0,117.0,A100-80GB,CA,1.19,1.89,CA-MTL-1
1x_L40S_SECURE,L40S,1,16.0,62.0,L40S,US,0.71,0.86,US-TX-3
2x_A100-80GB_SECURE,A100-80GB,2,16.0,234.0,A100-80GB,CA,2.38,3.78,CA-MTL-1
CSV
# vast's search answer: two offers (one with a GPU name fetch_vast.py rewrites)
cat >"$S/bundles.json" <<'JSON'
{"offers": [
 {"id": 1, "num_gpus": 2, "gpu_name": "RTX 4090", "cpu_cores": 32, "cpu_ram": 129024, "gpu_total_ram": 49140,
  "dph_total": 0.81, "search": {"totalHour": 0.8, "gpuCostPerHour": 0.35}, "min_bid": 0.41,
  "geolocation": "Taiwan, TW", "hosting_type": 0, "reliability2": 0.99, "extra": [1, {"a": null}]},
 {"id": 2, "num_gpus": 1, "gpu_name": "H100 SXM", "cpu_cores": 24, "cpu_ram": 258048, "gpu_total_ram": 81559,
  "dph_total": 2.1, "search": {"totalHour": 2.05}, "min_bid": null, "geolocation": "Sweden, SE", "hosting_type": 1},
 {"id": 3, "num_gpus": 0, "gpu_name": "", "dph_total": 0.1}
], "other": "x\u00e9"}
JSON

python3 "$ROOT/tests/cli/lib/catserver.py" "$T/port" "$S" 2>"$T/server.err" &
SRV=$!
trap 'kill "$SRV" 2>/dev/null; chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT
i=0
while [ ! -s "$T/port" ] && [ $i -lt 600 ] && kill -0 "$SRV" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
if [ ! -s "$T/port" ]; then bad "the catalog server did not start: $(cat "$T/server.err")"; finish; exit $?; fi
U=http://127.0.0.1:$(cat "$T/port")
C=$T/.cache/gpurent/catalogs
L=$C/skypilot/lambda/vms.csv
R=$C/skypilot/runpod/vms.csv
UP="$G catalog update --retries 0 --url $U --provider lambda,runpod"
mode() { printf '%s\n' "$@" >"$S/.modes"; }
# lprice: lambda's 1x H100 price as offers reads it (the default catalogs)
# (the bundled catalog's Lambda rows are gpu_1x_h100_sxm, not _pcie)
lprice() { "$G" offers 'provider=lambda gpu=H100 gpus=1' --csv 2>/dev/null | awk -F, '$2 == "gpu_1x_h100_pcie" {print $7; exit}'; }
requests() { [ -f "$S/.log" ] && wc -l <"$S/.log" | tr -d ' ' || echo 0; }

# ---- nothing fetched yet: offers and plan read the bundled catalog and ~/.sky
lambda_cat 1.11 >"$HOME/.sky/catalogs/v8/lambda/vms.csv"
sed 's/^gpu_1x_h100_pcie/cudo_h100/' "$HOME/.sky/catalogs/v8/lambda/vms.csv" >"$HOME/.sky/catalogs/v8/cudo/vms.csv"
expect_ok list-none "No fetched catalogs" "$G" catalog list
grep -q "^$HOME/.sky/catalogs/v8/lambda/vms.csv: 4 rows, 4 offers; SkyPilot's own copy, dated by the file's time" "$T/out" && ok ||
	bad "list: ~/.sky's lambda: $(cat "$T/out")"
[ "$(lprice)" = "1.1100" ] && ok || bad "~/.sky's lambda H100 before any update: $(lprice)"

# ---- stored, read by default, listed with its source and age
expect_ok update-stores "skypilot/lambda: 4 rows stored from $U/catalogs/v8/lambda/vms.csv" $UP
grep -q "skypilot/runpod: 3 rows stored" "$T/out" && ok || bad "runpod not stored: $(cat "$T/out")"
grep -q "2 stored, 0 unchanged, 0 failed" "$T/out" && ok || bad "the summary: $(tail -1 "$T/out")"
cmp -s "$L" "$S/catalogs/v8/lambda/vms.csv" && ok || bad "the stored lambda catalog is not the served one"
grep -q "^url $U/catalogs/v8/lambda/vms.csv$" "$L.meta" && grep -q '^etag "' "$L.meta" &&
	grep -q '^last_modified ' "$L.meta" && grep -q '^rows 4$' "$L.meta" && ok || bad "the record: $(cat "$L.meta")"
[ "$(lprice)" = "2.4900" ] && ok || bad "offers does not show the fetched price: '$(lprice)'"
# the fetched lambda replaces ~/.sky's (never both); ~/.sky's cudo stays
run "$G" offers 'provider=lambda gpu=H100 gpus=1' --csv
[ "$(grep -c '^lambda,gpu_1x_h100_pcie,' "$T/out")" = 1 ] && ok || bad "lambda read twice: $(cat "$T/out")"
run "$G" offers 'provider=cudo' --csv
grep -q '^cudo,cudo_h100,' "$T/out" && ok || bad "~/.sky's cudo was lost: $(cat "$T/out")"
expect_ok list-fetched "skypilot/lambda/vms.csv: 4 rows, 4 offers; fetched from $U/catalogs/v8/lambda/vms.csv; prices of [0-9-]+, 0 days old" "$G" catalog list
grep -q "^1 provider of $HOME/.sky/catalogs/v8 left out: its fetched copy is read instead$" "$T/out" && ! grep -q "^$HOME/.sky/catalogs/v8/lambda" "$T/out" && ok ||
	bad "list: the shadowed ~/.sky provider: $(cat "$T/out")"
grep -q "offers.csv: 47 rows.*bundled with gpurent, each row dated; prices of 2025-03-01 to 2026-11-09" "$T/out" && ok ||
	bad "list lacks the bundled catalog's dates: $(head -1 "$T/out")"
run "$G" catalog list --json
python3 - "$T/out" "$U" <<'PY' && ok || bad "catalog list --json"
import json, sys
d = json.load(open(sys.argv[1]))
c = {x["path"].split("/catalogs/")[-1]: x for x in d["catalogs"]}
assert d["schema"] == "gpurent.catalogs/1", d
l = c["skypilot/lambda/vms.csv"]
assert l["origin"] == "fetched" and l["rows"] == 4 and l["source_url"] == sys.argv[2] + "/catalogs/v8/lambda/vms.csv", l
assert l["oldest_price_age_days"] == 0, l
b = [x for x in d["catalogs"] if x["origin"] == "bundled"][0]
assert b["oldest_price_date"] == "2025-03-01" and b["newest_price_date"] == "2026-11-09" and b["source_url"] is None, b
PY

# ---- conditional requests: 304 keeps the copy; a changed file is seen
cp "$L" "$T/lambda.v1"
expect_ok not-changed "skypilot/lambda: not changed \(HTTP 304\)" $UP
tail -2 "$S/.log" | grep -q 'GET /catalogs/v8/lambda/vms.csv inm="' && ok || bad "no If-None-Match sent: $(tail -2 "$S/.log")"
cmp -s "$L" "$T/lambda.v1" && ok || bad "a 304 changed the stored copy"
lambda_cat 2.99 >"$S/catalogs/v8/lambda/vms.csv"
expect_ok changed "skypilot/lambda: 4 rows stored" $UP
[ "$(lprice)" = "2.9900" ] && ok || bad "the changed price is not read: '$(lprice)'"
cp "$L" "$T/lambda.v2"; cp "$R" "$T/runpod.v2"

# fail_case NAME PATTERN: the update exits 1, says PATTERN on stderr, and
# the previous copies (and the price offers reads) are what they were
fail_case() {
	run $UP "$@"
	[ "$rc" = 1 ] && ok || bad "$fname: exit $rc: $(cat "$T/err")"
	grep -Fq -- "$fpat" "$T/err" && ok || bad "$fname: stderr lacks '$fpat': $(cat "$T/err")"
	grep -q "the stored copy is kept" "$T/err" && ok || bad "$fname: not said that the copy is kept: $(cat "$T/err")"
	cmp -s "$L" "$T/lambda.v2" && cmp -s "$R" "$T/runpod.v2" && ok || bad "$fname: a previous copy was replaced"
	[ "$(lprice)" = "2.9900" ] && ok || bad "$fname: offers reads '$(lprice)'"
	left=$(ls -A "$C/skypilot/lambda" | grep -v '^vms\.csv\(\.meta\)\?$')
	[ -z "$left" ] && ok || bad "$fname: left in the cache: $left"
}
lambda_cat 9.99 >"$S/catalogs/v8/lambda/vms.csv"
mode "/catalogs/v8/runpod/vms.csv 404"
fname=404-one fpat="skypilot/runpod: HTTP 404 from $U/catalogs/v8/runpod/vms.csv" ; run $UP
[ "$rc" = 1 ] && grep -Fq "$fpat" "$T/err" && grep -q "skypilot/lambda: 4 rows stored" "$T/out" && ok ||
	bad "404 for one provider: exit $rc, $(cat "$T/err") / $(cat "$T/out")"
[ "$(lprice)" = "9.9900" ] && cmp -s "$R" "$T/runpod.v2" && ok || bad "404: lambda not stored or runpod lost"
# a provider never stored leaves no folder behind
run $UP --provider vast
[ "$rc" = 1 ] && grep -q "skypilot/vast: HTTP 404 .*; nothing stored" "$T/err" && [ ! -e "$C/skypilot/vast" ] && ok ||
	bad "404 with no copy: exit $rc, $(cat "$T/err"), $(ls "$C/skypilot")"
lambda_cat 2.99 >"$S/catalogs/v8/lambda/vms.csv"
mode; run $UP; cp "$L" "$T/lambda.v2"
lambda_cat 7.77 >"$S/catalogs/v8/lambda/vms.csv"
mode "/catalogs/v8/lambda/vms.csv 500"
fname=500 fpat="skypilot/lambda: HTTP 500 from $U/catalogs/v8/lambda/vms.csv"; fail_case
lreq() { grep -c "GET /catalogs/v8/lambda/" "$S/.log"; }
n1=$(lreq)
run $UP --retries 1
[ $(( $(lreq) - n1 )) = 2 ] && ok || bad "--retries 1 after a 500: $(( $(lreq) - n1 )) requests, expected 2"
mode "/catalogs/v8/lambda/vms.csv cut"
fname=cut fpat="the answer was cut off"; fail_case
mode "/catalogs/v8/lambda/vms.csv html"
fname=html fpat="not a catalog gpurent reads"; fail_case
mode "/catalogs/v8/lambda/vms.csv slow"
fname=slow fpat="no complete answer within the time-out"; fail_case --timeout 1s
mode
lambda_cat 7.77 1 >"$S/catalogs/v8/lambda/vms.csv"
fname=factor fpat="1 rows where the stored copy has 4 (more than a factor of 2 apart; --force stores it)"; fail_case
{ lambda_cat 7.77; echo "gpu_1x_h200,H200,1,30.0,200.0,cheap,us-east-1,,"; } >"$S/catalogs/v8/lambda/vms.csv"
fname=bad-row fpat="1 bad row, the first:"; fail_case
printf 'InstanceType,AcceleratorName,AcceleratorCount,Price\n' >"$S/catalogs/v8/lambda/vms.csv"
fname=no-rows fpat="no rows"; fail_case
lambda_cat 7.77 1 >"$S/catalogs/v8/lambda/vms.csv"
expect_ok force "skypilot/lambda: 1 row stored" $UP --force
[ "$(lprice)" = "7.7700" ] && ok || bad "--force: '$(lprice)'"

# ---- a redirect is followed (http only), the file stored from where it led
lambda_cat 3.49 >"$S/catalogs/v8/lambda/vms.csv"
mode "/catalogs/v8/lambda/vms.csv redirect"
expect_ok redirect "skypilot/lambda: 4 rows stored" $UP --force
grep -q "GET /moved/catalogs/v8/lambda/vms.csv" "$S/.log" && ok || bad "the redirect was not followed"
[ "$(lprice)" = "3.4900" ] && ok || bad "redirect: '$(lprice)'"
mode

# ---- one update at a time; readers during an update see the old copy
lambda_cat 4.44 >"$S/catalogs/v8/lambda/vms.csv"
mode "/catalogs/v8/lambda/vms.csv hold"
n1=$(requests)
$UP >"$T/a.out" 2>"$T/a.err" &
A=$!
i=0
while [ "$(requests)" = "$n1" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
expect_err second-update 1 "another \`gpurent catalog update\` is running" $UP
[ "$(lprice)" = "3.4900" ] && ok || bad "a reader during the update: '$(lprice)'"
expect_ok list-during "skypilot/lambda/vms.csv: 4 rows" "$G" catalog list
touch "$S/.release"
wait "$A"; ra=$?
[ "$ra" = 0 ] && grep -q "skypilot/lambda: 4 rows stored" "$T/a.out" && ok || bad "the held update: exit $ra, $(cat "$T/a.err")"
[ "$(lprice)" = "4.4400" ] && ok || bad "after the held update: '$(lprice)'"
rm -f "$S/.release"; mode

# ---- vast's search, written as SkyPilot's vast fetcher would; a key from the environment only
run env GPURENT_VAST_API_KEY=sekrit-key-42 "$G" catalog update vast --url "$U" --retries 0
[ "$rc" = 0 ] && grep -q "vast/vast: 2 rows stored from $U/api/v0/bundles/" "$T/out" && ok || bad "vast: exit $rc, $(cat "$T/err")"
tail -1 "$S/.log" | grep -q "^POST /api/v0/bundles/ inm=- auth=yes" && ok || bad "vast: no POST with a key: $(tail -1 "$S/.log")"
python3 -c 'import json,sys; q=json.load(open(sys.argv[1])); assert q["verified"]=={"eq":True} and q["rented"]=={"eq":False} and q["type"]=="on-demand"' "$S/.posted" && ok || bad "vast: the query posted: $(cat "$S/.posted")"
grep -rq "sekrit-key-42" "$T/out" "$T/err" "$T/.cache" && bad "vast: the key was written out" || ok
V=$C/vast/vast/vms.csv
head -1 "$V" | grep -qx "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,HostingType" && ok || bad "vast header: $(head -1 "$V")"
grep -q '^2x-RTX_4090-32-129024,RTX4090,2,32,126.000,"{.Gpus.: \[{.Name.: .RTX4090., .Count.: 2, .MemoryInfo.: {.SizeInMiB.: 49140}}\], .TotalGpuMemoryInMiB.: 49140}",0.8000,0.4100,"Taiwan, TW",0$' "$V" && ok || bad "vast row 1: $(sed -n 2p "$V")"
grep -q '^1x-H100_SXM-24-258048,H100,1,24,252.000,.*,2.0500,,"Sweden, SE",1$' "$V" && ok || bad "vast row 2: $(sed -n 3p "$V")"
run "$G" offers 'provider=vast gpu=RTX_4090' --csv
grep -q '^vast,2x-RTX_4090-32-129024,"Taiwan, TW",RTX4090,2,24.0,0.4000,0.2050,32,126,marketplace,' "$T/out" && ok || bad "vast offer: $(cat "$T/out")"
echo '{"offers": [{"num_gpus": 1,}]}' >"$S/bundles.json"
run "$G" catalog update vast --url "$U" --retries 0
[ "$rc" = 1 ] && grep -q "not vast's search answer: vast's answer: byte 28: expected a string; the stored copy is kept" "$T/err" && ok || bad "vast bad JSON: exit $rc, $(cat "$T/err")"

# ---- the age of the prices in plan, and the warning past --stale-days
# the fetched lambda catalog named: its record still dates it
P="--model llama-2-7b --task lora --tokens 1e9 --catalog $C/skypilot/lambda"
now=$(date +%s)
run env GPURENT_NOW=$((now + 40 * 86400)) "$G" plan $P
grep -q "^prices: the oldest ranked is 40 days old ([0-9-]*, $L line [0-9]*); older than 30 days: \`gpurent catalog update\` fetches current catalogs$" "$T/out" && ok ||
	bad "plan's age line: $(sed -n 3p "$T/out")"
grep -q "warning: the prices ranked are up to 40 days old .* older than 30 days: \`gpurent catalog update\`" "$T/err" && ok || bad "no stale warning: $(cat "$T/err")"
run env GPURENT_NOW=$((now + 40 * 86400)) "$G" plan $P --stale-days 60
grep -q "^prices: the oldest ranked is 40 days old ([0-9-]*, $L line [0-9]*)$" "$T/out" && [ ! -s "$T/err" ] && ok || bad "--stale-days 60: $(cat "$T/err")"
run env GPURENT_NOW=$((now + 12 * 86400)) GPURENT_STALE_DAYS=10 "$G" plan $P
grep -q "up to 12 days old .* older than 10 days" "$T/err" && ok || bad "GPURENT_STALE_DAYS=10: $(cat "$T/err")"
run env GPURENT_NOW=$((now + 40 * 86400)) "$G" plan $P --json
python3 - "$T/out" <<'PY' && ok || bad "plan --json ages"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["prices_oldest_age_days"] == 40 and d["prices_stale"] is True and d["stale_days"] == 30, d
assert d["ranked"] and all(c["price_age_days"] == 40 and c["price_date"] == d["prices_oldest_date"] for c in d["ranked"]), d["ranked"]
PY
# a service plan names its prices' age too
run env GPURENT_NOW=2026-12-01 "$G" plan "$ROOT/examples/serve-8b.yaml" --catalog "$ROOT/data/offers.csv"
grep -q "^prices: the oldest ranked is [0-9]* days old (20[0-9-]*, .*offers.csv line [0-9]*); older than 30 days" "$T/out" && ok ||
	bad "service plan: no age line: $(sed -n 1,5p "$T/out")"
grep -q "warning: the prices ranked are up to" "$T/err" && ok || bad "service plan: no warning: $(cat "$T/err")"
run env GPURENT_NOW=2026-12-01 "$G" plan "$ROOT/examples/serve-8b.yaml" --catalog "$ROOT/data/offers.csv" --json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["prices_oldest_age_days"] == max(c["price_age_days"] for c in d["ranked"]) and d["prices_stale"], d' "$T/out" && ok || bad "service plan --json ages"
# bundled rows count by their own dates
run env GPURENT_NOW=2026-12-01 "$G" plan --model llama-2-7b --task lora --tokens 1e9 --catalog "$ROOT/data/offers.csv" --json
python3 - "$T/out" "$ROOT/data/offers.csv" <<'PY' && ok || bad "plan --json: bundled rows by their own dates"
import csv, datetime, json, sys
d = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(l for l in open(sys.argv[2]) if not l.startswith("#")))
dates = {(r["provider"], r["instance"]): r["date"] for r in rows}
now = datetime.date(2026, 12, 1)
ages = []
for c in d["ranked"]:
    want = dates[(c["provider"], c["instance"])]
    want = want if len(want) == 10 else want + "-01"
    assert c["price_date"] == want, (c["provider"], c["instance"], c["price_date"], want)
    age = (now - datetime.date.fromisoformat(want)).days
    assert c["price_age_days"] == age, (c, age)
    ages.append(age)
assert d["prices_oldest_age_days"] == max(ages), (d["prices_oldest_age_days"], ages)
PY

# ---- offline first: nothing but update talks to the server
n1=$(requests)
"$G" offers >/dev/null 2>&1; "$G" plan $P >/dev/null 2>&1; "$G" catalog list >/dev/null 2>&1
[ "$(requests)" = "$n1" ] && ok || bad "a command other than update made a request"

# ---- a progress line only where asked (stderr here is no terminal)
run env GPURENT_PROGRESS_AFTER=0 $UP
grep -q "catalog update:" "$T/err" && bad "a progress line in a pipe: $(cat "$T/err")" || ok
run env GPURENT_PROGRESS_AFTER=0 $UP --progress
grep -q "catalog update: .*2 / 2 catalogs" "$T/err" && ok || bad "--progress: $(cat "$T/err")"

# ---- the real catalogs (../shared/data/catalogs, SkyPilot's own files) served and stored whole
if need_shared data/catalogs "catalog update of the real lambda, runpod and vast catalogs"; then
	for p in lambda runpod vast; do
		mkdir -p "$S/catalogs/v8/$p"
		cp "$ROOT/../shared/data/catalogs/$p/vms.csv" "$S/catalogs/v8/$p/vms.csv"
	done
	run $UP --provider vast --force
	for pr in "lambda 323" "runpod 2750" "vast 61"; do
		set -- $pr
		grep -q "^skypilot/$1: $2 rows stored" "$T/out" && cmp -s "$C/skypilot/$1/vms.csv" "$ROOT/../shared/data/catalogs/$1/vms.csv" &&
			ok || bad "real $1: $(grep "$1" "$T/out" "$T/err")"
		a=$("$G" offers "provider=$1" --limit 0 --csv 2>/dev/null | wc -l)
		b=$("$G" offers "provider=$1" --limit 0 --csv --catalog "$ROOT/../shared/data/catalogs/$1/vms.csv" 2>/dev/null | wc -l)
		c=$("$G" offers "provider=$1" --limit 0 --csv --catalog "$ROOT/data/offers.csv" 2>/dev/null | wc -l)
		d=$("$G" offers "provider=$1" --limit 0 --csv --catalog "$C/vast" 2>/dev/null | wc -l)
		# the default read: the bundled rows of that provider, the fetched
		# SkyPilot file and the vast search stored above (one header each)
		[ "$a" = $((b + c + d - 2)) ] && [ "$b" -gt 1 ] && ok ||
			bad "real $1: offers read $a lines by default, $b from the file, $c from data/offers.csv, $d from vast's"
	done
fi

# ---- bad usage
expect_err bad-source 2 "nosuch: expected a source: skypilot or vast" "$G" catalog update nosuch
expect_err bad-provider 2 "--provider: nosuch: expected one of SkyPilot's hosted catalogs" "$G" catalog update --provider nosuch
expect_err bad-url 2 "--url: expected http://HOST[:PORT][/PATH]" "$G" catalog update --url ftp://127.0.0.1/
expect_err bad-stale 2 "GPURENT_STALE_DAYS: expected a whole number of days, 1 to 36500, got 'soon'" env GPURENT_STALE_DAYS=soon "$G" plan $P
finish
