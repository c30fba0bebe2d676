#!/bin/sh
# tests/cli/skytask.sh - `gpurent plan` on SkyPilot task files read as
# SkyPilot's yaml-spec.rst says (src/core/task/skytask.c): one case per
# misreading of issue 11 on a fixture catalog, then every real task file
# in ../shared/data/sky-tasks (SKIP where absent).
# Prints "skytask: N passed, M failed".
NAME=skytask
. "$(dirname "$0")/lib/common.sh"

D=$ROOT/tests/data
WL="--model llama-3-8b --task lora --tokens 1e8"

# the catalog: the same cards in several clouds, regions, counts and kinds
cat >cat.csv <<'EOF'
provider,supply_type,instance,region,gpu,gpu_count,slice,gpu_mem_gb,vcpus,ram_gb,disk_gb,persistent_storage,price,spot_price,currency,billing,queue_wait,max_runtime,source,date
aws,hyperscaler,p4d.24xlarge,us-east-1,A100,8,whole,40,96,1152,8000,yes,32.77,12.00,USD,per-second,,,test fixture,2026-11
aws,hyperscaler,p4d.24xlarge,us-west-2,A100,8,whole,40,96,1152,8000,yes,33.00,12.50,USD,per-second,,,test fixture,2026-11
aws,hyperscaler,p4de.24xlarge,us-east-1,A100-80GB,8,whole,80,96,1152,8000,yes,40.96,15.00,USD,per-second,,,test fixture,2026-11
gcp,hyperscaler,a2-highgpu-1g,us-central1,A100,1,whole,40,12,85,100,yes,3.67,1.10,USD,per-second,,,test fixture,2026-11
gcp,hyperscaler,a2-ultragpu-1g,us-central1,A100-80GB,1,whole,80,12,170,100,yes,5.07,1.60,USD,per-second,,,test fixture,2026-11
cudo,ai-cloud,a100-1x,us,A100,1,whole,40,16,64,200,yes,1.90,,USD,per-second,,,test fixture,2026-11
cudo,ai-cloud,h100-1x,us,H100,1,whole,80,16,64,200,yes,2.50,,USD,per-second,,,test fixture,2026-11
do,ai-cloud,gpu-h100x1-80gb,nyc2,H100,1,whole,80,20,240,720,yes,3.39,,USD,per-second,,,test fixture,2026-11
runpod,ai-cloud,L4 half,US,L4,0.5,half,12,4,16,40,no,0.20,,USD,per-second,,,test fixture,2026-11
runpod,ai-cloud,L4 x1,US,L4,1,whole,24,8,32,80,no,0.44,,USD,per-second,,,test fixture,2026-11
EOF

# plan_json NAME FILE [ARGS...]: plan FILE on the fixture catalog, JSON in $T/out
plan_json() {
	f=$1; shift
	# shellcheck disable=SC2086
	run "$G" plan "$f" --catalog cat.csv $WL --top 20 --json "$@"
}


# accelerators: A100 is one 40 GB A100: not the 80 GB card, not 8 of them
plan_json "$D/sky-a100.yaml"
[ "$rc" -eq 0 ] && ranked 'r and all(x["gpu"] == "NVIDIA A100 40GB SXM" and x["gpus"] == 1 for x in r)' \
	&& ok || bad "accelerators: A100 = one 40 GB A100: rc $rc $(head -c 300 "$T/err")"

# any_of: the outer A100:8 with aws/us-west-2, or gcp with A100:1
plan_json "$D/sky-any-of.yaml"
[ "$rc" -eq 0 ] && ranked 'sorted((p, i, g) for p, i, g0, _, g, _ in rows) == [("aws", "p4d.24xlarge", 8), ("gcp", "a2-highgpu-1g", 1)] and all(x["region"] != "us-east-1" for x in r)' \
	&& ok || bad "any_of merged with the outer keys: $(head -c 300 "$T/err")"

# ordered: the 80 GB x8 on aws first; the A100:1 offers excluded as a later choice
plan_json "$D/sky-ordered.yaml"
[ "$rc" -eq 0 ] && ranked 'all(x["instance"] == "p4de.24xlarge" for x in r) and r and ex["ordered"]["count"] == 2' \
	&& ok || bad "ordered: the first choice with a feasible offer: $(head -c 300 "$T/err")"
run "$G" plan "$D/sky-ordered.yaml" --catalog cat.csv $WL --top 20
grep -q 'a preferred resources choice earlier in `ordered` has a feasible offer' "$T/out" \
	&& ok || bad "ordered: the exclusion is worded"

# the same as an accelerators list (ordered), and as a set (any of them)
printf 'resources:\n  accelerators: [H200:8, A100-80GB:1, A100:1]\nrun: x\n' >list.yaml
plan_json list.yaml
ranked 'r and all(x["gpu"] == "NVIDIA A100 80GB SXM" for x in r)' && ok || bad "an accelerators list is ordered"
printf 'resources:\n  accelerators: {A100-80GB:1, A100:1}\nrun: x\n' >set.yaml
plan_json set.yaml
ranked 'sorted(set(x["gpu"] for x in r)) == ["NVIDIA A100 40GB SXM", "NVIDIA A100 80GB SXM"]' \
	&& ok || bad "an accelerators set is any of them"

# infra with a zone and a wildcard region: the zone's region (no zone named by the catalog)
printf 'resources:\n  infra: aws/*/us-east-1a\n  accelerators: A100:8\nrun: x\n' >zone.yaml
plan_json zone.yaml
ranked 'r and all(x["region"] == "us-east-1" for x in r)' && ok || bad "infra aws/*/us-east-1a"
printf 'resources:\n  infra: "*/us-west-2"\nrun: x\n' >wild.yaml
plan_json wild.yaml
ranked 'r and all(x["region"] == "us-west-2" for x in r)' && ok || bad "infra */us-west-2"
printf 'resources:\n  zone: us-west-2b\n  accelerators: A100:8\nrun: x\n' >zonekey.yaml
plan_json zonekey.yaml
ranked 'r and all(x["region"] == "us-west-2" for x in r)' && ok || bad "zone: us-west-2b"

# infra: do is DigitalOcean, not cudo by substring
printf 'resources:\n  infra: do\nrun: x\n' >do.yaml
plan_json do.yaml
ranked 'r and all(x["provider"] == "do" for x in r)' && ok || bad "infra: do matched another cloud"

# instance_type, memory and disk_size with units
printf 'resources:\n  instance_type: p4de.24xlarge\nrun: x\n' >inst.yaml
plan_json inst.yaml
ranked 'r and all(x["instance"] == "p4de.24xlarge" for x in r)' && ok || bad "instance_type"
printf 'resources:\n  memory: 1000GB+\n  disk_size: 2TB\nrun: x\n' >units.yaml
plan_json units.yaml
ranked 'r and all(x["instance"].startswith("p4d") for x in r)' && ok || bad "memory 1000GB+ and disk_size 2TB"

# L4:0.5 is the half-L4 slice
run "$G" plan "$D/sky-slice.yaml" --catalog cat.csv --model gpt2 --task lora --tokens 1e6 --top 20 --json
ranked 'r and all(x["instance"] == "L4 half" for x in r)' && ok || bad "L4:0.5: $(head -c 300 "$T/err")"

# a pipeline: long run:, pool:, execution:, three documents: read, not refused
run "$G" plan "$D/sky-pipeline.yaml" --catalog cat.csv $WL
[ "$rc" -ne 2 ] && ok || bad "a pipeline file refused: $(cat "$T/err")"

# a duplicate key: one line naming the file, the line and the key
printf 'resources:\n  accelerators: A100\n  accelerators: H100\nrun: x\n' >dup.yaml
expect_err "a duplicate resources key" 2 "dup.yaml:3: resources: duplicate key 'accelerators' (first given on line 2)" \
	"$G" plan dup.yaml --catalog cat.csv $WL
printf 'resources:\n  infra: aws//x\nrun: x\n' >badinfra.yaml
expect_err "an empty infra part" 2 "badinfra.yaml:2: resources.infra: expected no empty part" \
	"$G" plan badinfra.yaml --catalog cat.csv $WL
printf 'resources:\n  memory: lots\nrun: x\n' >badmem.yaml
expect_err "memory without a size" 2 "badmem.yaml:2: resources.memory: expected a size" \
	"$G" plan badmem.yaml --catalog cat.csv $WL
# files that are no task: what they look like
printf 'admin_policy: my.Policy\n' >policy.yaml
expect_err "an admin policy" 2 "policy.yaml:1: looks like a SkyPilot admin policy, not a SkyPilot task" \
	"$G" plan policy.yaml --catalog cat.csv $WL
# a gpurent workload file with a resources: section keeps working
printf 'model: llama-2-7b\ntask: lora\ntokens: 1e8\nresources:\n  accelerators: A100:8\n' >wl.yaml
run "$G" plan wl.yaml --catalog cat.csv --top 20 --json
ranked 'r and all(x["gpus"] == 8 and x["gpu"] == "NVIDIA A100 40GB SXM" for x in r)' \
	&& ok || bad "a workload with resources: $(head -c 300 "$T/err")"

# every real SkyPilot file: a task is never refused (exit 2); a file with no
# task key is, in one line saying what it looks like. Which is which is
# decided here with Python's YAML reader, not by gpurent.
S=$ROOT/../shared/data/sky-tasks
if need_shared data/sky-tasks "the real SkyPilot task sweep" && need_pyyaml "the real SkyPilot task sweep"; then
	ntask=0 nother=0
	for f in "$S"/*.yaml; do
		kind=$(python3 - "$f" <<'PY'
import sys, yaml
strong = {"resources", "run", "setup", "num_nodes", "envs", "file_mounts", "workdir", "service",
          "secrets", "pool", "volumes", "execution", "event_callback"}
keys = set()
for d in yaml.safe_load_all(open(sys.argv[1])):
    if isinstance(d, dict):
        keys |= {str(k) for k in d}
print("task" if keys & strong else "other")
PY
)
		run "$G" plan "$f" $WL
		if [ "$kind" = task ]; then
			ntask=$((ntask + 1))
			[ "$rc" -ne 2 ] && ok || bad "$(basename "$f"): a task refused: $(head -c 300 "$T/err")"
		else
			nother=$((nother + 1))
			[ "$rc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'looks like .*, not a SkyPilot task' "$T/err" \
				&& ok || bad "$(basename "$f"): not a task: rc $rc $(head -c 300 "$T/err")"
		fi
	done
	echo "skytask: real files: $ntask tasks, $nother not tasks"
fi

finish
