#!/bin/sh
# tests/cli/estimate.sh - run the real binary ($GPURENT) in a fresh temp dir and
# check outputs, exit codes and the one-line errors. Prints
# "estimate: N passed, M failed" and exits non-zero on any failure.
NAME=estimate
. "$(dirname "$0")/lib/common.sh"

cp "$ROOT"/examples/*.yaml "$T/"

# one command and its answer (the version, gpus and models, the examples,
# the one-line errors of flags, the memory and time figures by flags):
# tests/cli/cases/estimate.test

# --- basics
expect_ok help 'estimate .*gpus .*models' sh -c "\"$G\" help | tr '\n' ' '"
run "$G" help estimate; cp "$T/out" "$T/h1"
run "$G" estimate --help; cp "$T/out" "$T/h2"
if cmp -s "$T/h1" "$T/h2" && [ -s "$T/h1" ]; then ok; else bad "help estimate != estimate --help"; fi
expect_err no-command 2 "usage: gpurent" sh -c "\"$G\" 2>&1 >/dev/null | head -1 >&2; \"$G\" >/dev/null 2>&1"

# --- gpus / models
run "$G" gpus A100; [ "$(grep -c A100 "$T/out")" -eq 4 ] && ok || bad "gpus A100: expected 4 rows"

# --- JSON: valid, and every number's key names its unit
if need_py "estimate --json schema and units"; then
	run "$G" estimate lora-7b.yaml --json
	if python3 - "$T/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "gpurent.estimate/1"
units = ("_bytes", "_seconds", "_flops", "_flops_per_second", "_fraction", "_bytes_per_second",
         "_gb", "_per_second")
unitless = {"params", "params_active", "params_trainable", "lora_params", "zero", "gpus",
            "micro_batch", "seq", "image_size", "grad_accum", "dropout", "lora_rank",
            "quant_bits", "context", "concurrency", "mfu", "gpu_hours", "work_units", "steps",
            "ratio", "zero3_gpus_for_80gb", "nodes", "prefill_chunk", "step_slowdown"}
def walk(o, path=""):
    if isinstance(o, dict):
        for k, v in o.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                assert k.endswith(units) or k in unitless, "key without unit: " + path + k
            walk(v, path + k + ".")
    elif isinstance(o, list):
        for v in o: walk(v, path)
walk(d)
m = d["memory"]
parts = sum(m[k] for k in ("weights_bytes", "gradients_bytes", "optimizer_bytes", "adapters_bytes",
            "quant_consts_bytes", "activations_bytes", "logits_bytes", "kv_cache_bytes", "dequant_bytes",
            "int8_saved_bytes"))
assert abs(parts - m["train_peak_bytes"]) < 1, "components do not sum to the forward/backward peak"
peaks = {"train": m["train_peak_bytes"], "step": m["step_peak_bytes"], "load": m["load_peak_bytes"]}
assert m["allocated_bytes"] == max(peaks.values()) == peaks[m["peak_phase"]], "allocated is not the largest phase"
assert d["fit"]["recommended_tier_gb"] == 48
PY
	then ok; else bad "estimate --json schema/units"; fi
	# communication that overlap does not hide is in the run time (issue 10 item 10)
	job="--model llama-3.1-8b --zero 3 --gpus 4 --micro-batch 6 --tokens 1e9 --tflops 300"
	run "$G" estimate $job --interconnect pcie --json; cp "$T/out" pcie.json
	run "$G" estimate $job --interconnect nvlink --json; cp "$T/out" nvlink.json
	if python3 - pcie.json nvlink.json <<'PY'
import json, sys
p, n = (json.load(open(f)) for f in sys.argv[1:3])
for d in (p, n):
    c, t = d["communication"], d["time"]
    assert c["overlap"] == "zero3" and abs(c["overlap_fraction"] - 1) < 1e-9
    assert 0 < c["comm_share_fraction"] < 1
    share = c["comm_exposed_seconds"] / (c["compute_per_step_seconds"] + c["comm_exposed_seconds"])
    assert abs(c["comm_share_fraction"] - share) < 1e-9
    assert abs(t["comm_exposed_seconds"] - c["steps"] * c["comm_exposed_seconds"]) < 1e-6 * t["wall_seconds"]
    assert abs(t["wall_seconds"] - t["compute_seconds"] - t["comm_exposed_seconds"]) < 1e-6 * t["wall_seconds"]
    assert "comm_overlap" in d["assumption_codes"]
assert p["communication"]["ratio"] < 1     # compute-bound, nearly communication-bound
assert p["time"]["wall_seconds"] > n["time"]["wall_seconds"] * 1.05
assert p["time"]["gpu_hours"] > n["time"]["gpu_hours"]
PY
	then ok; else bad "estimate: PCIe not slower than NVLink with the exposed communication"; fi
	run "$G" estimate --model llama-3.1-8b --micro-batch 6 --tokens 1e9 --tflops 300 --json
	python3 -c "import json; d = json.load(open('$T/out')); assert d['time']['wall_seconds'] == d['time']['compute_seconds'] and d['communication']['comm_exposed_seconds'] == 0 and 'comm_overlap' not in d['assumption_codes']" \
		&& ok || bad "estimate: one GPU adds communication"
	for c in gpus models; do
		run "$G" $c --json
		python3 -c "import json,sys; assert len(json.load(open('$T/out'))) > 20" && ok || bad "$c --json"
	done
fi

# --- bad input: one line naming file:line: field, exit 2
printf 'model: llama-2-7\ntask: lora\n' >unknown-model.yaml
expect_err unknown-model 2 "unknown-model.yaml:1: model: unknown model 'llama-2-7' (did you mean 'llama" "$G" estimate unknown-model.yaml
printf 'model: llama-2-7b\nmicro_batch: -1\n' >neg-batch.yaml
expect_err negative-batch 2 "neg-batch.yaml:2: micro_batch: expected a positive whole number, got '-1'" "$G" estimate neg-batch.yaml
# DeepSpeed ZeRO-3 without its linear: the kept weights on their own line part, refused under FSDP
printf 'model: llama-2-7b\ngpus: 8\nzero: 3\nframework: fsdp\nmemory_efficient_linear: false\n' >mel-fsdp.yaml
expect_err mel-fsdp 2 "mel-fsdp.yaml:5: memory_efficient_linear: applies to training an unquantized model under DeepSpeed ZeRO-3" "$G" estimate mel-fsdp.yaml
run "$G" estimate --model llama-2-7b --gpus 8 --zero 3 --framework deepspeed --no-memory-efficient-linear
grep -q "13.21 GB of gathered weights torch's linear keeps for backward" "$T/out" && ok || bad "kept weights not shown: $(grep sharding "$T/out")"
# FSDP's root unit and FSDP1's wrap cache: shown, said off, refused under DeepSpeed
printf 'model: llama-2-7b\ngpus: 8\nzero: 3\nframework: deepspeed\nfsdp_root_gathered: true\n' >root-ds.yaml
expect_err root-deepspeed 2 "root-ds.yaml:5: fsdp_root_gathered: applies to training sharded with zero 3 by FSDP (not DeepSpeed" "$G" estimate root-ds.yaml
run "$G" estimate --model llama-2-7b --task qlora --precision bf16-true --gpus 2 --zero 3 --framework fsdp --grad-checkpointing --seq 512
grep -q "the root unit's embedding and lm_head, 524.3 MB, held to the end of backward" "$T/out" && ok || bad "root not shown: $(grep sharding "$T/out")"
grep -q "FSDP's wrap left cached" "$T/out" && grep -q "FSDP1's wrap leaves" "$T/out" && ok || bad "wrap cache not shown: $(grep -i wrap "$T/out")"
run "$G" estimate --model llama-2-7b --task qlora --precision bf16-true --gpus 2 --zero 3 --framework fsdp --grad-checkpointing --seq 512 --no-fsdp-root-gathered --no-fsdp-wrap-cache
if grep -q "root unit\|wrap" "$T/out"; then bad "said off, still shown: $(grep 'root unit\|wrap' "$T/out")"; else ok; fi
printf 'task: lora\nseq: 512\n' >no-model.yaml
expect_err missing-field 2 "no-model.yaml:1: model: missing required field" "$G" estimate no-model.yaml
printf 'model: gpt2\n  seq: [1,\n' >malformed.yaml
expect_err malformed-yaml 2 "malformed.yaml:2: YAML syntax error" "$G" estimate malformed.yaml
printf 'model: gpt2\nmicro_bach: 4\n' >typo.yaml
expect_err unknown-key 2 "typo.yaml:2: micro_bach: unknown field (did you mean 'micro_batch'?)" "$G" estimate typo.yaml
printf 'model: gpt2\nseq: 4096\n' >too-long.yaml
expect_err learned-positions 2 "too-long.yaml:2: seq: model 'gpt2-124m' has learned positions up to 1024 tokens" "$G" estimate too-long.yaml

# --- data files: --data-dir replaces the embedded copies; bad rows are named
mkdir -p data-ok data-bad
cp "$ROOT"/data/*.csv data-ok/
expect_ok data-dir 'llama-2-7b' "$G" --data-dir data-ok models
cp "$ROOT"/data/models.csv data-bad/
awk -F, 'NR==3{$6="lots"}1' OFS=, "$ROOT"/data/gpus.csv >data-bad/gpus.csv
expect_err bad-data 2 "data-bad/gpus.csv:3: memory_gb: expected a number" "$G" --data-dir data-bad gpus
expect_err missing-data 2 "cannot open" "$G" --data-dir nowhere gpus
GPURENT_DATA_DIR=data-ok expect_ok data-env 'RTX 4090' "$G" gpus 4090

# --- truncated files never crash the binary
for f in lora-7b.yaml resnet50-imagenet.yaml serve-8b.yaml; do
	n=$(wc -c <"$f") i=0 crashed=0
	while [ "$i" -le "$n" ]; do
		head -c "$i" "$f" >cut.yaml
		"$G" estimate cut.yaml >/dev/null 2>&1
		r=$?
		[ "$r" -eq 0 ] || [ "$r" -eq 2 ] || { crashed=1; echo "exit $r on $f cut at $i bytes"; }
		i=$((i + 3))
	done
	[ "$crashed" -eq 0 ] && ok || bad "truncated $f"
done

# --- the loss buffer by framework (formulas.md "Logits"): Llama-3.1-8B has
# V = 128256 (its config.json); LoRA in bf16 at micro-batch 2 x 2048 =
# 4096 positions. hf: logits (2) + fp32 log-softmax (4) + its gradient (4);
# torchtune: the logits whole in bf16 + one of 8 chunks (2 x 256
# positions) upcast, fp32 log-softmax + gradient.
L8="--model llama-3.1-8b --task lora --micro-batch 2 --seq 2048"
run "$G" estimate $L8 --framework hf --json; cp "$T/out" "$T/hf.json"
run "$G" estimate $L8 --framework torchtune --json; cp "$T/out" "$T/tt.json"
if python3 - "$T/hf.json" "$T/tt.json" <<'PY'
import json, sys
hf, tt = (json.load(open(f)) for f in sys.argv[1:3])
V, n = 128256, 2 * 2048
assert hf["memory"]["logits_bytes"] == n * V * (2 + 4 + 4), hf["memory"]["logits_bytes"]
assert tt["memory"]["logits_bytes"] == n * V * 2 + 2 * (2048 // 8) * V * (4 + 4), tt["memory"]["logits_bytes"]
assert "loss" in hf["assumption_codes"] and "loss" in tt["assumption_codes"]
assert any("chunked" in a and "torchtune's" in a for a in tt["assumptions"])
assert any("full" in a and "hf's" in a for a in hf["assumptions"])
d = hf["memory"]["total_bytes"] - tt["memory"]["total_bytes"]
assert d > hf["memory"]["logits_bytes"] - tt["memory"]["logits_bytes"]   # plus its allocator reserve
PY
then ok; else bad "estimate: --framework torchtune not a chunked loss, or hf not the full one"; fi
run "$G" estimate $L8
grep -q "loss full: .*(no framework given: give framework or loss)" "$T/out" && ok \
	|| bad "estimate: the full loss not stated as the assumption without a framework"
run "$G" estimate $L8 --framework torchtune --loss full
grep -q "loss full: .*(given)" "$T/out" && ok || bad "estimate: --loss does not override the framework's"
run "$G" estimate $L8 --framework pytorch-lightning
[ "$rc" -eq 2 ] && grep -q "framework" "$T/err" && ok || bad "estimate: an unknown framework not refused with exit 2"
run "$G" estimate $L8 --loss sparse
[ "$rc" -eq 2 ] && grep -q "loss" "$T/err" && ok || bad "estimate: an unknown loss not refused with exit 2"

# --- documentation stays true to the code
"$G" estimate --help | sed -n 's/^  --\([a-z0-9-]*\) .*/\1/p' | grep -v '^json$' >fields
[ -s fields ] && ok || bad "no fields in estimate --help"
while read -r fl; do
	key=$(echo "$fl" | tr - _)
	grep -Fq -- "$key" "$ROOT/docs/gpurent.1" && grep -Fq -- "$fl" "$ROOT/docs/gpurent.1" \
		&& ok || bad "docs/gpurent.1 does not document field $key / --$fl"
done <fields
# --- issue 12: a quantized LoRA base, block-scaled KV caches, a gated MLP by flags
run "$G" estimate --model llama-2-7b --task lora --quant-bits 8; grep 'base weights' "$T/out" >lq
run "$G" estimate --model llama-2-7b --task qlora --quant-bits 8; grep 'base weights' "$T/out" >qq
run "$G" estimate --model llama-2-7b --task lora; grep 'base weights' "$T/out" >l16
if cmp -s lq qq && ! cmp -s lq l16 && grep -q 'int8 linear layers' lq; then ok
else bad "lora --quant-bits 8: base weights $(cat lq) vs qlora $(cat qq)"; fi
run "$G" estimate --model llama-2-7b; grep '^model:' "$T/out" >pm
run "$G" estimate --layers 32 --hidden 4096 --heads 32 --ffn 11008 --gated-mlp; grep '^model:' "$T/out" >hm
cmp -s pm hm && ok || bad "by-hand gated Llama-2-7B: $(cat hm), preset: $(cat pm)"
run "$G" estimate --model llama-2-7b --task lora; grep -q 'loading peak\|dequantized weight' "$T/out" \
	&& bad "a 16-bit LoRA base has no loading peak or dequantized weight" || ok
run "$G" estimate --model gpt2-124m --precision amp --optimizer sgd --micro-batch 1 --seq 64 --grad-checkpointing
grep -q 'optimizer step peak' "$T/out" && bad "SGD has no foreach AdamW step copy" || ok

for c in estimate gpus models; do
	grep -q "gpurent $c" "$ROOT/README.md" && grep -Fq "$c" "$ROOT/docs/gpurent.1" \
		&& ok || bad "command $c missing from README.md or docs/gpurent.1"
done

# --- issue 12 item 3: time from how fast real stacks run (formulas.md "Inference time", "Time")
# decode: eager PyTorch pays the CPU's launches, --compile lifts them
run "$G" estimate --model llama-2-7b --task infer --gpu A100-80GB --tokens 1e6 --compile
grep -q 'per-layer overhead 1\.34 ms' "$T/out" && ok || bad "--compile: 32 x 41.8 us of overhead: $(grep 'decode step' "$T/out")"
# llama.cpp on 4 GPUs is no faster than on one (its default split-mode layer)
tps() { "$G" estimate --model llama-3.1-8b --task infer --gpu RTX3090 --tokens 1e6 --framework llama.cpp \
	--quant-bits 4 "$@" | sed -n 's/^  decode: \([0-9]*\) tokens\/s.*/\1/p'; }
one=$(tps --gpus 1); four=$(tps --gpus 4)
[ -n "$one" ] && [ -n "$four" ] && [ "$four" -le "$one" ] && ok || bad "llama.cpp layer split: 4 GPUs $four tok/s vs 1 GPU $one"

# gpurent bench's figures in the ledger replace the datasheet's (a ledger made here)
export GPURENT_LEDGER="$T/bench-ledger.db"
run "$G" estimate --model llama-3.1-8b --task infer --gpu H100 --tokens 1e6
grep -q 'measured by gpurent bench' "$T/out" && bad "an absent ledger gave bench figures" || ok
[ ! -e "$GPURENT_LEDGER" ] && ok || bad "estimate created the ledger"
if need_py "estimate with bench figures"; then
	"$G" ledger list >/dev/null 2>&1
	python3 - "$GPURENT_LEDGER" <<'PY' && ok || bad "could not write bench rows into the test ledger"
import sqlite3, sys, calendar
db = sqlite3.connect(sys.argv[1])
old = calendar.timegm((2026, 10, 1, 0, 0, 0))
new = calendar.timegm((2026, 11, 20, 12, 0, 0))
rows = [(old, "gemm_bf16", 900.0, "TFLOP/s"), (new, "gemm_bf16", 600.0, "TFLOP/s"),
        (new, "d2d_copy", 2800.0, "GB/s")]
for at, test, v, unit in rows:
    db.execute("INSERT INTO bench_results (measured_at, host, gpu, test, value, unit, nominal, recorded_at) "
               "VALUES (?, 'box', 'NVIDIA H100 80GB HBM3', ?, ?, ?, NULL, ?)", (at, test, v, unit, at))
# another GPU's record is not this one's
db.execute("INSERT INTO bench_results (measured_at, host, gpu, test, value, unit, nominal, recorded_at) "
           "VALUES (?, 'box', 'Tesla T4', 'gemm_fp16', 50.0, 'TFLOP/s', NULL, ?)", (new, new))
db.commit()
PY
	expect_ok bench-note 'NVIDIA H100 SXM measured by gpurent bench on 2026-11-20: GEMM 600 TFLOPS and 2800 GB/s' \
		"$G" estimate --model llama-3.1-8b --gpu H100 --tokens 1e9
	run "$G" estimate --model llama-3.1-8b --gpu H100 --tokens 1e9 --json
	python3 - "$T/out" <<'PY' && ok || bad "estimate --json with bench figures"
import json, sys
t = json.load(open(sys.argv[1]))["time"]
assert t["bench_measured"] is True, t
assert t["bench_gemm_flops_per_second"] == 600e12 and t["bench_bytes_per_second"] == 2800e9, t
assert t["peak_flops_per_second"] == 600e12, t
assert t["effective_flops_per_second"] <= 600e12
PY
	# the datasheet estimate of the same job: slower per FLOP (600 / 0.80 = 750 < 989.5)
	w1=$(GPURENT_LEDGER="$T/none.db" "$G" estimate --model llama-3.1-8b --gpu H100 --tokens 1e9 --json | \
		python3 -c 'import json,sys; print(json.load(sys.stdin)["time"]["wall_seconds"])')
	w2=$("$G" estimate --model llama-3.1-8b --gpu H100 --tokens 1e9 --json | \
		python3 -c 'import json,sys; print(json.load(sys.stdin)["time"]["wall_seconds"])')
	python3 -c "import sys; a, b = float('$w1'), float('$w2'); sys.exit(not abs(b / a - 989.5 / 750) < 1e-6)" \
		&& ok || bad "the measured GEMM times the job: $w1 s (datasheet) vs $w2 s (measured)"
	# a T4's record does not touch an H100 estimate, nor an H100's a T4's
	run "$G" estimate --model llama-2-7b --task lora --gpu T4 --tokens 1e6 --precision fp16
	grep -q 'NVIDIA T4 measured by gpurent bench on 2026-11-20: GEMM 50 TFLOPS' "$T/out" && ok || bad "the T4 record was not used for a T4"
	# estimate only reads: the ledger's bytes (and its journal mode) stay as they were
	python3 -c 'import sqlite3,sys; d=sqlite3.connect(sys.argv[1]); d.execute("PRAGMA journal_mode=DELETE"); d.close()' \
		"$GPURENT_LEDGER"
	before=$(cksum <"$GPURENT_LEDGER")
	run "$G" estimate --model llama-3.1-8b --gpu H100 --tokens 1e9
	[ "$(cksum <"$GPURENT_LEDGER")" = "$before" ] && ok || bad "estimate changed the ledger it read"
	# a figure no card can reach (inf, or 1e-300 GB/s) is not a measurement: skipped
	python3 - "$GPURENT_LEDGER" <<'PY' && ok || bad "could not write the absurd rows"
import sqlite3, sys, calendar
db = sqlite3.connect(sys.argv[1])
at = calendar.timegm((2026, 11, 25, 0, 0, 0))
for test, v, unit in (("gemm_bf16", float("inf"), "TFLOP/s"), ("d2d_copy", 1e-300, "GB/s")):
    db.execute("INSERT INTO bench_results (measured_at, host, gpu, test, value, unit, nominal, recorded_at) "
               "VALUES (?, 'box', 'NVIDIA H100 80GB HBM3', ?, ?, ?, NULL, ?)", (at, test, v, unit, at))
db.commit()
PY
	expect_ok bench-absurd 'NVIDIA H100 SXM measured by gpurent bench on 2026-11-20: GEMM 600 TFLOPS and 2800 GB/s' \
		"$G" estimate --model llama-3.1-8b --gpu H100 --tokens 1e9
	grep -q 'inf' "$T/out" && bad "an absurd ledger figure reached the output" || ok
fi
# an empty file, a directory, a file that is not a ledger: read as no ledger, left as they were
: >"$T/empty.db"
run env GPURENT_LEDGER="$T/empty.db" "$G" estimate --model llama-3.1-8b --gpu H100 --tokens 1e9
[ "$rc" -eq 0 ] && [ ! -s "$T/empty.db" ] && ok || bad "an empty ledger file: exit $rc, size $(wc -c <"$T/empty.db")"
printf 'not a database' >"$T/junk.db"
run env GPURENT_LEDGER="$T/junk.db" "$G" estimate --model llama-3.1-8b --gpu H100 --tokens 1e9
[ "$rc" -eq 0 ] && [ "$(cat "$T/junk.db")" = "not a database" ] && ok || bad "a junk ledger file: exit $rc"
unset GPURENT_LEDGER

# --- estimate --calibrate PROBE: a probe in the ledger (rows written here with
# python's sqlite3 into a ledger made by `gpurent ledger list`; docs/formulas.md
# "Calibrated by a probe")
CL="$T/probe-ledger.db"
W="$ROOT/examples/lora-7b.yaml"
expect_err calib-no-ledger 1 'no ledger there' env GPURENT_LEDGER="$T/absent.db" "$G" estimate "$W" --calibrate latest
[ ! -e "$T/absent.db" ] && ok || bad "--calibrate created the ledger"
expect_err calib-bad-spec 2 "--calibrate: expected a probe id" "$G" estimate "$W" --ledger "$CL" --calibrate newest
expect_err calib-zero 2 "--calibrate: expected a probe id" "$G" estimate "$W" --ledger "$CL" --calibrate 0
if need_py "the workload digest and --calibrate"; then
	"$G" ledger --ledger "$CL" list >/dev/null 2>&1
	expect_err calib-none 1 'no probe recorded' "$G" estimate "$W" --ledger "$CL" --calibrate latest
	digest() { "$G" estimate "$@" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["workload"]["digest"])'; }
	D=$(digest "$W" --gpu H100)
	DI=$(digest --model llama-3.1-8b --task infer --tokens 1e6 --gpu H100)
	[ "$D" = "$(digest "$W" --gpu A100 --tokens 1e9)" ] && ok || bad "the digest depends on the GPU or the tokens"
	[ "$D" != "$(digest "$W" --micro-batch 2)" ] && ok || bad "the digest ignores micro_batch"
	python3 - "$CL" "$D" "$DI" <<'PY' && ok || bad "could not write probe rows into the test ledger"
import sqlite3, sys, calendar
db = sqlite3.connect(sys.argv[1])
def probe(at, gpu, digest, peak, mfu, rate, growth=0, count=1):
    db.execute("INSERT INTO probes (taken_at, host, gpu, gpu_count, workload_digest, model, steps, warmup, "
               "steady_step_seconds, peak_memory_bytes, memory_growth_bytes_per_step, units_per_step, "
               "units_per_second, units_are_samples, mfu, util_median, cpu_median, diagnoses, command, "
               "recorded_at) VALUES (?, 'box', ?, ?, ?, 'm', 40, 3, 0.9, ?, ?, 4096, ?, 0, ?, 97, 40, "
               "'warmup', 'python train.py', ?)", (at, gpu, count, digest, peak, growth, rate, mfu, at))
t = calendar.timegm((2026, 11, 20, 12, 0, 0))
probe(t - 86400, "NVIDIA H100 80GB HBM3", sys.argv[2], 50e9, 0.30, 5000)          # 1: older
probe(t, "NVIDIA H100 80GB HBM3", sys.argv[2], 30e9, 0.25, 4551, growth=2e6)      # 2: the latest
probe(t - 3600, "NVIDIA H100 80GB HBM3", sys.argv[3], 70e9, 0, 2000)              # 3: decoding
probe(t - 7200, "NVIDIA H100 80GB HBM3", sys.argv[2], 30e9, 25.888, 400000)       # 4: MFU 2588.8%, impossible
db.commit()
PY
	before=$(cksum <"$CL")
	run "$G" estimate "$W" --gpu H100 --json; cp "$T/out" "$T/plain.json"
	run "$G" estimate "$W" --gpu H100 --ledger "$CL" --calibrate latest --json; cp "$T/out" "$T/cal.json"
	[ "$rc" -eq 0 ] && ok || bad "calibrate latest: exit $rc $(cat "$T/err")"
	python3 - "$T/plain.json" "$T/cal.json" <<'PY' && ok || bad "estimate --calibrate latest on the probed GPU"
import json, sys
p, c = (json.load(open(f)) for f in sys.argv[1:3])
k = c["calibration"]
assert p["calibration"] is None
assert k["probe_id"] == 2 and k["probe_gpu_count"] == 1 and not k["workload_differs"], k
# time: the probe's MFU on the probed GPU; the estimate's own beside
assert k["time_calibrated"] and k["time_bound"] == "compute" and k["time_scale"] == 1, k
assert k["estimate_wall_seconds"] == p["time"]["wall_seconds"], k
assert c["time"]["wall_seconds"] == k["wall_seconds"] != p["time"]["wall_seconds"]
r = k["wall_seconds"] / k["estimate_wall_seconds"]
assert abs(r - p["time"]["mfu"] / 0.25) < 1e-9, r
assert abs(c["time"]["gpu_hours"] - k["wall_seconds"] / 3600) < 1e-9
# memory: the probe's peak replaces the total on the card and the tiers of its size or more
assert k["memory_calibrated"] and k["memory_total_bytes"] == 30e9, k
assert k["estimate_total_bytes"] == p["memory"]["total_bytes"] != 30e9
assert abs(c["fit"]["gpu_used_fraction"] - 30e9 / c["fit"]["gpu_memory_bytes"]) < 1e-12
for a, b in zip(p["fit"]["tiers"], c["fit"]["tiers"]):
    if a["tier_gb"] >= 80:
        assert abs(b["used_fraction"] - 30e9 / (b["tier_gb"] * 1e9)) < 1e-12, b
    else:
        assert a == b, (a, b)
# every number's key names its unit here too
units = ("_bytes", "_seconds", "_fraction", "_bytes_per_step")
for key, v in k.items():
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        assert key.endswith(units) or key in ("probe_id", "probe_gpu_count", "time_scale"), key
PY
	[ "$(cksum <"$CL")" = "$before" ] && ok || bad "estimate --calibrate changed the ledger"
	expect_ok calib-text 'Calibrated by probe 2 \(2026-11-20 12:00 UTC, 1x NVIDIA H100 80GB HBM3\)' \
		"$G" estimate "$W" --gpu H100 --ledger "$CL" --calibrate latest
	grep -q "the probe's MFU 25.0%" "$T/out" && grep -q "the estimate's own" "$T/out" && ok || bad "calib-text: the figures beside"
	grep -q '^  - calibrated by probe 2 .*: memory fit and wall time' "$T/out" && ok || bad "calib-text: no assumption line"
	grep -q 'memory grew 2.0 MB a step' "$T/out" && ok || bad "calib-text: the memory growth is not said"
	# GPURENT_LEDGER as the other commands read it; an id picks an older probe
	expect_ok calib-env 'Calibrated by probe 1 ' env GPURENT_LEDGER="$CL" "$G" estimate "$W" --gpu H100 --calibrate 1
	# a smaller card: its fit is not calibrated; the time scales by dense TFLOPS
	run "$G" estimate "$W" --gpu A100 --json; cp "$T/out" "$T/p40.json"
	run "$G" estimate "$W" --gpu A100 --ledger "$CL" --calibrate 2 --json; cp "$T/out" "$T/c40.json"
	python3 - "$T/p40.json" "$T/c40.json" <<'PY' && ok || bad "estimate --calibrate on a smaller, other card"
import json, sys
p, c = (json.load(open(f)) for f in sys.argv[1:3])
k = c["calibration"]
assert not k["memory_calibrated"] and k["memory_code"] == "smaller_card", k
assert c["fit"]["gpu_used_fraction"] == p["fit"]["gpu_used_fraction"], c["fit"]
assert abs(k["time_scale"] - 312 / 989.5) < 1e-9, k
assert abs(k["wall_seconds"] - c["time"]["total_flops"] / (0.25 * 312e12)) < 1e-6 * k["wall_seconds"], k
PY
	expect_ok calib-smaller 'fit on NVIDIA A100 40GB SXM: the estimate.s, not calibrated' \
		"$G" estimate "$W" --gpu A100 --ledger "$CL" --calibrate 2
	# decoding is bandwidth-bound: the probe's tokens/s scaled by the bandwidths
	run "$G" estimate --model llama-3.1-8b --task infer --tokens 1e6 --gpu A100-80GB --ledger "$CL" --calibrate 3 --json
	python3 - "$T/out" <<'PY' && ok || bad "estimate --calibrate a decoding probe"
import json, sys
d = json.load(open(sys.argv[1]))
k = d["calibration"]
assert k["time_calibrated"] and k["time_bound"] == "memory", k
assert abs(k["time_scale"] - 2039 / 3350) < 1e-9, k
assert abs(d["time"]["decode_tokens_per_second"] - 2000 * 2039 / 3350) < 1e-6, d["time"]
assert k["probe_mfu_fraction"] == 0
PY
	expect_ok calib-decode 'decode is bandwidth-bound.*scaled by the ratio of memory bandwidths' \
		"$G" estimate --model llama-3.1-8b --task infer --tokens 1e6 --gpu A100-80GB --ledger "$CL" --calibrate 3
	# another workload: latest is refused, an explicit id is used with one warning
	expect_err calib-other-latest 1 'measured another workload' \
		"$G" estimate "$W" --micro-batch 2 --gpu H100 --ledger "$CL" --calibrate latest
	grep -q 'give --calibrate 2 to use it anyway' "$T/err" && ok || bad "calib-other-latest: no advice"
	run "$G" estimate "$W" --micro-batch 2 --gpu H100 --ledger "$CL" --calibrate 2
	[ "$rc" -eq 0 ] && [ "$(grep -c 'warning: --calibrate 2: probe 2 .*measured another workload' "$T/err")" = 1 ] &&
		[ "$(wc -l <"$T/err")" = 1 ] && grep -q 'Calibrated by probe 2' "$T/out" && ok ||
		bad "calib-other-id: exit $rc $(cat "$T/err")"
	expect_err calib-missing-id 1 'no probe with id 9' "$G" estimate "$W" --ledger "$CL" --calibrate 9
	# an MFU above 1 is a step faster than the card's peak: refused, for that reason, by every command
	# (issue 29: 8077 TFLOPS on a 312-TFLOPS card once calibrated a plan)
	IMP='is impossible: its MFU of 2588.8% is above 100%, steps faster than the card'
	expect_err calib-impossible-estimate 1 "--calibrate 4: probe 4 (" "$G" estimate "$W" --gpu H100 --ledger "$CL" --calibrate 4
	grep -qF "$IMP" "$T/err" && ok || bad "estimate --calibrate 4: not the reason: $(cat "$T/err")"
	expect_err calib-impossible-plan 1 "$IMP" "$G" plan "$W" --tokens 1e9 --ledger "$CL" --calibrate 4
fi
# --mfu by hand: the same bound, with its reason
expect_err mfu-above-1 2 "--mfu: expected a utilisation in (0, 1]" "$G" estimate "$W" --gpu H100 --mfu 5
grep -q "faster than its peak" "$T/err" && ok || bad "--mfu 5: no reason: $(cat "$T/err")"
expect_err mfu-zero 2 "--mfu: expected a utilisation in (0, 1]" "$G" estimate "$W" --gpu H100 --mfu 0

# --- issue 30 / issue 29 item 8: every factor applied is said, the defaults
# taken and the unset fields that move the answer most, in text and JSON
run "$G" estimate --model llama-2-7b --task qlora --tokens 1e8 --gpu A100-80GB
[ "$rc" -eq 0 ] && grep -q 'time: x1.62 a step for the quantized base' "$T/out" &&
	grep -q 'defaults taken (no framework given; set a field to change it): loss=full activation_checkpointing=none' "$T/out" &&
	grep -q '? most sensitive: flash_attention=false (not given) would change the memory +' "$T/out" && ok ||
	bad "estimate qlora: factor, defaults, sensitive field not printed"
if need_py "estimate --json assumptions and sensitive"; then
	run "$G" estimate --model llama-2-7b --task qlora --tokens 1e8 --gpu A100-80GB --framework hf --json
	python3 - "$T/out" <<'PY' && ok || bad "estimate --json: qlora_slowdown, framework_defaults, sensitive"
import json, sys
d = json.load(open(sys.argv[1]))
assert abs(d["time"]["step_slowdown"] - 3.83 / 2.36) < 1e-9, d["time"]
c = d["assumption_codes"]
assert "qlora_slowdown" in c and c[-1] == "framework_defaults", c
assert "(hf;" in d["assumptions"][-1], d["assumptions"][-1]
s = d["sensitive"]
assert 1 <= len(s) <= 2 and all(set(x) == {"field", "value", "memory_change_fraction", "time_change_fraction"} for x in s), s
# hf checkpoints by default: turning it off moves the answer most
assert s[0]["field"] == "grad_checkpointing" and s[0]["value"] == "false" and s[0]["memory_change_fraction"] > 0.3, s
PY
	# a field given is never listed
	run "$G" estimate --model llama-2-7b --task qlora --tokens 1e8 --gpu A100-80GB --framework hf --grad-checkpointing false --json
	python3 - "$T/out" <<'PY' && ok || bad "estimate --json: a given field listed as sensitive"
import json, sys
d = json.load(open(sys.argv[1]))
assert all(x["field"] != "grad_checkpointing" for x in d["sensitive"]), d["sensitive"]
PY
fi

finish
