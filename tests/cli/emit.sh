#!/bin/sh
# tests/cli/emit.sh - the workload and the task together (`plan WORKLOAD
# TASK`, `--sky`), every document of a pipeline, num_nodes across nodes,
# and `plan --emit sky`, whose task gpurent reads back as a task.
# Prints "emit: N passed, M failed".
NAME=emit
. "$(dirname "$0")/lib/common.sh"

D=$ROOT/tests/data

# SkyPilot clouds and a domestic platform, whole instances
cat >cat.csv <<'EOF'
provider,supply_type,instance,region,gpu,gpu_count,slice,gpu_mem_gb,vcpus,ram_gb,disk_gb,persistent_storage,price,spot_price,currency,billing,queue_wait,max_runtime,source,date
Gongji,ai-cloud,A100 x1,cn-east,A100,1,whole,40,16,64,200,yes,0.50,,USD,per-second,,,test fixture,2026-11
lambda,ai-cloud,gpu_1x_a100,us-east-1,A100,1,whole,40,30,200,512,yes,1.29,,USD,per-second,,,test fixture,2026-11
aws,hyperscaler,p4d.24xlarge,us-east-1,A100,8,whole,40,96,1152,8000,yes,32.77,12.00,USD,per-second,,,test fixture,2026-11
EOF
cat >wl.yaml <<'EOF'
model: llama-3-8b
task: lora
tokens: 1e8
resumable: true
EOF

# the workload and the task as two files: the task's A100 (one, 40 GB)
run "$G" plan wl.yaml "$D/sky-a100.yaml" --catalog cat.csv --json
[ "$rc" -eq 0 ] && ok || bad "plan WORKLOAD TASK: exit $rc: $(head -2 "$T/err")"
if need_py "the emitted task's accelerators"; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["ranked"]
assert r and all(c["gpu"].startswith("NVIDIA A100") and c["gpus"] == 1 for c in r), r' "$T/out" \
		&& ok || bad "the task's accelerators: A100 rules: $(head -c 300 "$T/out")"
fi
# --sky is the same
run "$G" plan wl.yaml --sky "$D/sky-a100.yaml" --catalog cat.csv --json
cp "$T/out" sky.json
run "$G" plan wl.yaml "$D/sky-a100.yaml" --catalog cat.csv --json
cmp -s sky.json "$T/out" && ok || bad "--sky TASK equals the second operand"
expect_err "--sky and a second task" 2 "give one" "$G" plan wl.yaml "$D/sky-a100.yaml" --sky "$D/sky-a100.yaml"
expect_err "three files" 2 "a third" "$G" plan wl.yaml "$D/sky-a100.yaml" "$D/sky-a100.yaml"
# a task file that is no task is refused, whatever its keys
cat >tool.yaml <<'EOF'
model: llama
epochs: 3
gradient_checkpointing: true
EOF
expect_err "a tool config as the task" 2 "not a SkyPilot task" "$G" plan wl.yaml --sky tool.yaml --catalog cat.csv
# a task alone, the workload as flags
run "$G" plan "$D/sky-a100.yaml" --model llama-3-8b --task lora --tokens 1e8 --catalog cat.csv
[ "$rc" -eq 0 ] && ok || bad "a task alone with flags: exit $rc: $(head -2 "$T/err")"

# num_nodes: the job spans nodes; gpus count over all of them, billed per node
cat >nodes.yaml <<'EOF'
num_nodes: 2
resources:
  accelerators: A100:8
EOF
run "$G" plan wl.yaml nodes.yaml --catalog cat.csv --json
if need_py "num_nodes 2 of 8 A100"; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d["ranked"][0]
assert c["nodes"] == 2 and c["gpus"] == 16, c' "$T/out" && ok || bad "num_nodes 2 of 8 A100: $(head -c 300 "$T/out")"
	run "$G" plan wl.yaml --sky "$D/sky-a100.yaml" --catalog cat.csv --json --only aws --gpus 8
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert not d["ranked"]' "$T/out" \
		&& ok || bad "one A100 asked: the 8-GPU box is not it"
fi
run "$G" plan wl.yaml nodes.yaml --catalog cat.csv
grep -q "Across 2 nodes" "$T/out" && ok || bad "the plan says it spans 2 nodes"

# a pipeline: every document in turn, notes on what is not planned
run "$G" plan wl.yaml "$D/sky-pipeline.yaml" --catalog cat.csv
[ "$rc" -le 1 ] && ok || bad "pipeline: exit $rc: $(head -2 "$T/err")"
n=$(grep -c '^Task document [0-9]* of ' "$T/out")
docs=$(grep -c '^---' "$D/sky-pipeline.yaml")
[ "$n" -eq $((docs + 1)) ] && ok || bad "pipeline: $n documents planned, the file has $((docs + 1))"
grep -q '^note: pool:' "$T/out" && ok || bad "pipeline: the pool: note"
grep -q '^note: execution:' "$T/out" && ok || bad "pipeline: the execution: note"
run "$G" plan wl.yaml "$D/sky-pipeline.yaml" --catalog cat.csv --json
if need_py "pipeline --json"; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert isinstance(d, list) and len(d) >= 2, d' \
		"$T/out" && ok || bad "pipeline --json: an array of plans"
fi

# readback NAME FILE: every emitted task is read back by a YAML parser:
# gpurent's own (libyaml) always, PyYAML (SkyPilot's loader) when present
# (one SKIP line for all the PyYAML read-backs when it is absent)
[ "$HAVE_PYYAML" = 1 ] || say_skip "the PyYAML read-backs of every emitted task" "python3 with PyYAML is not installed (tools/deps.sh installs python3-yaml)"
readback() {
	run "$G" plan wl.yaml "$2" --catalog cat.csv --json
	[ "$rc" -eq 0 ] && ok || bad "$1: gpurent does not read the emitted task back: exit $rc: $(head -2 "$T/err")"
	if [ $HAVE_PYYAML = 1 ]; then
		python3 -c 'import yaml,sys; list(yaml.safe_load_all(open(sys.argv[1], encoding="utf-8")))' "$2" \
			&& ok || bad "$1: PyYAML does not read the emitted task back"
	fi
}

# --emit sky: the best ranked choice on a SkyPilot cloud (Gongji is cheaper
# but not one), read back by gpurent as a task
run "$G" plan wl.yaml "$D/sky-a100.yaml" --catalog cat.csv --emit sky
[ "$rc" -eq 0 ] && ok || bad "--emit sky: exit $rc: $(head -2 "$T/err")"
cp "$T/out" emitted.yaml
cp "$T/err" emitted.err
readback "--emit sky" emitted.yaml
grep -q 'accelerators: "A100:1"' emitted.yaml && ok || bad "emitted accelerators: $(grep accel emitted.yaml)"
grep -q 'infra: "lambda/us-east-1"' emitted.yaml && ok || bad "emitted infra: $(grep infra emitted.yaml)"
grep -q 'choice #2' emitted.err && ok || bad "--emit sky says it skipped the non-SkyPilot choice: $(cat emitted.err)"
grep -q 'gpurent run --max-runtime [0-9]*m ' emitted.yaml && ok || bad "emitted run wraps gpurent run"
grep -q -- '--ckpt-dir /checkpoints' emitted.yaml && ok || bad "resumable: the checkpoint directory"
grep -q '^  echo\|python train.py' emitted.yaml && ok || bad "the task's run: kept"
run "$G" plan wl.yaml emitted.yaml --catalog cat.csv --json
[ "$rc" -eq 0 ] && ok || bad "the emitted task plans: exit $rc: $(head -2 "$T/err")"
if need_py "the emitted task pins the choice"; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["ranked"]
assert len(r) == 1 and r[0]["provider"] == "lambda" and r[0]["instance"] == "gpu_1x_a100", r' "$T/out" \
		&& ok || bad "the emitted task pins the choice: $(head -c 300 "$T/out")"
fi
expect_err "--emit and --json" 2 "give one" "$G" plan wl.yaml --emit sky --json
run "$G" plan wl.yaml "$D/sky-a100.yaml" --catalog cat.csv --only Gongji --emit sky
[ "$rc" -eq 1 ] && grep -q 'SkyPilot launches on' "$T/err" && ok || bad "no SkyPilot cloud ranked: exit $rc: $(cat "$T/err")"
# a pipeline emits one task document per planned job
run "$G" plan wl.yaml "$D/sky-pipeline.yaml" --catalog cat.csv --emit sky
cp "$T/out" pipeline-emitted.yaml
readback "pipeline --emit sky" pipeline-emitted.yaml
run "$G" plan wl.yaml "$D/sky-pipeline.yaml" --catalog cat.csv --emit sky
if need_pyyaml "pipeline --emit sky read by PyYAML"; then
	python3 -c 'import yaml,sys; d=list(yaml.safe_load_all(open(sys.argv[1]))); d=[x for x in d if x]
assert len(d) >= 2 and all("resources" in x and "run" in x for x in d), d' "$T/out" \
		&& ok || bad "pipeline --emit sky: one task per job"
fi

# emit-sky-line-separator: YAML's line breaks U+2028, U+2029, U+0085 (and a
# C1 control, a byte order mark) in run, setup, name and an env are written
# so that they read back the same: escaped in double quotes, never raw in a
# literal block; a setup without a final newline reads back without one
printf 'name: "n\\Lm"\nresources:\n  accelerators: A100:1\nenvs:\n  E: "a\\Pb\\x85c"\nsetup: "pip x\\Npip y\\x9b\\uFEFFz"\nrun: "echo one\\Lecho two"\n' >ls.yaml
printf 'resources:\n  accelerators: A100:1\nsetup: "pip a\\n  pip b"\nrun: "echo \\Ptwo\\n"\n' >ls2.yaml
for task in ls.yaml ls2.yaml; do
	run "$G" plan wl.yaml "$task" --catalog cat.csv --emit sky
	[ "$rc" -eq 0 ] && ok || bad "--emit sky of $task: exit $rc: $(head -2 "$T/err")"
	cp "$T/out" "emitted-$task"
	if grep -q "$(printf '\342\200[\250\251]\|\302\205')" "emitted-$task"; then
		bad "$task: a raw YAML line break in the emitted task: $(grep -n "$(printf '\342\200[\250\251]\|\302\205')" "emitted-$task")"
	else ok; fi
	readback "--emit sky of $task" "emitted-$task"
done
if need_pyyaml "the line separators read back equal"; then
	python3 -c 'import yaml,sys
a = yaml.safe_load(open("ls.yaml", encoding="utf-8")); b = yaml.safe_load(open("emitted-ls.yaml", encoding="utf-8"))
assert b["name"] == a["name"] and b["setup"] == a["setup"], (a, b)
assert b["envs"]["E"] == a["envs"]["E"] and b["envs"]["GPURENT_JOB"] == a["run"], (a, b)
a = yaml.safe_load(open("ls2.yaml", encoding="utf-8")); b = yaml.safe_load(open("emitted-ls2.yaml", encoding="utf-8"))
assert b["setup"] == a["setup"] and b["envs"]["GPURENT_JOB"] == a["run"], (a, b)' \
		&& ok || bad "the emitted name, setup, envs and run read back the same"
fi

# a service plan keeps to the task's resources too
cat >h100.yaml <<'EOF2'
resources:
  accelerators: H100:1
EOF2
run "$G" plan "$ROOT/examples/serve-8b.yaml" h100.yaml --json
if need_py "a service under a task"; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["ranked"]
assert r and all("H100" in c["gpu"] and c["gpus_per_box"] == 1 for c in r), r' "$T/out" \
		&& ok || bad "a service under a task: only 1x H100 boxes: $(head -c 300 "$T/out")"
fi

finish
