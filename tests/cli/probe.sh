#!/bin/sh
# tests/cli/probe.sh - `gpurent probe` (issue 13) against the fake training
# jobs of tests/progs/fakeprobe.c and the fake NVML (tests/fake/fake_nvml.c,
# procs=FILE: the per-process memory the job scripts). Each logger format;
# a data-starved, a leaking, a sliced and a warming-up job; the figures
# (peak memory, steady step time, throughput) within 5% of what the job
# scripted; each diagnosis present where it should be and absent where it
# should not; bad input; the JSON schema. Prints "probe: N passed, M failed".
#
# Timing: fakeprobe ends step k at start + k x STEP_MS (absolute deadlines)
# and the probe reads the step times from the lines' arrival, so a busy
# machine delays single lines but hardly moves the median; STEP_MS >= 150
# keeps a 7 ms wake-up delay under 5%. Under heavy load what can move is
# the first step (a slow fork/exec), so the "no warm-up" check runs with
# 300 ms steps, and the data-starved check needs the spinning job to get
# 80% of a core: where the machine cannot give it that, it says SKIP.
export LC_ALL=C
NAME=probe
B=$(cd "$(dirname "${GPURENT:?set GPURENT to the binary}")" && pwd)
. "$(dirname "$0")/lib/common.sh"
FAKE=$B/fake
FP=$B/progs/fakeprobe
export GPURENT_NVML_LIB=none   # the fake is chosen per case
unset CUDA_VISIBLE_DEVICES
export XDG_DATA_HOME=$T/xdg

nvline() { # FILE NAME MEM UTIL
	printf 'gpu name="%s" mem=%s used=1GiB util=%s procs=%s\n' "$2" "$3" "$4" "$T/procs" >"$1"
}
nvline "$T/nv" "NVIDIA H100 80GB HBM3" 80GiB 90
nvline "$T/nv-low" "NVIDIA H100 80GB HBM3" 80GiB 20
nvline "$T/nv-slice" "NVIDIA H100 80GB HBM3" 20GiB 90

# probe NV ARGS...: gpurent probe --json with the fake NVML script NV; JSON in $T/out
probe() {
	nv=$1
	shift
	rm -f "$T/procs"
	env -u GPURENT_NVML_LIB LD_LIBRARY_PATH="$FAKE" FAKE_NVML_SCRIPT="$nv" "$G" probe --json --no-ledger "$@" \
		>"$T/out" 2>"$T/err"
	rc=$?
}
# check NAME PYTHON-EXPR: the expression, on d (the JSON), is true
check() {
	if python3 - "$T/out" "$2" >"$T/why" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
diags = [x["code"] for x in d["diagnoses"]]
def near(a, b, tol=0.05):
    return b != 0 and abs(a / b - 1) <= tol
ok = eval(sys.argv[2])
if not ok:
    print("steps", d["steps"], "warmup", d["warmup"], "steady", d["steady_step_s"], "first", d["first_step_s"],
          "peak", d["peak_mem"], "units/s", d["units_per_s"], "growth", d["mem_growth_per_step"],
          "util", d["util_median"], "cpu", d["cpu_median"], "diags", diags)
sys.exit(0 if ok else 1)
EOF
	then ok; else bad "$1: $2: $(cat "$T/why") $(tail -2 "$T/err")"; fi
}
MiB=1048576

if need_py "every logger format"; then
	# every logger format: figures within 5%, no diagnosis; 2048 tokens a step
	for f in hf tqdm torchtune litgpt llmc deepspeed step; do
		probe "$T/nv" --steps 12 --model llama-2-7b --micro-batch 4 --seq 512 -- "$FP" $f 40 150 3000 --procs-file "$T/procs"
		[ "$rc" = 0 ] && ok || bad "$f: exit $rc: $(tail -3 "$T/err")"
		want=$f
		[ $f = litgpt ] && want=litgpt
		check "$f logger" "d['logger'] == {'hf':'hf','tqdm':'tqdm','torchtune':'torchtune','litgpt':'litgpt','llmc':'llmc','deepspeed':'deepspeed','step':'step'}['$f'] or d['logger'] == 'lightning'"
		check "$f steps" "d['steps'] - d['warmup'] >= 12"
		check "$f steady step" "near(d['steady_step_s'], 0.150)"
		check "$f peak memory" "near(d['peak_mem'], 3000 * $MiB)"
		check "$f throughput" "near(d['units_per_s'], 2048 / 0.150)"
		check "$f no leak, slice, starving" "not set(diags) & {'mem_growing', 'sliced', 'data_starved', 'no_steps', 'no_gpu_memory', 'slowing'}"
	done
	# the job was stopped, its process gone: the pid it wrote, not its name
	pid=$(cut -d' ' -f1 "$T/procs" 2>/dev/null)
	if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then ok; else bad "the job $pid outlived the probe"; fi

	# no warm-up with steady 300 ms steps (a slow start of up to 150 ms allowed)
	probe "$T/nv" --steps 8 -- "$FP" step 20 300 1000 --procs-file "$T/procs"
	check "no warm-up" "'warmup' not in diags and d['warmup'] == 0"
	# a slow first step: detected, excluded, the steady figure unchanged
	probe "$T/nv" --steps 10 -- "$FP" llmc 30 150 1000 --warmup-ms 1500 --procs-file "$T/procs"
	check "warm-up detected" "'warmup' in diags and d['warmup'] >= 1 and d['first_step_s'] >= 1.5"
	check "warm-up excluded" "near(d['steady_step_s'], 0.150)"
	# --warmup K
	probe "$T/nv" --steps 6 --warmup 3 -- "$FP" step 30 150 1000 --procs-file "$T/procs"
	check "--warmup 3" "d['warmup'] == 3 and d['steps'] >= 9"

	# data-starved: the GPU at 20% while the job spins a core
	probe "$T/nv-low" --steps 30 -- "$FP" step 50 200 1000 --busy-cpu --procs-file "$T/procs"
	if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if (d['cpu_median'] or 0) < 80 else 1)" "$T/out" 2>/dev/null; then
		echo "SKIP: data-starved: the spinning job got under 80% of a core (a busy machine)"
		check "data-starved readings" "d['util_median'] == 20 and d['cpu_median'] > 0"
		check "busy CPU below the bar: not starved" "'data_starved' not in diags"
	else
		check "data-starved" "'data_starved' in diags and d['util_median'] == 20"
	fi
	# ... and not when the GPU is busy, nor when the CPU idles
	probe "$T/nv" --steps 8 -- "$FP" step 30 200 1000 --busy-cpu --procs-file "$T/procs"
	check "busy GPU: not starved" "'data_starved' not in diags"
	probe "$T/nv-low" --steps 8 -- "$FP" step 30 150 1000 --procs-file "$T/procs"
	check "idle CPU: not starved" "'data_starved' not in diags"

	# a leak of 50 MiB a step
	probe "$T/nv" --steps 15 -- "$FP" step 40 200 3000 --leak-mb-per-step 50 --procs-file "$T/procs"
	check "leak diagnosed" "'mem_growing' in diags"
	check "leak per step" "near(d['mem_growth_per_step'], 50 * $MiB)"
	check "leak: peak" "d['peak_mem'] >= 3000 * $MiB + 15 * 50 * $MiB"

	# a slice: 20 GiB visible on an 80 GB card
	probe "$T/nv-slice" --steps 6 -- "$FP" step 20 150 1000 --procs-file "$T/procs"
	check "slice diagnosed" "'sliced' in diags and d['visible_mem'] == 20 * 1024 * $MiB and d['nominal_mem'] == 80e9"

	# the older NVML calls (_v2, the plain one) give the same memory
	for api in 2 1; do
		FAKE_NVML_PROCS_API=$api probe "$T/nv" --steps 4 -- "$FP" step 10 150 2000 --procs-file "$T/procs"
		check "NVML process call v$api" "near(d['peak_mem'], 2000 * $MiB)"
	done
	# no NVML: no memory, said so
	rm -f "$T/procs"
	GPURENT_NVML_LIB=none "$G" probe --json --no-ledger --steps 4 -- "$FP" step 10 150 2000 >"$T/out" 2>"$T/err"
	check "no NVML" "'no_gpu_memory' in diags and d['peak_mem'] == 0"
	# no step line
	probe "$T/nv" -- sh -c 'echo hello; echo world'
	check "no steps" "'no_steps' in diags and d['steps'] == 0"
	# --step-regex
	probe "$T/nv" --steps 6 --step-regex '^step ([0-9]+) loss' -- "$FP" step 20 150 1000 --procs-file "$T/procs"
	check "--step-regex" "d['logger'] == 'regex' and near(d['steady_step_s'], 0.150)"
	# --for
	probe "$T/nv" --for 1s -- "$FP" step 100 150 1000 --procs-file "$T/procs"
	check "--for 1s" "0 < d['steps'] < 40 and d['cmd_status'] != 0"
	# --progress-file
	probe "$T/nv" --steps 4 --progress-file "$T/pf" -- sh -c "i=0; while [ \$i -lt 30 ]; do i=\$((i+1)); echo \$i >'$T/pf'; sleep 0.2; done"
	check "--progress-file" "d['logger'] == 'progress' and d['steps'] >= 4"

	# the full run and its cost at --price: 1e9 tokens at 2048 / 0.15 s
	probe "$T/nv" --steps 8 --price 2 --model llama-2-7b --micro-batch 4 --seq 512 --tokens 1e9 -- "$FP" step 30 150 3000 --procs-file "$T/procs"
	check "full run" "near(d['full_run']['seconds'], 1e9 / (2048 / 0.150)) and near(d['full_run']['cost'], 2 * 1e9 / (2048 / 0.150) / 3600)"
	check "limits to set" "near(d['full_run']['max_runtime_s'], 1.2 * d['full_run']['seconds'], 0.001) and d['full_run']['stall_s'] == 600"
	check "estimate beside" "d['estimate']['available'] and d['estimate']['mem'] > 0 and d['gpu'] != ''"

	# the schema
	probe "$T/nv" --steps 4 --model llama-2-7b -- "$FP" step 10 150 1000 --procs-file "$T/procs"
	check "JSON schema" "d['schema'] == 'gpurent.probe/1' and all(isinstance(d[k], (int, float)) for k in ['steps', 'warmup', 'first_step_s', 'steady_step_s', 'peak_mem', 'units_per_s', 'mfu', 'mem_growth_per_step']) and isinstance(d['diagnoses'], list) and all(set(x) >= {'code', 'evidence', 'fix'} for x in d['diagnoses']) and set(d['estimate']) >= {'mem', 'step_s', 'mem_error', 'step_error'} and set(d['full_run']) >= {'seconds', 'cost', 'currency'}"
	# impossible: 262144 tokens a 150 ms step of a 7B model is ~70x an H100's peak (issue 29: "MFU 2588.8%")
	probe "$T/nv" --steps 4 --model llama-2-7b --micro-batch 64 --seq 4096 -- "$FP" step 10 150 1000 --procs-file "$T/procs"
	check "impossible MFU" "d['mfu'] > 1 and d['mfu_impossible'] is True and 'impossible' in diags"
	probe "$T/nv" --steps 4 --model llama-2-7b -- "$FP" step 10 150 1000 --procs-file "$T/procs"
	check "possible MFU" "0 < d['mfu'] <= 1 and d['mfu_impossible'] is False and 'impossible' not in diags"
	# --json keeps stdout for the JSON: CMD's lines went to stderr
	grep -q "loading the model" "$T/err" && ! grep -q "loading the model" "$T/out" && ok || bad "--json: CMD's output on stdout"
fi

# the text report; no status line where stderr is no terminal
run env -u GPURENT_NVML_LIB LD_LIBRARY_PATH="$FAKE" FAKE_NVML_SCRIPT="$T/nv" "$G" probe --no-ledger --steps 5 -- "$FP" hf 20 150 1000 --procs-file "$T/procs"
[ "$rc" = 0 ] && grep -q "steady step" "$T/out" && grep -q "peak GPU memory" "$T/out" && ok || bad "text report: $rc $(cat "$T/out")"
grep -q "$(printf '\033')" "$T/err" && bad "a status line without a terminal" || ok
grep -q "loading the model" "$T/out" && ok || bad "CMD's output is not teed"
# CMD that fails before the probe has its steps: its status
run "$G" probe --no-ledger -- sh -c 'echo step 1; exit 3'
[ "$rc" = 3 ] && ok || bad "a failing CMD: exit $rc"

# the record: the probe is in the ledger's probes table, and --calibrate reads it
run env -u GPURENT_NVML_LIB LD_LIBRARY_PATH="$FAKE" FAKE_NVML_SCRIPT="$T/nv" "$G" probe --ledger "$T/l.db" --steps 4 --model llama-2-7b -- "$FP" step 10 150 2000 --procs-file "$T/procs"
[ "$rc" = 0 ] && grep -q "recorded in the ledger as probe" "$T/err" && ok || bad "the probe not recorded: $rc $(cat "$T/err")"
run "$G" ledger probes --ledger "$T/l.db"
grep -q "llama-2-7b" "$T/out" && ok || bad "the probe is not in the ledger: $(cat "$T/out" "$T/err")"
run "$G" estimate --model llama-2-7b --calibrate latest --ledger "$T/l.db"
[ "$rc" = 0 ] && grep -qi "probe" "$T/out" && ok || bad "estimate --calibrate latest after a probe: $rc $(cat "$T/out" "$T/err" | head -5)"

# an impossible probe is recorded as read, said so, and calibrates nothing
run env -u GPURENT_NVML_LIB LD_LIBRARY_PATH="$FAKE" FAKE_NVML_SCRIPT="$T/nv" "$G" probe --ledger "$T/l2.db" --steps 4 --model llama-2-7b --micro-batch 64 --seq 4096 -- "$FP" step 10 150 1000 --procs-file "$T/procs"
[ "$rc" = 0 ] && grep -q "MFU .*: impossible, above the peak" "$T/out" && grep -q "impossible speed" "$T/out" &&
	ok || bad "impossible probe: the report does not say so: $rc $(grep -i 'mfu\|imposs' "$T/out")"
run "$G" estimate --model llama-2-7b --micro-batch 64 --seq 4096 --gpu H100 --calibrate latest --ledger "$T/l2.db"
[ "$rc" = 1 ] && grep -q "is impossible: its MFU of .* is above 100%" "$T/err" && ok ||
	bad "estimate --calibrate an impossible probe: $rc $(cat "$T/err")"

# bad input: one line, exit 2, before anything runs
nlogs() { ls -A "$T/gpurent-logs" 2>/dev/null | wc -l; }
logs_before=$(nlogs)
expect_err "no CMD" 2 "expected a command" "$G" probe --steps 3
expect_err "empty CMD" 2 "expected a command" "$G" probe --steps 3 --
expect_err "--steps 0" 2 "--steps" "$G" probe --steps 0 -- true
expect_err "bad regex" 2 "--step-regex" "$G" probe --step-regex '(' -- true
expect_err "regex without a group" 2 "--step-regex" "$G" probe --step-regex 'step' -- true
expect_err "unknown option" 2 "unknown option" "$G" probe --bogus -- true
expect_err "--steps and --for" 2 "give one" "$G" probe --steps 3 --for 1s -- true
expect_err "bad workload" 2 "model" "$G" probe --model no-such-model-xyz -- true
# ... and nothing ran: none of them wrote a run's log
[ "$(nlogs)" = "$logs_before" ] && ok || bad "bad input ran CMD: $logs_before logs before, $(nlogs) after"

# the docs (gpurent help probe: tests/cli/cases/probe.test)
[ -f "$ROOT/docs/probe.md" ] && grep -q GPURENT_PROBE_TORCH_FILE "$ROOT/docs/probe.md" && ok || bad "docs/probe.md"
grep -q 'fBprobe\\fR' "$ROOT/docs/gpurent.1" && ok || bad "the man page lacks probe"
for fl in --steps --for --warmup --step-regex --progress-file --price --grace --json --no-ledger; do
	grep -Fq -e "$fl" "$ROOT/docs/gpurent.1" && grep -Fq -e "$fl" "$ROOT/docs/probe.md" && ok || bad "$fl missing from docs/gpurent.1 or docs/probe.md"
done
grep -q "estimate → probe → plan → run" "$ROOT/README.md" && ok || bad "README lacks the workflow"
finish
