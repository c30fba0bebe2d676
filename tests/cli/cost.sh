#!/bin/sh
# tests/cli/cost.sh - `gpurent cost` and `gpurent ckpt interval` on the real
# binary ($GPURENT) in a fresh temp dir: the seed articles' cost examples,
# the break-even points, the checkpoint interval, currencies, JSON, the
# one-line errors and the docs. Prints "cost: N passed, M failed".
NAME=cost
. "$(dirname "$0")/lib/common.sh"

# --- help: the listing, and `help X` == `X --help`
expect_ok help-lists 'ckpt .*cost ' sh -c "\"$G\" help | tr '\n' ' '"
for c in cost ckpt; do
	run "$G" help $c; cp "$T/out" "$T/h1"
	run "$G" $c --help; cp "$T/out" "$T/h2"
	if cmp -s "$T/h1" "$T/h2" && [ -s "$T/h1" ]; then ok; else bad "help $c != $c --help"; fi
done
run "$G" ckpt interval --help
cmp -s "$T/out" "$T/h2" && ok || bad "ckpt interval --help differs from ckpt --help"

# the seeds' examples, the parts of the total, spot, currencies, ckpt
# interval and the one-line errors: tests/cli/cases/cost.test
H="$G cost --price 1.2 --billing hourly --sessions 10x20m"
C="$G ckpt interval --write 90s --mtbf 6h --restart 5m --work 24h --price 2.1"

# --- JSON
if need_py "cost --json and ckpt interval --json"; then
	run $H --json
	python3 - "$T/out" <<'PY' && ok || bad "cost --json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "gpurent.cost/1"
m = {x["mode"]: x for x in d["modes"]}
assert len(m) == 8 and not m["spot"]["offered"]
assert abs(m["on-demand"]["ratio_to_per_second"] - 3) < 1e-9
assert abs(m["on-demand"]["total"] - 12) < 1e-9
assert d["cheapest"] == "on-demand"
PY
	run $C --json
	python3 - "$T/out" <<'PY' && ok || bad "ckpt interval --json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "gpurent.ckpt-interval/1"
assert abs(d["daly_interval_seconds"] - 1912.2576) < 0.01
assert abs(d["young_interval_seconds"] - 1971.8012) < 0.01
assert d["wall_seconds"] > d["work_seconds"]
assert abs(d["cost"] - 2.1 * d["wall_seconds"] / 3600) < 1e-9
PY
fi

# --- bad input: one line naming the flag or file:line: column, exit 2
# a bad row in an edited billing.csv is named by file, line and column
mkdir -p data-bad
cp "$ROOT"/data/*.csv data-bad/
awk -F, '/^aws,/{$4="1 fortnight"}1' OFS=, "$ROOT"/data/billing.csv >data-bad/billing.csv
line=$(grep -n '^aws,' data-bad/billing.csv | cut -d: -f1)
expect_err bad-billing-csv 2 "data-bad/billing.csv:$line: granularity: expected a duration" \
	"$G" --data-dir data-bad cost --price 1 --sessions 1h

# --- documentation stays true to the code
for c in cost ckpt; do
	grep -q "gpurent $c" "$ROOT/README.md" && grep -Fq "$c" "$ROOT/docs/gpurent.1" \
		&& ok || bad "command $c missing from README.md or docs/gpurent.1"
done
"$G" cost --help | sed -n 's/^  \(--[a-z0-9-]*\).*/\1/p' >flags
"$G" ckpt --help | sed -n 's/^  \(--[a-z0-9-]*\).*/\1/p' >>flags
[ "$(wc -l <flags)" -gt 20 ] && ok || bad "too few flags in the help texts"
while read -r fl; do
	grep -Fq -- "$fl" "$ROOT/docs/gpurent.1" \
		&& ok || bad "docs/gpurent.1 does not document $fl"
done <flags
for p in $(sed -n 's/^\([a-z][a-z0-9-]*\),.*/\1/p' "$ROOT/data/billing.csv" | grep -v '^name$'); do
	grep -Fq "\`$p\`" "$ROOT/docs/billing.md" && ok || bad "docs/billing.md does not describe profile $p"
done

# a spot session that restarts without end (30 days against a 12 h MTBF, no
# checkpoints) is not viable, never 1e27 hours; no "-0.00" anywhere
run "$G" cost --price 4.98CNY --billing gongji --sessions 1x30d
[ "$rc" -eq 0 ] && grep -q '^spot .*not viable: over 1000000 interruptions expected' "$T/out" &&
	! grep -Eq '[0-9]{13,}|-0\.00|inf|nan' "$T/out" && ok || bad "unbounded spot: $(cat "$T/out" "$T/err")"
run "$G" cost --price 4.98CNY --billing gongji --sessions 1x30d --json
[ "$rc" -eq 0 ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "\"viable\": false" in json.dumps(d)' "$T/out" 2>/dev/null &&
	ok || bad "unbounded spot in JSON: $(head -c 300 "$T/out")"

# --- bounds (docs/billing.md and docs/checkpoints.md "Bounds"): on the issue's
# inputs and at the option bounds, no printed number beyond the bound (a
# figure of 16+ digits before the point: 1e15), none inf, nan or -0.00
unbounded() { grep -Eq '[0-9]{16,}|-0\.00|inf|nan' "$1"; }
for args in "--price 4.98CNY --billing gongji --sessions 1x30d" \
	"--price 4.98CNY --billing gongji --hours-per-week 168 --weeks 4.3" \
	"--price 1 --billing hourly --sessions 1x0.001s" \
	"--price 0.000000001 --billing aws --sessions 1x0.001s" \
	"--price 1000 --billing aws --hours-per-week 168 --weeks 5000" \
	"--price 1000000 --billing hyperscaler --sessions 3x36500d --data 1000000000GB"; do
	run "$G" cost $args
	if [ "$rc" -eq 0 ] && ! unbounded "$T/out"; then ok
	elif [ "$rc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'expected at most 100 years\|would exceed 1e+15' "$T/err"; then ok
	else bad "cost $args: rc $rc $(head -c 400 "$T/out" "$T/err")"; fi
done
for args in "--write 59m --mtbf 1h --work 24h --price 2" "--write 10h --mtbf 1h --work 24h" \
	"--write 0.000001s --mtbf 0.00001s --work 36500d --price 100" "--write 0.000001s --mtbf 36500d --work 36500d --price 1000" \
	"--write 1s --mtbf 1h --interval 36500d --work 1h" "--write 0.000001s --mtbf 36500d --work 0.000001s --price 1e12" \
	"--write 59m --mtbf 1h --work 24h --json"; do
	run "$G" ckpt interval $args
	if { [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; } && ! unbounded "$T/out" && ! unbounded "$T/err"; then ok
	else bad "ckpt interval $args: rc $rc $(head -c 400 "$T/out" "$T/err")"; fi
	case $args in *--json*) python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert all(v is None or isinstance(v,(bool,str)) or abs(v) < 1e15 for v in d.values())' "$T/out" && ok || bad "ckpt --json bounds";; esac
done
# an overhead past 1000% is 'cannot make useful progress', exit 1, one line
run "$G" ckpt interval --write 1s --mtbf 1h --interval 36500d --work 1h
[ "$rc" -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'cannot make useful progress: the expected overhead at the interval you gave exceeds 1000%' "$T/err" &&
	[ ! -s "$T/out" ] && ok || bad "overhead bound: rc $rc $(cat "$T/out" "$T/err")"

# --- RMB, ¥, ￥ and 元 are CNY everywhere (issue 10 item 2): the same bill, labelled CNY
run "$G" cost --price 4.98 --billing gongji --sessions 2x8h --currency CNY; cp "$T/out" "$T/cny"
for c in RMB rmb '¥' '￥' '元'; do
	run "$G" cost --price 4.98 --billing gongji --sessions 2x8h --currency "$c"
	[ "$rc" -eq 0 ] && cmp -s "$T/out" "$T/cny" && ok || bad "--currency $c differs from --currency CNY"
done
for p in '4.98 RMB' '4.98rmb' '¥4.98' '4.98¥' '￥4.98' '4.98元' '4.98CNY'; do
	run "$G" cost --price "$p" --billing gongji --sessions 2x8h
	[ "$rc" -eq 0 ] && cmp -s "$T/out" "$T/cny" && ok || bad "--price '$p' differs from 4.98 CNY: $(grep 'All money' "$T/out") $(cat "$T/err")"
done
run "$G" cost --price 1 --billing gongji --sessions 2x8h --rate RMB=7.1 --currency CNY; cp "$T/out" "$T/r1"
run "$G" cost --price 1 --billing gongji --sessions 2x8h --rate CNY=7.1 --currency rmb
[ "$rc" -eq 0 ] && cmp -s "$T/out" "$T/r1" && ok || bad "--rate RMB= differs from --rate CNY="

# --- --list-billing (and --billing list): every profile of data/billing.csv
B="$ROOT/data/billing.csv"
nprof=$(python3 -c 'import csv,sys; print(sum(1 for r in csv.DictReader(l for l in open(sys.argv[1], encoding="utf-8") if not l.startswith("#"))))' "$B")
run "$G" cost --list-billing
[ "$rc" -eq 0 ] && [ "$(grep -c '^    source: ' "$T/out")" -eq "$nprof" ] && grep -q "^$nprof billing profiles" "$T/out" &&
	ok || bad "--list-billing: $nprof profiles in billing.csv, listing: $(head -3 "$T/out") $(cat "$T/err")"
cp "$T/out" "$T/list"
# a known row: autodl bills per second in CNY with a 33% monthly package
grep -Eq '^autodl +ai-cloud +CNY +1\.00 s .* 33% ' "$T/list" && ok || bad "--list-billing autodl row: $(grep '^autodl' "$T/list")"
! grep -Eq -- '-0\.00|inf|nan' "$T/list" && ok || bad "--list-billing prints inf/nan/-0"
run "$G" cost --billing list
[ "$rc" -eq 0 ] && cmp -s "$T/out" "$T/list" && ok || bad "--billing list != --list-billing"
run "$G" cost --list-billing --json
[ "$rc" -eq 0 ] && python3 - "$T/out" "$B" "$nprof" <<'PY' && ok || bad "--list-billing --json"
import csv, json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "gpurent.billing/1"
rows = list(csv.DictReader(l for l in open(sys.argv[2], encoding="utf-8") if not l.startswith("#")))
assert len(d["profiles"]) == int(sys.argv[3]) == len(rows)
by = {p["name"]: p for p in d["profiles"]}
for r in rows:
    p = by[r["name"]]
    assert p["supply"] == r["supply"] and p["currency"] == r["currency"] and p["source"] == r["source"], r["name"]
a = by["autodl"]
assert abs(a["monthly_discount_fraction"] - 0.33) < 1e-9 and a["granularity_seconds"] == 1
assert by["lambda"]["spot_discount_fraction"] is None and by["lambda"]["spot_mtbf_seconds"] is None
PY

finish
