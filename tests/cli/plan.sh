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
if need_py "plan --json invariants"; then
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
if need_py "--by time order"; then
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
if need_py "SkyPilot resources honoured"; then
	python3 -c "
import json; r = json.load(open('$T/out'))['ranked']
assert r and all(('A100 80GB' in x['gpu'] or 'H100' in x['gpu']) and x['mode'] != 'spot' for x in r), r" \
		&& ok || bad "SkyPilot resources honoured: $(head -c 300 "$T/out")"
fi

# issue 10: a plan a user can act on (tests/data/plan-access.csv)
CAT=$ROOT/tests/data/plan-access.csv
printf 'model: llama-2-7b\ntask: lora\nseq: 2048\ntokens: 5e8\nresumable: true\n' >acc.yaml
run "$G" plan acc.yaml --catalog "$CAT" --top 10 --json
if need_py "access: a membership offer"; then
	python3 - "$T/out" <<'PY' && ok || bad "access: a membership offer is not ranked without --access"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["ranked"] and all(x["provider"] != "TestUni" for x in d["ranked"]), d["ranked"]
ex = {e["code"]: e for e in d["excluded"]}
assert ex["access"]["count"] == 1 and ex["access"]["memberships"] == "TEST-HPC"
assert "--access TEST-HPC" in ex["access"]["example"]
assert d["advice"]["supply"]["campus-hpc"]["need_access_count"] == 1
assert not d["advice"]["supply"]["campus-hpc"]["fits"]
# suspect: spot above on-demand is not ranked on either price
assert all(x["provider"] != "SusCloud" for x in d["ranked"])
assert ex["suspect_price"]["count"] == 1
# the budget stop without a budget: 1.2x the expected cost, stated
stop = [c for c in d["advice"]["checklist"] if c.startswith("auto-stop")][0]
assert ("%.0f USD" % (1.2 * d["ranked"][0]["total_cost"])) in stop and "1.2x the expected cost" in stop, stop
# the Pareto front and the fastest within 10%
r = d["ranked"]
for i, c in enumerate(r):
    dom = any(k != i and o["total_cost"] <= c["total_cost"] and o["finish_seconds"] <= c["finish_seconds"]
              and (o["total_cost"] < c["total_cost"] or o["finish_seconds"] < c["finish_seconds"])
              for k, o in enumerate(r))
    assert c["pareto"] == (not dom), (i, c)
f = d["fastest_within_choice"][0]
assert f["total_cost"] <= 1.1 * r[0]["total_cost"] and f["finish_seconds"] < r[0]["finish_seconds"]
assert f["gpus"] == 8 and d["fastest_within"]["margin_fraction"] == 0.1
# communication: a share on 8 GPUs, none on one
assert all((x["comm_share_fraction"] > 0) == (x["gpus"] > 1) for x in r), [(x["gpus"], x["comm_share_fraction"]) for x in r]
# spot that costs more than on-demand is said
assert d["spot_note"]["code"] == "spot_dearer" and d["spot_note"]["spot_total_cost"] > d["spot_note"]["on_demand_total_cost"]
PY
fi
run "$G" plan acc.yaml --catalog "$CAT" --top 10
grep -q 'memberships: TEST-HPC' "$T/out" && grep -q 'Within 10% of the cheapest' "$T/out" \
	&& grep -q 'spot is not the saving here' "$T/out" && ok || bad "access, fastest, spot lines in the text"
run "$G" plan acc.yaml --catalog "$CAT" --access test-hpc --json
if need_py "--access: the campus offer"; then
	python3 - "$T/out" <<'PY' && ok || bad "--access: the campus offer is planned, chained, with its checkpoint rule"
import json, sys
d = json.load(open(sys.argv[1]))
top = d["ranked"][0]
assert top["provider"] == "TestUni" and top["total_cost"] == 0 and top["jobs"] > 1, top
codes = d["advice"]["checklist_codes"]
assert "checkpoint_time_limit" in codes and "checkpoint_interval" not in codes, codes
stop = d["advice"]["checklist"][codes.index("auto_stop")]
assert "budget stop at 0" not in stop and "no budget stop" in stop, stop
assert "access" not in [e["code"] for e in d["excluded"]]
PY
fi
run "$G" plan acc.yaml --catalog "$CAT" --access TEST-HPC --trust-catalog --json --top 10
if need_py "--trust-catalog"; then
	python3 -c "
import json; d = json.load(open('$T/out'))
assert any(x['provider'] == 'SusCloud' and x['mode'] != 'spot' for x in d['ranked'])
assert 'suspect_price' not in [e['code'] for e in d['excluded']]" && ok || bad "--trust-catalog ranks the suspect row on on-demand"
fi
# --exclude / --only by supply type and provider
run "$G" plan acc.yaml --catalog "$CAT" --exclude marketplace,cloudA --json --top 10
if need_py "--exclude by supply type and provider"; then
	python3 -c "
import json; d = json.load(open('$T/out'))
assert d['ranked'] == [] and [e['count'] for e in d['excluded'] if e['code'] == 'user_filter'] == [3], d['excluded']" \
		&& ok || bad "--exclude by supply type and provider"
	run "$G" plan acc.yaml --catalog "$CAT" --only marketplace --json --top 10
	python3 -c "
import json; d = json.load(open('$T/out'))
assert d['ranked'] and all(x['supply'] == 'marketplace' for x in d['ranked'])" && ok || bad "--only marketplace"
fi
# use_spot: true that leaves out a cheaper on-demand plan says so
printf 'resources:\n  use_spot: true\nmodel: llama-2-7b\ntask: lora\nseq: 2048\ntokens: 5e8\nresumable: true\n' >spot.yaml
run "$G" plan spot.yaml --catalog "$CAT" --json
if need_py "use_spot: true and a cheaper on-demand plan"; then
	python3 -c "
import json; d = json.load(open('$T/out'))
assert d['ranked'] and all(x['mode'] == 'spot' for x in d['ranked'])
n = d['spot_note']
assert n['code'] == 'spot_only_excluded_cheaper' and n['on_demand_total_cost'] < n['spot_total_cost'], n" \
		&& ok || bad "use_spot: true and a cheaper on-demand plan"
fi

# one currency per answer: the same job in USD and CNY ranks the same, totals differ by the rate
run "$G" plan acc.yaml --catalog "$CAT" --json --top 10
cp "$T/out" usd.json
run "$G" plan acc.yaml --catalog "$CAT" --json --top 10 --currency CNY
cp "$T/out" cny.json
if need_py "USD and CNY: same ranking"; then
	python3 - usd.json cny.json <<'PY' && ok || bad "USD and CNY: same ranking, totals by the rate"
import json, sys
u, c = (json.load(open(p)) for p in sys.argv[1:3])
assert u["currency"] == "USD" and c["currency"] == "CNY" and c["usd_per_unit"] < 1
key = lambda d: [(x["provider"], x["instance"], x["mode"]) for x in d["ranked"]]
assert key(u) == key(c)
for a, b in zip(u["ranked"], c["ranked"]):
    assert abs(b["total_cost"] * c["usd_per_unit"] - a["total_cost"]) <= 1e-9 * max(1, a["total_cost"]), (a, b)
PY
fi
run "$G" plan acc.yaml --catalog "$CAT" --currency RMB --budget 1000
body=$(sed '/^Catalogs$/,$d' "$T/out")
echo "$body" | grep -q 'money in CNY' && ! echo "$body" | grep -v '1 USD = ' | grep -q 'USD' \
	&& echo "$body" | grep -q 'budget stop at your budget, 1000 CNY' && ok || bad "one currency in a CNY answer: $(echo "$body" | grep USD | head -3)"
run "$G" plan acc.yaml --catalog "$CAT" --budget 1000CNY --json
if need_py "a budget written in CNY"; then
	python3 -c "
import json; d = json.load(open('$T/out'))
assert d['currency'] == 'CNY' and d['rate_source'].startswith('data/currencies.csv line ')
assert d['ranked'] and all(x['total_cost'] <= 1000 for x in d['ranked'])" && ok || bad "a budget written in CNY sets the currency"
fi
run "$G" plan acc.yaml --catalog "$CAT" --budget 1 --json
if need_py "a budget far short"; then
	python3 -c "
import json; d = json.load(open('$T/out'))
assert d['ranked'] == [] and d['magnitude']['code'] == 'over_budget' and 0 < d['magnitude']['work_in_range'] < 5e8
assert 'budget' in [c['code'] for c in d['changes']]" && ok || bad "a budget far short: order of magnitude and what to change"
fi

# a catalog's control bytes are escaped in every line of the plan, a service's too
{
	sed -n '/^provider,/p' "$CAT"
	printf 'Evil\033[31mX,ai-cloud,a\033]0;pwn\007b,us,A100-80GB,1,whole,80,16,120,200,yes,1.60,,USD,per-second,,,t,2026-12,\n'
	printf 'Uni,campus-hpc,p,cn,A100-80GB,1,whole,80,16,120,,yes,0,,CNY,campus-hpc,2h,24h,t,2026-12,M\033[2J\n'
} >evil.csv
printf 'model: llama-3.1-8b\ntask: infer\ncontext: 8k\nconcurrency: 2\nserve: 24x7\n' >evilserve.yaml
for job in acc.yaml evilserve.yaml; do
	run "$G" plan "$job" --catalog evil.csv
	if grep -q "$(printf '\033')" "$T/out" || grep -q "$(printf '\007')" "$T/out"; then
		bad "plan $job wrote a catalog's control byte raw"
	elif grep -q 'Evil\\x1b\[31mX' "$T/out"; then ok; else bad "plan $job: the escaped provider is missing: $(head -12 "$T/out")"; fi
done
run "$G" plan acc.yaml --catalog evil.csv
grep -q 'memberships: M\\x1b\[2J' "$T/out" && ok || bad "an escaped membership: $(grep -a memberships "$T/out")"
# plan-task-name-escape: a task's name: (YAML "\e" escapes) and its file name,
# a models.csv name and a gpus.csv alias reach the terminal escaped (out.h)
esc=$(printf 'task\033]0;T')
printf 'name: "\\e]0;PWNED\\a\\e[2J\\e[31mRED"\nresources:\n  accelerators: A100:1\nrun: python a.py\n---\nname: b\nresources:\n  accelerators: A100:1\nrun: python b.py\n' >"$esc.yaml"
run "$G" plan "$EX" "$esc.yaml"
if grep -q "$(printf '\033')" "$T/out" || grep -q "$(printf '\007')" "$T/out"; then
	bad "plan wrote a task's name or file name raw: $(grep -a 'Task document' "$T/out" | cat -v)"
elif grep -Fq 'Task document 1 of 2 (task\x1b]0;T.yaml line 1): \x1b]0;PWNED\x07\x1b[2J\x1b[31mRED' "$T/out"; then ok
else bad "the escaped task name: $(grep -a 'Task document' "$T/out" | cat -v)"; fi
mkdir -p evildata
cp "$ROOT"/data/*.csv evildata/
sed -i "s/^llama-2-7b,llama2-7b|/llama-2-7b$(printf '\033')[31mX,llama2-7b|/" evildata/models.csv
run "$G" --data-dir evildata plan "$EX"
if grep -q "$(printf '\033')" "$T/out"; then bad "plan wrote a model's name raw: $(head -1 "$T/out" | cat -v)"
elif grep -Fq 'gpurent plan: llama-2-7b\x1b[31mX, lora' "$T/out"; then ok; else bad "the escaped model name: $(head -1 "$T/out" | cat -v)"; fi
run "$G" --data-dir evildata estimate --model llama2-7b --task lora --tokens 1e9 --gpu A100-80GB
if grep -q "$(printf '\033')" "$T/out"; then bad "estimate wrote a model's name raw: $(head -1 "$T/out" | cat -v)"
elif grep -Fq 'gpurent estimate: llama-2-7b\x1b[31mX, ' "$T/out"; then ok; else bad "estimate's escaped model name: $(head -1 "$T/out" | cat -v)"; fi

# the demo's workload: the order of magnitude names the tokens; no campus without --access; no stop at 0
run "$G" plan "$EX"
grep -q '^Order of magnitude: .*3e+09 tokens' "$T/out" && ! grep -q 'budget stop at 0 ' "$T/out" \
	&& ! grep -Eq '^ [0-9] (KFUPM|SJTU)' "$T/out" && ok || bad "the demo plan: $(head -5 "$T/out")"
# nothing to plan on: the class still comes from the job, and what would change
mkdir -p empty
run "$G" plan "$EX" --catalog empty
[ "$rc" -eq 1 ] && grep -q 'user class B' "$T/out" && grep -q 'What would have to change' "$T/out" \
	&& grep -q -- '--catalog' "$T/out" && ok || bad "an empty catalog folder: $(grep 'user class' "$T/out")"

# the table names each row's region (issue 29: one type in five regions looked like five equal rows)
run "$G" plan "$EX"
grep -q '^ # provider  *instance  *region  *GPU ' "$T/out" && grep -q '^ 1 Azure  *Standard_NC24ads_A100_v4  *eastus ' "$T/out" &&
	ok || bad "no region column: $(sed -n '/^ # provider/,+1p' "$T/out")"
# the rate's note cites the row, not its English words (they restate rate and date)
run "$G" plan "$EX" --currency CNY
grep -q 'data/currencies.csv line 8, 2024-02-02, Federal Reserve H.10 release of 2024-02-05 (federalreserve.gov/releases/h10/20240205);' "$T/out" &&
	! grep -q 'yuan per USD' "$T/out" && ok || bad "the rate note: $(sed -n 2p "$T/out")"

# the advice never asks for what the job already has (issue 29)
run "$G" plan "$EX" --budget 300 --currency RMB --access SJTU-HPC
sed -n '/^What would have to change/,/^Checklist/p' "$T/out" >"$T/chg"
grep -q 'budget: the cheapest plan costs' "$T/chg" && ! grep -q 'memory:' "$T/chg" && ok ||
	bad "memory advice where 86 GB cards hold the job: $(cat "$T/chg")"
run "$G" plan "$EX" --gpu T4
grep -q '^ - memory: the job needs 39.1 GB per GPU' "$T/out" && grep -q 'QLoRA (a 4-bit base), gradient checkpointing' "$T/out" &&
	! grep -q 'LoRA or QLoRA\|micro_batch\|ZeRO' "$T/out" && ok ||
	bad "memory advice for a LoRA job of micro_batch 1: $(grep -- '- memory' "$T/out")"
run "$G" plan --model llama-3-70b --tokens 1e8 --gpu T4 --task qlora --grad-checkpointing
grep -q '^ - memory: .*a card with more memory, or a shorter seq$' "$T/out" && ok ||
	bad "memory advice for a QLoRA job with checkpointing: $(grep -- '- memory' "$T/out")"
# the docs' student example gives an answer: the campus A100 within 300 yuan
run "$G" plan "$EX" --seq 512 --tokens 1e9 --budget 300 --currency RMB --access SJTU-HPC
[ "$rc" -eq 0 ] && grep -q '^ 1 SJTU-HPC .*A100 ' "$T/out" && ok || bad "the student example: rc $rc $(sed -n '4,6p' "$T/out")"

# --emit slurm: the offer's partition, the plan's checklist lead equal to the script's
run "$G" plan "$EX" --seq 512 --tokens 1e9 --budget 300 --currency RMB --access SJTU-HPC --emit slurm -- python train.py
cp "$T/out" "$T/stu.sbatch"
grep -qx '#SBATCH --partition=a100' "$T/stu.sbatch" && grep -qx '#SBATCH --cpus-per-task=16' "$T/stu.sbatch" && ok ||
	bad "emit slurm: no a100 partition or the offer's 16 cores: $(grep SBATCH "$T/stu.sbatch")"
lead=$(sed -n 's/^#SBATCH --signal=B:USR1@\([0-9]*\)$/\1/p' "$T/stu.sbatch")
run "$G" plan "$EX" --seq 512 --tokens 1e9 --budget 300 --currency RMB --access SJTU-HPC
cl=$(sed -n 's/.*--signal=B:USR1@\([0-9]*\)).*/\1/p' "$T/out")
[ -n "$lead" ] && [ "$lead" = "$cl" ] && ok || bad "the checklist's lead '$cl' is not the script's '$lead'"
# --partition: the best campus offer in it; one no campus offer runs in is refused; none without --emit slurm
run "$G" plan "$EX" --seq 512 --tokens 1e9 --access SJTU-HPC --only SJTU-HPC --partition dgx2 --emit slurm -- python train.py
grep -qx '#SBATCH --partition=dgx2' "$T/out" && ok || bad "--partition dgx2: $(grep partition "$T/out") $(cat "$T/err")"
expect_err partition-none 1 "none of the ranked campus offers runs in partition 'gpu' (the best runs in 'a100'" \
	"$G" plan "$EX" --seq 512 --tokens 1e9 --access SJTU-HPC --only SJTU-HPC --partition gpu --emit slurm -- python train.py
expect_err partition-no-emit 2 "--partition: only with --emit slurm" "$G" plan "$EX" --partition a100

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
if need_shared data/catalogs "plan on the real catalogs" && need_py "plan on the real catalogs"; then
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
	# issue 10: RunPod's L40S rows (spot exactly 2x on-demand) are not ranked, and say why
	run "$G" plan "$EX" --catalog "$REAL/runpod" --top 200 --json
	python3 - "$T/out" <<'PY' && ok || bad "RunPod L40S rows are not ranked on the real catalog"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["ranked"] and not any("L40S" in x["gpu"] for x in d["ranked"]), [x["instance"] for x in d["ranked"] if "L40S" in x["gpu"]]
ex = {e["code"]: e for e in d["excluded"]}
assert ex["suspect_price"]["count"] > 0 and "L40S" in ex["suspect_price"]["example"], ex.get("suspect_price")
PY
	run "$G" plan "$EX" --catalog "$REAL/runpod" --top 200 --json --trust-catalog
	python3 -c "
import json; d = json.load(open('$T/out'))
assert any('L40S' in x['gpu'] and x['mode'] != 'spot' for x in d['ranked'])" && ok || bad "--trust-catalog ranks RunPod L40S on-demand"
	# GCP: a GPU is planned on its host machine, named
	printf 'model: llama-2-7b\ntask: lora\nseq: 2048\ntokens: 1e8\ngpus: 1\n' >gcp.yaml
	run "$G" plan gcp.yaml --catalog "$REAL/gcp" --top 300 --json
	python3 - "$T/out" <<'PY' && ok || bad "GCP offers are whole machines in the plan"
import json, sys
r = json.load(open(sys.argv[1]))["ranked"]
g = [x for x in r if x["provider"].lower().startswith("gcp")]
assert g and all(x.get("host") and x["instance"] == x["host"] for x in g), g[:2]
assert any(x["host"] == "a2-highgpu-1g" and "A100 40GB" in x["gpu"] for x in g), sorted({x["host"] for x in g})
PY
fi

# --- plan --calibrate PROBE: training timed at the probe's MFU on every card
# (docs/formulas.md "Calibrated by a probe"); a ledger made by `ledger list`,
# a probe row written with python's sqlite3
CL="$T/probe-ledger.db"
expect_err plan-calib-no-ledger 1 'no ledger there' "$G" plan "$EX" --ledger "$T/absent.db" --calibrate latest
expect_err plan-calib-bad 2 '--calibrate: expected a probe id' "$G" plan "$EX" --ledger "$CL" --calibrate -1
if need_py "plan --calibrate with a probe row"; then
	"$G" ledger --ledger "$CL" list >/dev/null 2>&1
	D=$("$G" estimate "$EX" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["workload"]["digest"])')
	python3 - "$CL" "$D" <<'PY' && ok || bad "could not write a probe row into the test ledger"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("INSERT INTO probes (taken_at, host, gpu, gpu_count, workload_digest, model, steps, warmup, "
           "steady_step_seconds, peak_memory_bytes, memory_growth_bytes_per_step, units_per_step, "
           "units_per_second, units_are_samples, mfu, util_median, cpu_median, diagnoses, command, "
           "recorded_at) VALUES (1795000000, 'box', 'NVIDIA H100 80GB HBM3', 1, ?, 'llama-2-7b', 40, 3, "
           "0.9, 30e9, 0, 4096, 4551, 0, 0.25, 97, 40, NULL, 'python train.py', 1795000000)", (sys.argv[2],))
db.commit()
PY
	run "$G" plan "$EX" --json --top 20; cp "$T/out" "$T/plain.json"
	run "$G" plan "$EX" --json --top 20 --ledger "$CL" --calibrate latest; cp "$T/out" "$T/cal.json"
	run "$G" plan "$EX" --json --top 20 --mfu 0.25; cp "$T/out" "$T/mfu.json"
	python3 - "$T/plain.json" "$T/cal.json" "$T/mfu.json" <<'PY' && ok || bad "plan --calibrate latest"
import json, sys
p, c, m = (json.load(open(f)) for f in sys.argv[1:4])
k = c["calibration"]
assert p["calibration"] is None
assert k["probe_id"] == 1 and k["time_calibrated"] and k["probe_mfu_fraction"] == 0.25, k
assert k["memory_calibrated"], k
key = lambda x: (x["provider"], x["instance"], x["mode"])
def times(d): return {key(x): x["compute_seconds"] for x in d["ranked"]}
# the memory fit: the probe's 30 GB per GPU on cards of at least the H100's
# 80 GB, the estimate's on smaller ones (memory_used_fraction = need / card)
plain = {key(x): x for x in p["ranked"]}
big = small = 0
for x in c["ranked"]:
    card = x["memory_per_gpu_bytes"] / x["memory_used_fraction"]
    if card >= 80e9 - 1:
        assert abs(x["memory_per_gpu_bytes"] - 30e9) < 1, x
        big += 1
    elif key(x) in plain:
        assert x["memory_per_gpu_bytes"] == plain[key(x)]["memory_per_gpu_bytes"], x
        small += 1
assert big > 0, "no card of 80 GB or more ranked"

# the probe's MFU on every card: the same plan as --mfu 0.25, not the estimate's
assert times(c) == times(m), "calibrated != --mfu 0.25"
common = set(times(c)) & set(times(p))
assert common and all(times(c)[x] != times(p)[x] for x in common)
PY
	expect_ok plan-calib-text 'Calibrated by probe 1 .*MFU 25.0% of the dense bf16 peak.*memory fit: the probe.s peak per GPU on cards at least the probed one.s size' \
		"$G" plan "$EX" --ledger "$CL" --calibrate 1
	# another workload: latest refused, the id used with a warning
	expect_err plan-calib-other 1 'measured another workload' "$G" plan "$EX" --micro-batch 2 --ledger "$CL" --calibrate latest
	run "$G" plan "$EX" --micro-batch 2 --ledger "$CL" --calibrate 1
	grep -q 'warning: --calibrate 1: probe 1 .*measured another workload' "$T/err" && grep -q 'Calibrated by probe 1' "$T/out" \
		&& ok || bad "plan-calib-other-id: $(cat "$T/err")"
fi

# issue 29 item 8: the QLoRA step factor the finish times carry is printed
# and in the JSON
run "$G" plan --model llama-2-7b --task qlora --tokens 1e8 --top 2
[ "$rc" -eq 0 ] && grep -q '^Assumed: time: x1.62 a step for the quantized base' "$T/out" && ok ||
	bad "plan qlora: the slowdown not printed"
if need_py "plan --json assumptions"; then
	run "$G" plan --model llama-2-7b --task qlora --tokens 1e8 --top 2 --json
	python3 - "$T/out" <<'PY' && ok || bad "plan --json: no step_slowdown or assumptions"
import json, sys
d = json.load(open(sys.argv[1]))
assert abs(d["step_slowdown"] - 3.83 / 2.36) < 1e-9, d.get("step_slowdown")
assert "qlora_slowdown" in d["assumption_codes"] and len(d["assumptions"]) == len(d["assumption_codes"])
PY
fi

finish
