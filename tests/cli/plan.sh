#!/bin/sh
# tests/cli/plan.sh - `gpurent plan` on the bundled catalog, fixtures and
# (when present) the real catalogs in ../shared. Prints "plan: N passed, M failed".
NAME=plan
. "$(dirname "$0")/lib/common.sh"

EX=$ROOT/examples/lora-7b.yaml

run "$G" plan "$EX"
[ "$rc" -eq 0 ] && ok || bad "plan example: rc $rc $(head -3 "$T/err")"
for want in '^ 1 ' 'Why' 'Excluded' 'not enough GPU memory' 'user class B' 'Checklist' 'auto-stop' \
	    'checkpoint' 'Order of magnitude' 'offers.csv (gpurent)'; do
	grep -q -- "$want" "$T/out" && ok || bad "plan output lacks '$want'"
done
run "$G" help plan
grep -q 'usage: gpurent plan' "$T/out" && ok || bad "help plan"

# JSON: fits with headroom, cheapest first, spot costs more than the naive price x hours
run "$G" plan "$EX" --json --top 20
if [ "$HAVE_PY" = 1 ]; then
	python3 - "$T/out" <<'PY' && ok || bad "plan --json invariants"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "gpurent.plan/1" and d["ranked"]
r = d["ranked"]
assert all(x["memory_used_fraction"] <= 0.9 + 1e-9 for x in r)
assert [x["total_cost"] for x in r] == sorted(x["total_cost"] for x in r)
for x in r:
    if x["mode"] == "spot":
        assert x["total_cost"] > x["naive_spot_cost"] > 0
assert any(e["reason"].startswith("not enough GPU memory") for e in d["excluded"])
assert d["advice"]["user_class"] == "B"
PY
fi

# constraints
run "$G" plan "$EX" --by time --top 3 --json
if [ "$HAVE_PY" = 1 ]; then
	python3 -c "
import json; r = json.load(open('$T/out'))['ranked']
assert [x['finish_seconds'] for x in r] == sorted(x['finish_seconds'] for x in r)" && ok || bad "--by time order"
fi
run "$G" plan "$EX" --deadline 1h
[ "$rc" -eq 1 ] && grep -q 'No offer fits' "$T/out" && grep -q 'finishes after the deadline' "$T/out" \
	&& ok || bad "an impossible deadline: rc $rc"
run "$G" plan "$EX" --budget 5CNY
grep -q 'costs more than the budget' "$T/out" && ! grep -Eq '^ [0-9]+ .* ([6-9]|[1-9][0-9]+)\.[0-9][0-9] ' "$T/out" \
	&& ok || bad "a tiny budget keeps only the (free) offers under it"
run "$G" plan "$EX" --currency CNY --top 1
grep -q 'money in CNY' "$T/out" && ok || bad "--currency CNY"

# a SkyPilot task YAML: only its accelerators
cat >task.yaml <<'Y'
name: lora
resources:
  accelerators: {A100-80GB: 1, H100: 1}
  use_spot: false
  cpus: 4+
setup: pip install -r requirements.txt
run: python train.py
model: llama-2-7b
task: lora
seq: 2048
tokens: 1e9
Y
run "$G" plan task.yaml --top 10 --json
if [ "$HAVE_PY" = 1 ]; then
	python3 -c "
import json; r = json.load(open('$T/out'))['ranked']
assert r and all(('A100 80GB' in x['gpu'] or 'H100' in x['gpu']) and x['mode'] != 'spot' for x in r), r" \
		&& ok || bad "SkyPilot resources honoured: $(head -c 300 "$T/out")"
fi

# bad input: one line, exit 2
printf 'model: llama-2-7b\ntask: lora\n' >notokens.yaml
run "$G" plan notokens.yaml
[ "$rc" -eq 2 ] && grep -q 'tokens: missing required field' "$T/err" && [ "$(wc -l <"$T/err")" -eq 1 ] \
	&& ok || bad "no tokens: rc $rc $(cat "$T/err")"
run "$G" plan "$EX" --by speed
[ "$rc" -eq 2 ] && grep -q -- "--by: expected one of cost, time" "$T/err" && ok || bad "--by speed"
run "$G" plan "$EX" --catalogue x
[ "$rc" -eq 2 ] && grep -q "did you mean '--catalog'" "$T/err" && ok || bad "unknown option suggestion: $(cat "$T/err")"
printf 'model: llama-2-7b\ntokens: 1e9\nresources:\n  accelerators: A100:many\n' >badsky.yaml
run "$G" plan badsky.yaml
[ "$rc" -eq 2 ] && grep -q 'badsky.yaml:4: resources.accelerators: expected NAME:COUNT' "$T/err" \
	&& ok || bad "bad accelerators: $(cat "$T/err")"
printf 'model: llama-2-7b\ntokens: 1e9\nbudget: lots\n' >badbudget.yaml
run "$G" plan badbudget.yaml
[ "$rc" -eq 2 ] && grep -q 'badbudget.yaml:3: budget: expected an amount' "$T/err" && ok || bad "bad budget"

# the real catalogs: every offer returned fits, cheapest first, spot above naive
REAL=$ROOT/../shared/data/catalogs
if [ -d "$REAL" ] && [ "$HAVE_PY" = 1 ]; then
	run "$G" plan "$EX" --catalog "$REAL" --top 50 --json
	[ "$rc" -eq 0 ] && ok || bad "plan on the real catalogs: rc $rc $(head -2 "$T/err")"
	python3 - "$T/out" <<'PY' && ok || bad "real-catalog plan invariants"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["ranked"]
assert len(r) == 50 and d["feasible"] > 1000
assert all(x["memory_per_gpu_bytes"] <= 0.9 * float(x["memory_per_gpu_bytes"]) / x["memory_used_fraction"] + 1
           for x in r)
assert [x["total_cost"] for x in r] == sorted(x["total_cost"] for x in r)
PY
	# spot: a resumable job on spot offers only
	run "$G" plan "$EX" --catalog "$REAL/runpod" --top 20 --json
	python3 - "$T/out" <<'PY' && ok || bad "spot expected cost above the naive price x hours"
import json, sys
r = json.load(open(sys.argv[1]))["ranked"]
spot = [x for x in r if x["mode"] == "spot"]
assert spot, "no spot offer chosen"
assert all(x["total_cost"] > x["naive_spot_cost"] for x in spot)
PY
else
	echo "SKIP real catalogs: $REAL not found (../shared is absent) or no python3"
fi

finish
