#!/bin/sh
# tests/cli/bill-corpus.sh - `gpurent bill import` on real exports (issue 28
# item 8): every file of the 13 shared exports (tests/data/bills-corpus/shared/
# when the lead has copied them there, else ../shared/data/bills/) and of
# ../shared/data/bills-corpus/ is imported into a ledger of its own and its
# line count and total per currency must equal the file's own cost column
# summed independently (tests/data/corpus-sources/bills-*expected.csv, by
# bills-expect.py), or it is refused in one line (exit 2) with the reason
# tests/data/corpus-sources/bills-refused.txt lists for it. A file with no
# currency column is imported with --currency USD and must say so. The last
# line counts the files imported, refused and wrong.
export LC_ALL=C TZ=UTC
NAME=bill-corpus
. "$(dirname "$0")/lib/common.sh"
S=$ROOT/tests/data/corpus-sources
imported=0 refused=0 wrong=0

# check DIR EXPECTED: every .csv of DIR against EXPECTED and bills-refused.txt
check() {
	dir=$1 exp=$2
	for f in "$dir"/*.csv; do
		[ -e "$f" ] || continue
		b=$(basename "$f")
		[ "$b" = expected.csv ] && continue
		L=$T/$b.db
		reason=$(grep -F "$b|" "$S/bills-refused.txt" | head -1 | cut -d'|' -f2)
		nocur=$(python3 - "$exp" "$b" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")) if r["file"] == sys.argv[2]]
print("none" if not rows else ("yes" if any(r["currency_column"] == "" and int(r["data_rows"]) > 0 for r in rows) else "no"))
PY
)
		if [ "$nocur" = none ] && [ -z "$reason" ]; then
			wrong=$((wrong + 1)); bad "$b: neither in $(basename "$exp") nor in bills-refused.txt"; continue
		fi
		if [ "$nocur" = yes ]; then run "$G" bill --ledger "$L" import --currency USD "$f"
		else run "$G" bill --ledger "$L" import "$f"; fi
		if [ -n "$reason" ]; then
			if [ "$rc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -Fq -- "$reason" "$T/err"; then
				refused=$((refused + 1)); ok
			else
				wrong=$((wrong + 1)); bad "$b: expected a refusal '$reason', got exit $rc: $(head -2 "$T/err") $(head -2 "$T/out")"
			fi
			continue
		fi
		if [ "$rc" -ne 0 ]; then
			wrong=$((wrong + 1)); bad "$b: refused (exit $rc): $(head -2 "$T/err")"; continue
		fi
		if [ "$nocur" = yes ] && ! grep -q "USD from --currency" "$T/out"; then
			wrong=$((wrong + 1)); bad "$b: imported with --currency without saying so: $(cat "$T/out")"; continue
		fi
		"$G" bill --ledger "$L" list --json >"$T/list.json" 2>"$T/err" || { wrong=$((wrong + 1)); bad "$b: bill list: $(cat "$T/err")"; continue; }
		if msg=$(python3 - "$exp" "$b" "$T/list.json" <<'PY'
import csv, json, sys
from decimal import Decimal
exp = {}
for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")):
    if r["file"] == sys.argv[2] and int(r["data_rows"]):
        exp[r["currency"] or "USD"] = (int(r["data_rows"]), Decimal(r["total"]))
got = {}
for it in json.load(open(sys.argv[3]))["items"]:
    n, t = got.get(it["currency"], (0, Decimal(0)))
    got[it["currency"]] = (n + 1, t + Decimal(repr(it["amount"])))
bad = []
for c in sorted(set(exp) | set(got)):
    (en, et), (gn, gt) = exp.get(c, (0, Decimal(0))), got.get(c, (0, Decimal(0)))
    # doubles summed: equal to 1e-9 of the total (and 1e-12 absolute)
    if en != gn or abs(et - gt) > max(Decimal("1e-12"), abs(et) * Decimal("1e-9")):
        bad.append(f"{c}: {gn} lines, {gt} (expected {en} lines, {et})")
print("; ".join(bad))
sys.exit(1 if bad else 0)
PY
); then
			imported=$((imported + 1)); ok
		else
			wrong=$((wrong + 1)); bad "$b: $msg"
		fi
	done
}

if need_py "the corpus sums"; then
	if [ -d "$ROOT/tests/data/bills-corpus/shared" ]; then
		check "$ROOT/tests/data/bills-corpus/shared" "$S/bills-shared-expected.csv"
	elif need_shared data/bills "the 13 shared exports"; then
		check "$ROOT/../shared/data/bills" "$S/bills-shared-expected.csv"
	fi
	if need_shared data/bills-corpus "the collected exports (tests/data/corpus-sources/bills-SOURCES.md says how to take them again)"; then
		check "$ROOT/../shared/data/bills-corpus" "$S/bills-expected.csv"
	fi
fi
# the files counted: a run that found none of them must not pass silently
[ "$skipped" -gt 0 ] || [ $((imported + refused + wrong)) -ge 40 ] && ok || bad "only $((imported + refused + wrong)) exports checked, expected at least 40"
if [ "$skipped" -gt 0 ]; then echo "$NAME: $pass passed, $fail failed, $skipped skipped; imported $imported, refused $refused, wrong $wrong"
else echo "$NAME: $pass passed, $fail failed; imported $imported, refused $refused, wrong $wrong"; fi
[ "$fail" -eq 0 ]
