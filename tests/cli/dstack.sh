#!/bin/sh
# tests/cli/dstack.sh - `gpurent plan` on dstack configurations read as
# dstack reads them (src/core/task/dstack.c) and `--emit dstack` written
# back (src/cmd/plan/dstackemit.c), checked against dstack's schema as
# tests/data/dstack-configuration.schema.json writes it down (Debian's
# python3-jsonschema; a SKIP line without it); then every real file of
# ../shared/data/dstack (SKIP where absent). Issue 29 item 3.
# Prints "dstack: N passed, M failed".
NAME=dstack
. "$(dirname "$0")/lib/common.sh"

D=$ROOT/tests/data/dstack
SCHEMA=$ROOT/tests/data/dstack-configuration.schema.json
WL="--model qwen2.5-0.5b --task lora --tokens 1e8"

cat >cat.csv <<'X'
provider,supply_type,instance,region,gpu,gpu_count,slice,gpu_mem_gb,vcpus,ram_gb,disk_gb,persistent_storage,price,spot_price,currency,billing,queue_wait,max_runtime,source,date
aws,hyperscaler,g6e.xlarge,us-east-1,L40S,1,whole,48,4,32,250,yes,1.86,0.70,USD,per-second,,,test fixture,2026-11
aws,hyperscaler,g5.xlarge,us-east-1,A10G,1,whole,24,4,16,250,yes,1.01,0.40,USD,per-second,,,test fixture,2026-11
aws,hyperscaler,p4d.24xlarge,us-east-1,A100,8,whole,40,96,1152,8000,yes,32.77,12.00,USD,per-second,,,test fixture,2026-11
gcp,hyperscaler,a2-highgpu-1g,us-central1,A100,1,whole,40,12,85,100,yes,3.67,1.10,USD,per-second,,,test fixture,2026-11
gcp,hyperscaler,a2-highgpu-2g,us-central1,A100,2,whole,40,24,170,100,yes,7.35,2.20,USD,per-second,,,test fixture,2026-11
gcp,hyperscaler,a2-ultragpu-2g,us-west1,A100-80GB,2,whole,80,24,340,100,yes,10.14,3.20,USD,per-second,,,test fixture,2026-11
gcp,hyperscaler,g2-standard-4,us-central1,L4,1,whole,24,4,16,100,yes,0.71,0.28,USD,per-second,,,test fixture,2026-11
lambda,ai-cloud,gpu_1x_a6000,us-west-1,RTXA6000,1,whole,48,14,100,512,yes,0.80,,USD,per-minute,,,test fixture,2026-11
runpod,ai-cloud,RTX 4090 x1,US,RTX4090,1,whole,24,8,32,80,no,0.69,,USD,per-second,,,test fixture,2026-11
runpod,ai-cloud,V100 x1,US,V100-32GB,1,whole,32,8,32,80,no,0.50,,USD,per-second,,,test fixture,2026-11
vast,marketplace,1x H100,global,H100,1,whole,80,16,64,100,no,2.20,,USD,per-second,,,test fixture,2026-11
Gongji,ai-cloud,L40S 48GB x1,cn-east,L40S,1,whole,48,16,64,100,no,0.30,,USD,per-second,,,test fixture,2026-11
X

# plan_json FILE [ARGS...]: plan FILE on the fixture catalog, JSON in $T/out
plan_json() {
	f=$1; shift
	# shellcheck disable=SC2086
	run "$G" plan "$f" --catalog cat.csv $WL --top 30 --json "$@"
}


# gpu: 48GB: the 48 GB cards (L40S, A6000) and nothing else; never the
# domestic L40S, which dstack has no backend for
plan_json "$D/mem48.dstack.yml"
[ "$rc" -eq 0 ] && ranked 'r and sorted(set(x["gpu"] for x in r)) == ["NVIDIA L40S", "NVIDIA RTX A6000"] and all(x["provider"] != "Gongji" for x in r)' \
	&& ok || bad "gpu: 48GB: only 48 GB cards on dstack's backends: rc $rc $(head -c 300 "$T/err")"

# gpu: 16GB..24GB: A10G, L4, RTX 4090 (24 GB); not the 32 GB V100 or the 48 GB cards
plan_json "$D/range.dstack.yml"
[ "$rc" -eq 0 ] && ranked 'r and sorted(set(x["gpu"] for x in r)) == ["NVIDIA A10G", "NVIDIA GeForce RTX 4090", "NVIDIA L4"]' \
	&& ok || bad "gpu: 16GB..24GB within the range: rc $rc $(head -c 300 "$T/err")"

# gpu: A100:2: two A100s a node, the 40 and the 80 GB card; not 1 or 8
plan_json "$D/a100x2.dstack.yml"
[ "$rc" -eq 0 ] && ranked 'sorted(i for _, i, _, _, _, _ in rows) == ["a2-highgpu-2g", "a2-ultragpu-2g"] and all(x["gpus"] == 2 for x in r)' \
	&& ok || bad "gpu: A100:2: rc $rc $(head -c 300 "$T/err")"

# nodes: 2 with gpu: 1: two instances of one GPU each
plan_json "$D/nodes.dstack.yml"
[ "$rc" -eq 0 ] && ranked 'r and all(x["nodes"] == 2 and x["gpus"] == 2 for x in r)' \
	&& ok || bad "nodes: 2: rc $rc $(head -c 300 "$T/err")"

# the service: backends aws/gcp, regions us-east-1/us-central1, 24..80 GB,
# max_price 6 $/h; spot_policy auto: spot or on demand; its model: the preset
run "$G" plan "$D/service.dstack.yml" --catalog cat.csv --task lora --tokens 1e8 --top 30 --json
[ "$rc" -eq 0 ] && ranked 'r and all(p in ("aws", "gcp") and i in ("g5.xlarge", "g6e.xlarge", "a2-highgpu-1g", "g2-standard-4") for p, i, _, _, _, _ in rows) and d["model"].startswith("llama-3.1-8b")' \
	&& ok || bad "service: backends, regions, memory range, max_price, model: rc $rc $(head -c 300 "$T/err")"

# spot_policy: on-demand by default (profiles.py line 275); spot: spot only
plan_json "$D/mem48.dstack.yml"
ranked 'r and all(x["mode"] == "on-demand" for x in r)' && ok || bad "spot_policy: on-demand by default"
sed 's/^name: mem48/spot_policy: spot/' "$D/mem48.dstack.yml" >spot.dstack.yml
plan_json spot.dstack.yml
ranked 'r and all(x["mode"] == "spot" for x in r)' && ok || bad "spot_policy: spot"

# max_price: the most an instance may cost per hour, in dollars (the L40S
# at 1.86 out, the A6000 at 0.80 in); --max-price wins over it
sed 's/^name: mem48/max_price: 1/' "$D/mem48.dstack.yml" >cap.dstack.yml
plan_json cap.dstack.yml
ranked 'r and all(x["gpu"] == "NVIDIA RTX A6000" for x in r)' && ok || bad "max_price: 1 $/h: $(head -c 300 "$T/err")"
plan_json cap.dstack.yml --max-price 2
ranked 'sorted(set(x["gpu"] for x in r)) == ["NVIDIA L40S", "NVIDIA RTX A6000"]' && ok || bad "--max-price over max_price"

# a service by the month (task infer, serve): within the file's backends,
# regions, memory and max_price (6 $/h: not the 32.77 $/h p4d); not emitted
SV="--task infer --serve 24x7 --concurrency 4 --user-tps 20"
# shellcheck disable=SC2086
run "$G" plan "$D/service.dstack.yml" --catalog cat.csv $SV --json
need_py "a dstack service by the month" && { [ "$rc" -eq 0 ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = d["ranked"]
assert r and all(x["instance"] in ("g5.xlarge", "g6e.xlarge") for x in r), r' "$T/out" 2>"$T/py" \
	&& ok || bad "a dstack service by the month within its bounds: rc $rc $(cat "$T/err" "$T/py" | head -c 400)"; }
# shellcheck disable=SC2086
run "$G" plan "$D/service.dstack.yml" --catalog cat.csv $SV --emit dstack
[ "$rc" -eq 2 ] && [ ! -s "$T/out" ] && grep -q 'a service by the month is planned per replica, not emitted' "$T/err" \
	&& ok || bad "--emit dstack of a service by the month: rc $rc $(cat "$T/err")"

# a workload file and a task: the workload and the dstack file as the task;
# a dstack file as the workload beside another task is refused, not dropped
printf 'model: qwen2.5-0.5b\ntask: lora\ntokens: 1e8\n' >wl.yaml
run "$G" plan wl.yaml "$D/mem48.dstack.yml" --catalog cat.csv --top 30 --json
[ "$rc" -eq 0 ] && ranked 'r and all(x["gpu"] in ("NVIDIA L40S", "NVIDIA RTX A6000") for x in r)' && ok \
	|| bad "plan WORKLOAD FILE.dstack.yml: rc $rc $(cat "$T/err")"
printf 'resources:\n  accelerators: L40S\nrun: x\n' >sky.yaml
run "$G" plan "$D/mem48.dstack.yml" sky.yaml --catalog cat.csv $WL
[ "$rc" -eq 2 ] && grep -q 'mem48.dstack.yml: a dstack configuration, not a workload' "$T/err" && ok \
	|| bad "a dstack file as the workload beside a task: rc $rc $(cat "$T/err")"

# a fleet, a gateway: refused, one line naming dstack and what the file is, exit 2
run "$G" plan "$D/fleet.dstack.yml" --catalog cat.csv $WL
[ "$rc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'fleet.dstack.yml:2: type: a dstack fleet: capacity' "$T/err" \
	&& [ ! -s "$T/out" ] && ok || bad "a fleet is refused naming dstack: rc $rc $(cat "$T/err")"
printf 'type: gateway\nname: gw\nbackend: aws\nregion: us-east-1\n' >gw.yml
run "$G" plan gw.yml --catalog cat.csv $WL
[ "$rc" -eq 2 ] && grep -q 'gw.yml:1: type: a dstack gateway' "$T/err" && ok || bad "a gateway by its type: $(cat "$T/err")"

# bad input: one line with file, line and field, exit 2
for spec in 'A100::2' '80GB..24GB' 'A100:2:4' '..'; do
	printf 'type: task\ncommands: [x]\nresources:\n  gpu: "%s"\n' "$spec" >badgpu.dstack.yml
	run "$G" plan badgpu.dstack.yml --catalog cat.csv $WL
	[ "$rc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'badgpu.dstack.yml:4: resources.gpu: expected' "$T/err" \
		&& ok || bad "gpu: $spec refused at its line: rc $rc $(cat "$T/err")"
done
printf 'type: task\ncommands: [x]\nbackends: [awz]\n' >badb.dstack.yml
run "$G" plan badb.dstack.yml --catalog cat.csv $WL
[ "$rc" -eq 2 ] && grep -q 'badb.dstack.yml:3: backends: expected a dstack backend' "$T/err" && ok || bad "an unknown backend: $(cat "$T/err")"
printf 'type: task\ncommands: [x]\nmax_price: -1\n' >badp.dstack.yml
run "$G" plan badp.dstack.yml --catalog cat.csv $WL
[ "$rc" -eq 2 ] && grep -q 'badp.dstack.yml:3: max_price: expected dollars per hour above 0' "$T/err" && ok || bad "max_price -1: $(cat "$T/err")"

# validate FILE...: each file against the schema (yaml -> JSON Schema)
HAVE_JS=0
[ "$HAVE_PYYAML" = 1 ] && python3 -c 'import jsonschema' 2>/dev/null && HAVE_JS=1
validate() {
	python3 - "$SCHEMA" "$@" <<'PY'
import json, sys, yaml, jsonschema
s = json.load(open(sys.argv[1]))
bad = 0
for f in sys.argv[2:]:
    try:
        doc = yaml.safe_load(open(f))   # as dstack apply reads it: one document
    except yaml.YAMLError as e:
        bad += 1
        print(f"{f}: {e}".replace("\n", " "))
        continue
    errs = list(jsonschema.Draft7Validator(s).iter_errors(doc))
    if errs:
        bad += 1
        print(f"{f}: {jsonschema.exceptions.best_match(errs).message}")
sys.exit(1 if bad else 0)
PY
}
# kept IN OUT: every top-level key of IN in OUT with its value, but
# resources.gpu, backends and regions; OUT's gpu is NAME:MEM:COUNT
kept() {
	python3 - "$1" "$2" <<'PY'
import sys, yaml
a, b = (yaml.safe_load(open(f)) for f in sys.argv[1:3])
for k, v in a.items():
    if k in ("backends", "regions"):
        continue
    if k == "resources":
        v = dict(v or {}); v.pop("gpu", None)
        w = dict(b["resources"]); w.pop("gpu")
        assert v == w, (k, v, w)
    else:
        assert b.get(k) == v, (k, v, b.get(k))
g = str(b["resources"]["gpu"]).split(":")
assert len(g) == 3 and g[1].endswith("GB") and int(g[2]) >= 1, g
PY
}

# --emit dstack: the choice, every key of the input, dstack's schema
if [ "$HAVE_JS" = 1 ]; then
	# the fixtures themselves are dstack's (the fleet by its type only)
	validate "$D"/*.dstack.yml >v.out 2>&1 && ok || bad "the fixtures validate against the schema: $(cat v.out)"
	# and the schema refuses what dstack refuses: a key no model has, a spot_policy, a backend
	for t in 'foo: 1' 'spot_policy: sometimes' 'backends: [awz]' 'resources: {gpu: {nme: A100}}'; do
		printf 'type: task\ncommands: [x]\n%s\n' "$t" >neg.yml
		validate neg.yml >/dev/null 2>&1 && bad "the schema takes '$t'" || ok
	done
	for f in mem48 range a100x2 nodes service; do
		run "$G" plan "$D/$f.dstack.yml" --catalog cat.csv $WL --emit dstack
		cp "$T/out" "emit-$f.yml"
		[ "$rc" -eq 0 ] && validate "emit-$f.yml" >v.out 2>&1 && kept "$D/$f.dstack.yml" "emit-$f.yml" 2>>v.out \
			&& ok || bad "--emit dstack $f: rc $rc $(cat v.out "$T/err" | head -c 600)"
	done
	# what it wrote: the choice (mem48: the A6000 on lambda, the cheapest)
	grep -q '^  gpu: A6000:48GB:1$' emit-mem48.yml && grep -q '^backends: \[lambda\]$' emit-mem48.yml \
		&& grep -q '^  shm_size: 8GB$' emit-mem48.yml && grep -q '^# gpurent test fixture' emit-mem48.yml \
		&& ok || bad "--emit dstack mem48: the card, the backend, shm_size and comments: $(cat emit-mem48.yml)"
	grep -q '^regions: \["us-east-1"\]$' emit-service.yml && grep -q '^backends: \[aws\]$' emit-service.yml \
		&& grep -q '^  disk: 200GB$' emit-service.yml && ok || bad "--emit dstack service: region, backend, flow resources: $(cat emit-service.yml)"
	# read back, it plans to the same choice
	run "$G" plan emit-a100x2.yml --catalog cat.csv $WL --emit dstack
	grep -v '^#' "$T/out" >again.yml
	grep -v '^#' emit-a100x2.yml | cmp -s - again.yml && ok || bad "--emit dstack reads back to itself"
	# no input: a task of its own
	run "$G" plan --catalog cat.csv $WL --gpu L4 --emit dstack
	cp "$T/out" emit-none.yml
	[ "$rc" -eq 0 ] && validate emit-none.yml >v.out 2>&1 && grep -q '^  gpu: L4:24GB:1$' emit-none.yml \
		&& ok || bad "--emit dstack without a dstack file: rc $rc $(cat v.out "$T/err")"
else
	say_skip "--emit dstack against dstack's schema" "python3 with PyYAML and jsonschema is not installed (apt-get install python3-yaml python3-jsonschema)"
fi

# the real files: gpurent's verdict is dstack's (the schema's, or a
# second document yaml.safe_load refuses): a file dstack refuses is refused
# in one line, exit 2; a fleet is refused naming dstack; a job is planned
# (0) or finds no offer (1: a TPU, an MI300X the bundled catalog lacks), and
# what it emits is dstack's and keeps the file's keys
if need_shared data/dstack "the real dstack files"; then
	S=$ROOT/../shared/data/dstack
	n=0
	for f in "$S"/*.y*ml; do
		n=$((n + 1))
		run "$G" plan "$f" --model qwen2.5-0.5b --task lora --tokens 1e8 --top 30 --json
		if grep -q '^type: fleet' "$f"; then
			[ "$rc" -eq 2 ] && grep -q 'type: a dstack fleet' "$T/err" && ok || bad "real fleet $f: rc $rc $(cat "$T/err")"
			continue
		fi
		if [ "$HAVE_JS" = 1 ] && ! validate "$f" >v.out 2>&1; then
			[ "$rc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && ok \
				|| bad "real file $f: dstack refuses it ($(head -c 200 v.out)), gpurent: rc $rc"
			continue
		fi
		if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
			bad "real file $f: rc $rc $(head -c 300 "$T/err")"; continue
		fi
		[ "$rc" -eq 1 ] && { ok; continue; }
		if [ "$HAVE_JS" = 1 ]; then
			run "$G" plan "$f" --model qwen2.5-0.5b --task lora --tokens 1e8 --emit dstack
			cp "$T/out" real.yml
			[ "$rc" -eq 0 ] && validate real.yml >v.out 2>&1 && kept "$f" real.yml 2>>v.out \
				&& ok || bad "real file $f --emit dstack: rc $rc $(cat v.out "$T/err" | head -c 600)"
		else
			ok
		fi
	done
	[ "$n" -ge 4 ] && ok || bad "expected at least the 4 given real files, found $n"
	# the brief's own: 48GB planned on 48 GB cards only, MI300X:8 on none of another kind
	run "$G" plan "$S/d03-llms_deepseek_trl_nvidia_deepseek_v2.dstack.yml" --catalog cat.csv $WL --top 30 --json
	[ "$rc" -eq 0 ] && ranked 'r and all(x["gpu"] in ("NVIDIA L40S", "NVIDIA RTX A6000") for x in r)' && ok \
		|| bad "d03 gpu: 48GB: rc $rc $(head -c 300 "$T/err")"
	run "$G" plan "$S/d05-misc_ray_cluster.dstack.yaml" --catalog cat.csv $WL --top 30 --json
	[ "$rc" -eq 0 ] && ranked 'r and all(x["nodes"] == 4 for x in r)' && ok || bad "d05 nodes: 4: rc $rc"
fi

finish
