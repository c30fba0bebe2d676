#!/bin/sh
# tests/cli/frameworks.sh - the framework field end to end: help lists each
# framework's defaults, the loss each one counts (issue 12's acceptance:
# torchtune on Llama-3.1-8B LoRA at micro-batch 2 x 2048 a chunked loss, hf
# the full one), the JSON states the defaults in effect, and bad values
# get one line and exit 2. Prints "frameworks: N passed, M failed".
NAME=frameworks
. "$(dirname "$0")/lib/common.sh"

# help estimate lists every framework the field accepts, with its defaults
run "$G" help estimate
[ "$rc" -eq 0 ] && ok || bad "help estimate: exit $rc"
for fw in hf liger llm.c torchtune unsloth litgpt deepspeed fsdp torchtitan megatron vllm llama.cpp sglang; do
	grep -q "^  $fw  *.*: " "$T/out" && ok || bad "help estimate does not list the defaults of $fw"
done
grep -q "^  torchtune .*loss chunked (8 chunks)" "$T/out" && ok || bad "help: torchtune's chunked loss"
grep -q "^  vllm .*gpu_memory_utilization 90%" "$T/out" && ok || bad "help: vLLM's reservation"

# the loss each framework counts, in the JSON (bytes) and the text
L="--model llama-3.1-8b --task lora --micro-batch 2 --seq 2048 --precision bf16-true"
run "$G" estimate $L --framework torchtune --json
[ "$rc" -eq 0 ] && ok || bad "torchtune: exit $rc"
cp "$T/out" tt.json
run "$G" estimate $L --framework hf --json
[ "$rc" -eq 0 ] && ok || bad "hf: exit $rc"
cp "$T/out" hf.json
if need_py "torchtune chunked vs hf full loss"; then
	python3 - tt.json hf.json <<'PY' && ok || bad "torchtune chunked vs hf full loss"
import json, sys
tt, hf = (json.load(open(p)) for p in sys.argv[1:3])
n, V = 2 * 2048, 128256
# full: bf16 logits + fp32 log-softmax + its gradient (2 + 8 bytes a logit)
assert abs(hf["memory"]["logits_bytes"] - n * V * 10) < 1, hf["memory"]["logits_bytes"]
# chunked: bf16 logits + one of 8 chunks upcast (8 bytes a logit)
assert abs(tt["memory"]["logits_bytes"] - (n * V * 2 + n / 8 * V * 8)) < 1, tt["memory"]["logits_bytes"]
assert tt["workload"]["loss"] == "chunked" and hf["workload"]["loss"] == "full"
# torchtune's own defaults, stated: full recomputation, a fused AdamW
assert tt["workload"]["activation_checkpointing"] == "full", tt["workload"]
assert tt["workload"]["optimizer_step"] == "fused", tt["workload"]
assert hf["workload"]["activation_checkpointing"] == "none", hf["workload"]
PY
fi
run "$G" estimate $L --framework torchtune
grep -q "chunked" "$T/out" && ok || bad "text: torchtune's loss not said chunked"
grep -q "torchtune" "$T/out" && ok || bad "text: the framework not named"

# serving: vLLM reserves 90% of the card, and says so
run "$G" estimate --model llama-3.1-8b --task infer --framework vllm --gpu H100
[ "$rc" -eq 0 ] && ok || bad "vllm: exit $rc"
grep -q "reserves 90% of the card" "$T/out" && ok || bad "vllm: the reservation not said: $(grep total "$T/out")"
grep -q "^Recommended: 24 GB tier" "$T/out" && ok || bad "vllm: the tier not judged by the need: $(grep Recommended "$T/out")"
run "$G" estimate --model llama-3.1-8b --task infer --framework vllm --gpu H100 --gpu-memory-utilization 50%
grep -q "reserves 50% of the card" "$T/out" && ok || bad "vllm: gpu_memory_utilization not taken"
run "$G" estimate --model llama-3.1-8b --task infer --framework vllm --gpu RTX4090 --gpu-memory-utilization 50%
grep -q "short of the need, it will not start" "$T/out" && grep -q "DOES NOT FIT" "$T/out" && ok \
	|| bad "vllm: a share under the need said to fit: $(grep -E 'reserved|On ' "$T/out")"

# bad input: one line, exit 2, naming the field
run "$G" estimate --model llama-3.1-8b --framework pytorch-lightning
[ "$rc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "framework" "$T/err" && ok \
	|| bad "unknown framework: exit $rc: $(cat "$T/err")"
run "$G" estimate --model llama-3.1-8b --activation-checkpointing partial
[ "$rc" -eq 2 ] && grep -q "activation.checkpointing" "$T/err" && ok || bad "bad activation_checkpointing: exit $rc"
run "$G" estimate --model llama-3.1-8b --grad-checkpointing --activation-checkpointing none
[ "$rc" -eq 2 ] && grep -q "grad.checkpointing: says true" "$T/err" && ok || bad "conflict not refused: exit $rc"
run "$G" estimate --model llama-3.1-8b --prefill-chunk 512
[ "$rc" -eq 2 ] && grep -q "prefill.chunk: applies to task infer" "$T/err" && ok || bad "prefill_chunk on training: exit $rc"
# combinations no run can have: refused, naming the field
for c in "framework:--framework vllm" "framework:--framework llama.cpp --task lora" \
	 "optimizer.step:--optimizer-step in_bwd --grad-accum 8" \
	 "grad.checkpointing:--task infer --grad-checkpointing" \
	 "optimizer.step:--task infer --optimizer-step fused" \
	 "gpu.memory.utilization:--task infer --gpu-memory-utilization 80%" \
	 "gpus:--task infer --gpus 3"; do
	field=${c%%:*}; args=${c#*:}
	run "$G" estimate --model llama-3.1-8b $args
	[ "$rc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q -- "--$field" "$T/err" && ok \
		|| bad "$args: exit $rc: $(cat "$T/err")"
done
run "$G" estimate --model resnet-50 --activation-checkpointing selective
[ "$rc" -eq 2 ] && grep -q "activation.checkpointing" "$T/err" && ok || bad "selective on a CNN: exit $rc"
# llama.cpp splits layers, not heads: any GPU count
run "$G" estimate --model llama-3.1-8b --task infer --gpus 3 --framework llama.cpp
[ "$rc" -eq 0 ] && ok || bad "llama.cpp on 3 GPUs: exit $rc: $(cat "$T/err")"
printf 'model: llama-3.1-8b\nframework: torchtune\noptimizer_step: sideways\n' >bad.yaml
run "$G" estimate bad.yaml
[ "$rc" -eq 2 ] && grep -q "bad.yaml:3: optimizer_step" "$T/err" && ok || bad "yaml optimizer_step: exit $rc: $(cat "$T/err")"

finish
