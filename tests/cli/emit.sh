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
gcp,hyperscaler,g2-standard-8,us-central1,L4,1,whole,24,8,32,100,yes,2.85,0.90,USD,per-second,,,test fixture,2026-11
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
	skyvalid "$1" "$2" --allow execution
	run "$G" plan wl.yaml "$2" --catalog cat.csv --json
	# read back as a task (1: a document whose offers do not fit this workload)
	[ "$rc" -le 1 ] && ok || bad "$1: gpurent does not read the emitted task back: exit $rc: $(head -2 "$T/err")"
	if [ $HAVE_PYYAML = 1 ]; then
		python3 -c 'import yaml,sys; list(yaml.safe_load_all(open(sys.argv[1], encoding="utf-8")))' "$2" \
			&& ok || bad "$1: PyYAML does not read the emitted task back"
	fi
}

[ "$HAVE_JSONSCHEMA" = 1 ] || say_skip "every emitted task against SkyPilot's task schema" "python3-jsonschema or PyYAML is not installed (tools/deps.sh installs them)"

# --emit sky: the best ranked choice on a SkyPilot cloud (Gongji is cheaper
# but not one), read back by gpurent as a task
run "$G" plan wl.yaml "$D/sky-a100.yaml" --catalog cat.csv --emit sky
[ "$rc" -eq 0 ] && ok || bad "--emit sky: exit $rc: $(head -2 "$T/err")"
cp "$T/out" emitted.yaml
cp "$T/err" emitted.err
readback "--emit sky" emitted.yaml
grep -q 'accelerators: "A100:1"' emitted.yaml && ok || bad "emitted accelerators: $(grep accel emitted.yaml)"
# issue 29: gpurent's own catalog names no SkyPilot instance: the cloud only, and stderr says why
grep -q 'infra: "lambda"$' emitted.yaml && ok || bad "emitted infra (the cloud alone): $(grep infra emitted.yaml)"
grep -q '^  instance_type' emitted.yaml && bad "an instance_type from gpurent's catalog: $(grep instance_type emitted.yaml)" || ok
grep -q 'no instance_type or region: the offer is from cat.csv, not a SkyPilot catalog' emitted.err && ok \
	|| bad "--emit sky says why there is no instance_type: $(cat emitted.err)"
grep -q 'choice #2' emitted.err && ok || bad "--emit sky says it skipped the non-SkyPilot choice: $(cat emitted.err)"
grep -q 'gpurent run --max-runtime [0-9]*m ' emitted.yaml && ok || bad "emitted run wraps gpurent run"
grep -q -- '--ckpt-dir /checkpoints' emitted.yaml && ok || bad "resumable: the checkpoint directory"
grep -q '^  echo\|python train.py' emitted.yaml && ok || bad "the task's run: kept"
run "$G" plan wl.yaml emitted.yaml --catalog cat.csv --json
[ "$rc" -eq 0 ] && ok || bad "the emitted task plans: exit $rc: $(head -2 "$T/err")"
if need_py "the emitted task keeps to its cloud"; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["ranked"]
assert r and all(c["provider"] == "lambda" for c in r), r' "$T/out" \
		&& ok || bad "the emitted task keeps to lambda: $(head -c 300 "$T/out")"
fi
# from SkyPilot's own catalog (a vms.csv in a folder named for the cloud)
# the instance and region are SkyPilot's names, and the task pins them
mkdir -p skycat/lambda
printf 'InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\r\ngpu_1x_a100_sxm4,A100,1.0,30,200,1.29,us-east-1,"{\x27Gpus\x27: [{\x27Name\x27: \x27A100\x27, \x27Manufacturer\x27: \x27NVIDIA\x27, \x27Count\x27: 1.0, \x27MemoryInfo\x27: {\x27SizeInMiB\x27: 40960}}], \x27TotalGpuMemoryInMiB\x27: 40960}",\r\n' >skycat/lambda/vms.csv
run "$G" plan wl.yaml "$D/sky-a100.yaml" --catalog skycat/lambda/vms.csv --emit sky
cp "$T/out" pinned.yaml
grep -q 'instance_type: "gpu_1x_a100_sxm4"' pinned.yaml && grep -q 'infra: "lambda/us-east-1"' pinned.yaml && ok \
	|| bad "a SkyPilot catalog's offer: instance_type and region pinned: $(grep -E 'infra|instance' pinned.yaml)"
skyvalid "--emit sky from a SkyPilot catalog" pinned.yaml --in "$D/sky-a100.yaml" --catalog skycat --on-demand
run "$G" plan wl.yaml pinned.yaml --catalog skycat/lambda/vms.csv --json
if need_py "the emitted task pins the choice"; then
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["ranked"]
assert len(r) == 1 and r[0]["provider"] == "lambda" and r[0]["instance"] == "gpu_1x_a100_sxm4", r' "$T/out" \
		&& ok || bad "the emitted task pins the choice: $(head -c 300 "$T/out")"
fi
expect_err "--emit and --json" 2 "give one" "$G" plan wl.yaml --emit sky --json
run "$G" plan wl.yaml "$D/sky-a100.yaml" --catalog cat.csv --only Gongji --emit sky
[ "$rc" -eq 1 ] && grep -q 'SkyPilot launches on' "$T/err" && ok || bad "no SkyPilot cloud ranked: exit $rc: $(cat "$T/err")"
# a pipeline emits one task document per planned job (a small job: every
# document has an offer that fits, the L4 of eval too)
PWL="--model gpt2 --task lora --tokens 1e6"
run "$G" plan "$D/sky-pipeline.yaml" $PWL --catalog cat.csv --emit sky
[ "$rc" -eq 0 ] && ok || bad "pipeline --emit sky: exit $rc: $(head -2 "$T/err")"
cp "$T/out" pipeline-emitted.yaml
readback "pipeline --emit sky" pipeline-emitted.yaml
run "$G" plan "$D/sky-pipeline.yaml" $PWL --catalog cat.csv --emit sky
if need_pyyaml "pipeline --emit sky read by PyYAML"; then
	python3 -c 'import yaml,sys; d=list(yaml.safe_load_all(open(sys.argv[1]))); d=[x for x in d if x]
a=[x for x in yaml.safe_load_all(open(sys.argv[2])) if x]
assert len(d) == len(a) and all("resources" in x for x in d), d
assert all(("run" in x) == ("run" in y) for x, y in zip(a, d)), (a, d)' "$T/out" "$D/sky-pipeline.yaml" \
		&& ok || bad "pipeline --emit sky: one task per job, a run where the job has one"
fi
# (its head document carries a job group's execution:, which SkyPilot's
# task schema does not take: carried over, left out of the schema check)
skyvalid "pipeline --emit sky" "$T/out" --in "$D/sky-pipeline.yaml" --allow execution

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
assert b["envs"]["E"] == a["envs"]["E"] and "\n" + a["run"] + "\n" in b["run"], (a, b)
a = yaml.safe_load(open("ls2.yaml", encoding="utf-8")); b = yaml.safe_load(open("emitted-ls2.yaml", encoding="utf-8"))
assert b["setup"] == a["setup"] and "\n" + a["run"] in b["run"], (a, b)' \
		&& ok || bad "the emitted name, setup, envs and run read back the same"
fi

# issue 29: the bundled catalog's display labels ("A100 SXM 80GB x1
# (Community Cloud)") are never an instance_type: the cloud alone, or the
# instance SkyPilot's own catalog for that cloud names for the same GPUs
cat >rp.yaml <<'EOF2'
resources:
  accelerators: A100-80GB:1
  infra: runpod
run: python train.py
EOF2
mkdir -p skycat/runpod
printf 'InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Region,SpotPrice,Price,AvailabilityZone\r\n1x_A100-80GB_SECURE,A100-80GB,1.0,8,117,A100-80GB,CA,,1.99,CA-MTL-1\r\n' >skycat/runpod/vms.csv
run "$G" plan rp.yaml $PWL --catalog "$ROOT/data/offers.csv" --emit sky
grep -q '^  instance_type' "$T/out" && bad "a gpurent label as instance_type: $(grep instance_type "$T/out")" || ok
grep -q 'infra: "runpod"$' "$T/out" && ok || bad "the bundled RunPod offer: infra runpod alone: $(grep infra "$T/out")"
skyvalid "--emit sky of the bundled RunPod offer" "$T/out" --in rp.yaml --on-demand
run "$G" plan rp.yaml $PWL --catalog "$ROOT/data/offers.csv" --catalog skycat/runpod/vms.csv --only marketplace --emit sky
grep -q 'instance_type: "1x_A100-80GB_SECURE"' "$T/out" && grep -q 'infra: "runpod"$' "$T/out" && ok \
	|| bad "SkyPilot's RunPod catalog names the instance: $(grep -E 'infra|instance|choice' "$T/out") $(cat "$T/err")"
grep -q "instance_type from SkyPilot's catalog skycat/runpod/vms.csv" "$T/err" && ok || bad "stderr names the catalog: $(cat "$T/err")"
skyvalid "--emit sky with SkyPilot's RunPod catalog" "$T/out" --in rp.yaml --catalog skycat --on-demand

# the README's example as tests/cli/i18n.sh emits it
run "$G" plan "$ROOT/examples/lora-7b.yaml" --emit sky --currency USD
[ "$rc" -eq 0 ] && ok || bad "lora-7b --emit sky: exit $rc: $(head -2 "$T/err")"
skyvalid "lora-7b --emit sky" "$T/out" --on-demand

# a workload file with a resources: section: its own fields are gpurent's,
# not the task's, and stay out of the emitted task
printf 'model: gpt2\ntask: lora\ntokens: 1e6\nresources:\n  accelerators: A100:1\n' >mixed.yaml
run "$G" plan mixed.yaml --catalog cat.csv --emit sky
grep -q '^model:\|^tokens:\|^task:' "$T/out" && bad "the workload's fields in the task: $(head -c 300 "$T/out")" || ok
skyvalid "--emit sky of a workload file's resources:" "$T/out"

# issue 29: every key gpurent does not change is carried over as written
# (a vLLM server task: its image, port, service, secrets, envs, mounts,
# volumes, config and nodes), and use_spot only as the task or --spot says
cat >vllm.yaml <<'EOF2'
name: vllm-server
workdir: .
num_nodes: 1
resources:
  accelerators: {A100, L4}
  image_id: docker:vllm/vllm-openai
  ports: 8000
  labels:
    team: infer
  network_tier: best
service:
  readiness_probe: /v1/models
  replicas: 2
secrets:
  HF_TOKEN: null
envs:
  MODEL: meta-llama/Llama-3.1-8B
  MAX_LEN: 4096
file_mounts:
  /data:
    source: s3://my-bucket/data
    mode: MOUNT
volumes:
  /vol: my-volume
config:
  docker:
    run_options: ["--shm-size=16g"]
run: |
  vllm serve $MODEL --max-model-len $MAX_LEN
EOF2
run "$G" plan vllm.yaml $PWL --catalog cat.csv --emit sky
[ "$rc" -eq 0 ] && ok || bad "--emit sky of a vLLM task: exit $rc: $(head -2 "$T/err")"
cp "$T/out" vllm-out.yaml
skyvalid "--emit sky of a vLLM task keeps its keys, on demand" vllm-out.yaml --in vllm.yaml --on-demand
grep -q '^  use_spot' vllm-out.yaml && bad "use_spot written though the task set none: $(grep use_spot vllm-out.yaml)" || ok
grep -q 'job_recovery' vllm-out.yaml && bad "job_recovery for an on-demand task" || ok
# the plan's spot advice, when it has one, is a comment, never a use_spot
run "$G" plan "$D/sky-a100.yaml" $PWL --catalog cat.csv --only aws --gpus 8 --emit sky
if grep -q 'expected [0-9.]* USD with restarts' "$T/out"; then
	grep -q '^  use_spot' "$T/out" && bad "spot advice became use_spot" || ok
else ok; fi
# --spot (or the task's use_spot: true) asks spot: use_spot: true and a recovery
run "$G" plan vllm.yaml $PWL --catalog cat.csv --only gcp --emit sky --spot
cp "$T/out" spot-out.yaml
grep -q '^  use_spot: true' spot-out.yaml && grep -q 'strategy: FAILOVER' spot-out.yaml && ok \
	|| bad "--spot: use_spot: true and job_recovery: $(grep -E 'spot|strategy' spot-out.yaml) $(cat "$T/err")"
skyvalid "--emit sky --spot" spot-out.yaml --in vllm.yaml

# issue 29: a service plan emits a SkyPilot service (service: with a
# readiness probe and the plan's replicas, resources.ports), exit 0
run "$G" plan "$ROOT/examples/serve-8b.yaml" --emit sky
[ "$rc" -eq 0 ] && ok || bad "serve-8b --emit sky: exit $rc: $(head -2 "$T/err")"
cp "$T/out" serve-out.yaml
grep -q '^service:' serve-out.yaml && grep -q '^  readiness_probe:' serve-out.yaml && grep -q '^  replicas: [1-9]' serve-out.yaml \
	&& ok || bad "serve-8b --emit sky is no SkyPilot service: $(head -c 400 serve-out.yaml)"
grep -q '^gpurent plan:' serve-out.yaml && bad "serve-8b --emit sky printed plan text" || ok
skyvalid "serve-8b --emit sky" serve-out.yaml --service --on-demand
# a service task keeps its own probe, run and image; replicas are the plan's
run "$G" plan "$ROOT/examples/serve-8b.yaml" vllm.yaml --emit sky
[ "$rc" -eq 0 ] && ok || bad "serve-8b with a vLLM task --emit sky: exit $rc: $(head -2 "$T/err")"
cp "$T/out" serve-task.yaml
grep -q 'readiness_probe: /v1/models' serve-task.yaml && grep -q 'image_id: docker:vllm/vllm-openai' serve-task.yaml \
	&& grep -q 'vllm serve \$MODEL' serve-task.yaml && ok || bad "the service task's own keys: $(head -c 600 serve-task.yaml)"
skyvalid "serve-8b with a vLLM task --emit sky" serve-task.yaml --service

# the real SkyPilot tasks of ../shared/data/sky-tasks, planned and emitted
# with the real catalogs: every task that plans is one SkyPilot takes as it
# is, keeps its keys and names instance types of the catalog it came from
if need_shared data/sky-tasks "the real SkyPilot tasks planned and emitted" &&
	need_shared data/catalogs "the real SkyPilot tasks planned and emitted" && [ "$HAVE_JSONSCHEMA" = 1 ]; then
	planned=0 valid=0 refused=0 total=0 badlist=""
	for f in "$ROOT"/../shared/data/sky-tasks/*.yaml; do
		total=$((total + 1))
		"$G" plan "$f" $PWL --catalog "$ROOT/../shared/data/catalogs" --emit sky >real.yaml 2>real.err
		r=$?
		[ "$r" -eq 2 ] && refused=$((refused + 1))
		[ "$r" -eq 2 ] && ! grep -q 'not a SkyPilot task\|SkyPilot' real.err && badlist="$badlist $(basename "$f"):refused"
		[ "$r" -eq 0 ] || continue
		planned=$((planned + 1))
		# a pipeline's head document of a job group carries execution:
		if python3 "$ROOT/tests/cli/lib/skycheck.py" "$ROOT/tests/data/skypilot-task.schema.json" real.yaml --in "$f" \
			--catalog "$ROOT/../shared/data/catalogs" >real.chk 2>&1; then
			valid=$((valid + 1))
		else
			badlist="$badlist $(basename "$f"):$(head -1 real.chk | cut -c1-200)"
		fi
	done
	echo "$NAME: real tasks: $total files, $planned planned and emitted, $valid valid, $refused refused (not tasks)"
	[ "$planned" -ge 60 ] && [ "$valid" -eq "$planned" ] && ok || bad "real tasks: $planned planned, $valid valid:$badlist"
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
