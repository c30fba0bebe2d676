#!/bin/sh
# tests/cli/slurm.sh - `gpurent slurm script|lint` and `gpurent run --preset
# slurm` (issue 14). First the lint rules on scripts that break them and on
# ones that do not (seed 004 §3.5's script among them), the generator, and
# plan --emit slurm = slurm script; then, on a private one-node Slurm cluster
# (tests/cli/lib/slurmcluster.sh: its own munge, ports, state and logs in the
# temp dir), a generated script passes lint and sbatch --test-only, runs a
# job that reaches its time limit, checkpoints on the signal, is requeued at
# least twice, resumes from the newest checkpoint each time and finishes with
# no unit lost or done twice beyond one checkpoint interval, with every
# attempt in the ledger; and the seed's script runs with no GPU allocated.
# Prints "slurm: N passed, M failed".
export LC_ALL=C
NAME=slurm
B=$(cd "$(dirname "${GPURENT:?set GPURENT to the binary}")" && pwd)
. "$(dirname "$0")/lib/common.sh"
. "$ROOT/tests/cli/lib/slurmcluster.sh"
trap 'slurm_cluster_stop; chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT
export XDG_DATA_HOME=$T/xdg
unset SLURM_JOB_ID SLURM_CONF
SEED=$ROOT/tests/data/slurm/seed004.sbatch

# lint_has NAME FILE LINE PATTERN [lint options]: exit 1 and a line FILE:LINE: ...PATTERN
lint_has() {
	n=$1 f=$2 l=$3 p=$4; shift 4
	run "$G" slurm lint "$f" "$@"
	if [ "$rc" -ne 1 ]; then bad "$n: exit $rc, expected 1: $(cat "$T/out" "$T/err")"; return; fi
	grep -F -- "$f:$l: " "$T/out" | grep -Fq -- "$p" && ok || { bad "$n: no '$f:$l: ...$p'"; sed 's/^/    /' "$T/out"; }
}
# lint_clean NAME FILE [options]: exit 0, nothing said
lint_clean() {
	n=$1 f=$2; shift 2
	run "$G" slurm lint "$f" "$@"
	[ "$rc" -eq 0 ] && [ ! -s "$T/out" ] && ok || { bad "$n: exit $rc: $(cat "$T/out" "$T/err")"; }
}
mk() { printf '%b' "$2" >"$T/$1"; }

# ---- lint, each rule broken and kept ----
mkdir -p "$T/out.d"
cp "$SEED" "$T/seed.sbatch"
lint_has "seed: the commented GPU request" seed.sbatch 4 "'## SBATCH --gres=gpu:1' is a comment, not a directive: the job is queued and runs with no GPU"
lint_has "seed: python with no GPU" seed.sbatch 9 "python runs here and the job shows it wants a GPU (--partition=gpu), but the script asks for no GPU"
lint_has "seed: conda without the hook" seed.sbatch 8 "conda activate without conda's shell hook"
lint_has "seed: logs/ missing" seed.sbatch 7 "--output is in 'logs', which does not exist"
[ "$(grep -c . "$T/out")" -eq 4 ] && ok || bad "seed: expected 4 problems, got $(cat "$T/out")"
mkdir -p "$T/logs"
run "$G" slurm lint seed.sbatch
grep -q "which does not exist" "$T/out" && bad "seed: logs/ exists now" || ok
rmdir "$T/logs"
H='#!/bin/bash\n#SBATCH --gres=gpu:1\n#SBATCH --time=01:00:00\n'
mk good.sh "$H#SBATCH --output=out.d/%%j.out\npython t.py\n"
lint_clean "a good script" good.sh
mk near.sh "$H# SBATCH --mem=4G\n#sbatch -N 2\npython t.py\n"
lint_has "# SBATCH" near.sh 4 "'# SBATCH --mem=4G' is a comment, not a directive: sbatch reads only lines"
lint_has "#sbatch" near.sh 5 "'#sbatch -N 2' is a comment"
mk after.sh "${H}module load cuda\n#SBATCH --mem=8G\npython t.py\n"
lint_has "after the first command" after.sh 5 "#SBATCH --mem comes after the first command (line 4): sbatch ignores it"
mk before.sh "$H#SBATCH --mem=8G\nmodule load cuda\npython t.py\n"
lint_clean "before the first command" before.sh
mk unknown.sh "$H#SBATCH --tiem=10\n#SBATCH --gpu=1\npython t.py\n"
lint_has "unknown: did you mean" unknown.sh 4 "--tiem is no sbatch option: sbatch refuses the script; did you mean --time?"
lint_has "unknown: --gpu" unknown.sh 5 "did you mean --gpus?"
mk value.sh "$H#SBATCH --time=2h\n#SBATCH --mem=16GiB\n#SBATCH --signal=B:USR3@60\npython t.py\n"
lint_has "bad --time" value.sh 4 "--time='2h' is not valid"
lint_has "bad --mem" value.sh 5 "--mem='16GiB' is not valid"
lint_has "bad --signal" value.sh 6 "expected [B:|R:]SIGNAL[@SECONDS]"
mk values.sh "$H#SBATCH -p gpu -N 1 --mem=16G --signal=B:USR1@120 --open-mode=append\npython t.py\n"
lint_clean "good values" values.sh
mk nogpu.sh '#!/bin/bash\n#SBATCH --time=10\nsrun torchrun --nproc-per-node 2 t.py\n'
lint_has "torchrun with no GPU" nogpu.sh 3 "wants a GPU here (torchrun), but the script asks for no GPU"
mk cpu.sh '#!/bin/bash\n#SBATCH --time=10\n./make_data.sh\n'
lint_clean "no GPU code, no GPU" cpu.sh
mk cpupy.sh '#!/bin/bash\n#SBATCH --partition=hopper-cpu\nsrun python e2b_router.py\n'
lint_clean "python on a CPU partition (issue 28)" cpupy.sh
mk long.sh "#!/bin/bash\n#SBATCH --gres=gpu:1\n#SBATCH --time=2-00:00:00\npython t.py\n"
lint_has "--time over --max-time" long.sh 3 "--time=2-00:00:00 is above the partition's limit of 1-00:00:00" --max-time 24h
lint_has "longer than the limit, nothing resumes it" long.sh 3 "nothing resumes it (no checkpoint, no --signal, no --requeue)" --max-time 24h
lint_clean "--time within --max-time" long.sh --max-time 3d
mk resumable.sh "#!/bin/bash\n#SBATCH --gres=gpu:1\n#SBATCH --time=2-00:00:00\n#SBATCH --requeue\npython t.py --resume\n"
run "$G" slurm lint resumable.sh --max-time 24h
[ "$rc" -eq 1 ] && ! grep -q "nothing resumes it" "$T/out" && ok || bad "resumable: $(cat "$T/out")"
mk conda.sh "$H\neval \"\$(conda shell.bash hook)\"\nconda activate env\npython t.py\n"
lint_clean "conda with the hook" conda.sh
mk mem.sh "$H#SBATCH --mem=8G\n#SBATCH --mem-per-cpu=2G\npython t.py\n"
lint_has "--mem and --mem-per-cpu" mem.sh 5 "--mem-per-cpu together with --mem"
mk gres.sh "$H#SBATCH --gpus=1\npython t.py\n"
lint_has "--gres and --gpus" gres.sh 4 "--gpus together with --gres"
mk array.sh "$H#SBATCH --array=0-9%%2\n#SBATCH --output=run-%%A.out\npython t.py\n"
lint_has "--array, one output" array.sh 5 "every task of the array writes the same file"
mk array2.sh "$H#SBATCH --array=0-9%%2\n#SBATCH --output=run-%%A_%%a.out\npython t.py\n"
lint_clean "--array with %a" array2.sh
mk crlf.sh '#!/bin/bash\r\n#SBATCH --gres=gpu:1\r\npython t.py\r\n'
lint_has "DOS line endings" crlf.sh 1 "DOS line endings (CR LF): sbatch refuses the script"
mk noshebang.sh '#SBATCH --gres=gpu:1\npython t.py\n'
lint_has "no shebang" noshebang.sh 1 "no #! line"
mk late.sh '#SBATCH --gres=gpu:1\n#!/bin/bash\npython t.py\n'
lint_has "misplaced shebang" late.sh 2 "#! below the first line"
mk utf.sh "$H#SBATCH --job-name=\0350\0256\0255\0343\0200\0200x\npython t.py\n"
lint_has "non-ASCII directive" utf.sh 4 "non-ASCII bytes in a directive"
mk ctl.sh "$H#SBATCH --tiem\033[31m=1\npython t.py\n"
run "$G" slurm lint ctl.sh
grep -q "$(printf '\033')" "$T/out" && bad "a control byte reached the terminal" || ok
run "$G" slurm lint ctl.sh --json
grep -q "$(printf '\033')" "$T/out" && bad "--json: a control byte reached the terminal" || ok
expect_err "unreadable" 2 "nope.sh" "$G" slurm lint "$T/nope.sh"

# ---- issue 28: rule ids, --json, notes, the rules real scripts changed ----
run "$G" slurm lint seed.sbatch
[ "$(grep -c ' \[[a-z-]*\]$' "$T/out")" -eq 4 ] && grep -q '^seed.sbatch:4: .* \[near-directive\]$' "$T/out" &&
	grep -q '^seed.sbatch:9: .* \[no-gpu\]$' "$T/out" && ok || bad "rule ids: $(cat "$T/out")"
run "$G" slurm lint seed.sbatch --json
[ "$rc" -eq 1 ] && python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))
assert [(f["line"], f["rule"]) for f in a] == [(4, "near-directive"), (7, "output-dir"), (8, "conda-no-hook"), (9, "no-gpu")], a
assert all(f["file"] == "seed.sbatch" and f["severity"] == "error" and f["message"] for f in a)
' "$T/out" && ok || bad "--json: exit $rc $(cat "$T/out" "$T/err")"
mk kept.sh '#!/bin/bash\n##SBATCH --account=pi-foster\n#SBATCH --account=pi-chard\n#SBATCH --gres=gpu:1\npython t.py\n'
run "$G" slurm lint kept.sh --json
[ "$rc" -eq 0 ] && grep -q '"rule": *"kept-alternative"' "$T/out" && grep -q '"severity": *"note"' "$T/out" && ok ||
	bad "a kept alternative: exit $rc $(cat "$T/out")"
mk dash.sh '#!/bin/sh \342\200\223l\n#SBATCH --gres=gpu:1\npython t.py\n'
lint_has "an en dash on the #! line" dash.sh 1 "its dash is not the ASCII '-'"
# what the kernel and bash make of it here (issue 28: the job dies at start)
chmod +x "$T/dash.sh"
if [ -x /bin/sh ]; then
	"$T/dash.sh" >/dev/null 2>"$T/dash.err"
	[ $? -ne 0 ] && grep -q 'No such file' "$T/dash.err" && ok || bad "/bin/sh ran a script with '#!/bin/sh \342\200\223l'"
fi
mkdir -p "$T/src.d/scripts"
printf 'source /opt/miniconda3/etc/profile.d/conda.sh\n' >"$T/src.d/scripts/setup.sh"
printf '#!/bin/bash\n#SBATCH --gres=gpu:1\n. scripts/setup.sh\nconda activate e\npython t.py\n' >"$T/src.d/job.sh"
lint_clean "conda's hook in a file sourced next to the script" src.d/job.sh
printf 'module load gcc\n' >"$T/src.d/scripts/setup.sh"
lint_has "a sourced file without the hook" src.d/job.sh 4 "conda activate without conda's shell hook"
mk chdir.sh '#!/bin/bash\n#SBATCH --chdir=/nonexistent-gpurent/run\n#SBATCH --output=logs/%j.out\n./a\n'
lint_clean "an absolute --chdir of another machine: its logs are not judged" chdir.sh
: >"$T/empty.sh"
expect_err "empty" 2 "empty.sh:1: script: expected an sbatch script" "$G" slurm lint "$T/empty.sh"

# ---- the generator ----
run "$G" slurm script --partition gpu --max-time 2h --time 30m --conda torch --job-name t1 -- python train.py --lr 3e-4
[ "$rc" -eq 0 ] && ok || bad "script: exit $rc $(cat "$T/err")"
cp "$T/out" "$T/gen1.sbatch"
for l in '#SBATCH --gres=gpu:1' '#SBATCH --time=00:30:00' '#SBATCH --signal=B:USR1@120' '#SBATCH --partition=gpu' \
	'#SBATCH --output=slurm-logs/%x-%j.out' 'eval "$(conda shell.bash hook)"' 'conda activate torch' \
	"import sys, torch, torchvision" 'exec gpurent run --preset slurm --ckpt-dir checkpoints --lead 120s' \
	'-- python train.py --lr 3e-4'; do
	grep -Fq -- "$l" "$T/gen1.sbatch" && ok || bad "script lacks '$l'"
done
grep -q -- '^#SBATCH --requeue$' "$T/gen1.sbatch" && bad "one job: no --requeue" || ok
[ -d "$T/slurm-logs" ] && ok || bad "script: the log directory was not made"
lint_clean "a generated script passes lint" gen1.sbatch --max-time 2h
run "$G" slurm script "$ROOT/examples/resnet50-imagenet.yaml" --max-time 2h -- python train.py
grep -q -- '^#SBATCH --requeue$' "$T/out" && grep -q -- '^#SBATCH --open-mode=append$' "$T/out" &&
	grep -q -- '^#SBATCH --time=02:00:00$' "$T/out" && ok || bad "chained: $(head -20 "$T/out")"
grep -q "the work takes about [0-9]* jobs" "$T/err" && ok || bad "chained: no job count: $(cat "$T/err")"
run "$G" slurm script --nodes 2 --gpus 4 --time 1h -- torchrun t.py
grep -q '^srun --ntasks-per-node=1 gpurent run' "$T/out" && grep -q -- '--signal=USR1@120' "$T/out" &&
	grep -q -- '--gres=gpu:4' "$T/out" && grep -q -- '--cpus-per-task=32' "$T/out" && ok || bad "multi-node: $(cat "$T/out")"

# ---- values that would break the script's lines (issue 26 item 4, repro slurm-script-newline) ----
mkdir -p "$T/inj" && cd "$T/inj" || exit 1
nl=$(printf 'a\ntouch INJECTED #')
for o in job-name partition account log-dir ckpt-dir conda; do
	run "$G" slurm script --work 1h --max-time 24h --$o "$nl" --gpurent true -- true
	[ "$rc" -eq 2 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" -eq 1 ] &&
		grep -Fq -- "--$o: expected a value without control characters" "$T/err" && ok ||
		bad "--$o with a newline: exit $rc, $(cat "$T/out" "$T/err")"
done
for c in '\v' '\f' '\r' '\t' '\033'; do
	run "$G" slurm script --work 1h --max-time 24h --account "$(printf "a${c}b")" -- true
	[ "$rc" -eq 2 ] && ! grep -q "$(printf '\033')" "$T/err" && ok || bad "--account with $c: exit $rc"
done
run "$G" slurm script --work 1h --max-time 24h -- python -c "$(printf 'x\ntouch INJECTED')"
[ "$rc" -eq 2 ] && grep -Fq "CMD: expected words without control characters" "$T/err" && ok || bad "CMD with a newline: exit $rc"
expect_err "--gpu-type with a comma" 2 "--gpu-type: expected a GRES type" "$G" slurm script --time 1h --gpu-type a100,lic:x -- true
expect_err "--log-dir with a backslash" 2 "--log-dir: expected a directory without" "$G" slurm script --time 1h --log-dir 'lo\gs' -- true
expect_err "an empty --partition" 2 "--partition: expected a value, got an empty one" "$G" slurm script --time 1h --partition '' -- true
[ ! -e INJECTED ] && [ -z "$(ls)" ] && ok || bad "a refused script made something: $(ls)"
# values sbatch's reader must see whole: quotes, '#', '\', blanks, '%'
JN="bob's \"run\" #1 a\\b"
run "$G" slurm script --work 1h --max-time 24h --job-name "$JN" --account 'a\b' --partition 'p#1' \
	--log-dir 'lo gs%1' -- python train.py
cp "$T/out" "$T/inj/odd.sbatch"
[ "$rc" -eq 0 ] && grep -Fqx "#SBATCH --job-name='bob'\\''s \"run\" #1 a\\\\b'" odd.sbatch &&
	grep -Fqx "#SBATCH --account='a\\\\b'" odd.sbatch && grep -Fqx "#SBATCH --partition='p#1'" odd.sbatch &&
	grep -Fqx "#SBATCH --output='lo gs%%1/%x-%j.out'" odd.sbatch && ok || bad "odd values: $(head -12 odd.sbatch)"
[ -d "lo gs%1" ] && ok || bad "odd values: the log directory 'lo gs%1' was not made"
# every line up to the first command is a comment to the shell; bash runs it as written
[ "$(sed -n '/^[^#]/{=;q;}' odd.sbatch)" = "$(grep -n '^mkdir -p ' odd.sbatch | cut -d: -f1)" ] && ok ||
	bad "odd values: a line before mkdir is no comment"
lint_clean "odd values: the generated script passes lint" odd.sbatch --max-time 24h
cd "$T" || exit 1

# ---- lint reads as sbatch reads (item 12, repros slurm-lint-backslash-hash, slurm-time-zero-days) ----
cp "$ROOT/tests/data/slurm/lint-backslash-hash.sh" "$ROOT/tests/data/slurm/lint-hash-in-word.sh" \
	"$ROOT/tests/data/slurm/time-zero-days.sh" "$T/"
lint_clean "'a\\ b' and gpu:2#comment" lint-backslash-hash.sh --max-time 24h
lint_has "'lo\\#gs' is lo#gs" lint-hash-in-word.sh 3 "--output is in 'lo#gs', which does not exist" --max-time 24h
grep -q "is not valid" "$T/out" && bad "--time=1:00:00#... read as invalid: $(cat "$T/out")" || ok
run "$G" slurm script --work 1h --max-time 24h --job-name "bob's run -x" -- python train.py
cp "$T/out" "$T/q.sh"
lint_clean "a job name with an apostrophe" q.sh --max-time 24h
mk unmatched.sh "$H#SBATCH --job-name='a b\npython t.py\n"
lint_has "an unmatched quote" unmatched.sh 4 "a quote is not closed on the line: sbatch refuses the script"
lint_has "--time=0-00:00 is no limit" time-zero-days.sh 3 "--time=UNLIMITED is above the partition's limit of 01:00:00" --max-time 1h

# ---- plan --emit slurm writes what slurm script writes ----
run "$G" plan "$ROOT/examples/resnet50-imagenet.yaml" --access SJTU-HPC --only campus-hpc --gpu A100 --emit slurm -- python train.py
if [ "$rc" -eq 0 ]; then
	cp "$T/out" "$T/plan.sbatch"
	grep -q 'emit slurm: [0-9]* chained jobs, [0-9.]* h of queue waits assumed' "$T/err" && ok || bad "plan --emit slurm: no jobs and waits: $(cat "$T/err")"
	args=$(sed -n 's/^# same as: gpurent slurm script //p' "$T/plan.sbatch")
	[ -n "$args" ] && ok || bad "plan --emit slurm: no 'same as' line"
	eval "run \"\$G\" slurm script $args"
	cmp -s "$T/out" "$T/plan.sbatch" && ok || { bad "plan --emit slurm and slurm script differ"; diff "$T/plan.sbatch" "$T/out" | head -20; }
else
	bad "plan --emit slurm: exit $rc $(cat "$T/err")"
fi

# the partition the plan chose (data/access_slurm.csv), and the script it writes again
grep -qx '#SBATCH --partition=a100' "$T/plan.sbatch" && ok || bad "plan --emit slurm: no --partition=a100: $(grep SBATCH "$T/plan.sbatch")"
# slurm script --gpu TYPE is --gpu-type TYPE; --qos
run "$G" slurm script --gpu a100 --qos debug --partition debuga100 --time 10m -- python t.py
grep -qx '#SBATCH --gres=gpu:a100:1' "$T/out" && grep -qx '#SBATCH --qos=debug' "$T/out" &&
	grep -q '^# same as: .* --gpu-type a100 .* --qos debug ' "$T/out" && ok || bad "slurm script --gpu/--qos: $(grep -e SBATCH -e 'same as' "$T/out")"
cp "$T/out" "$T/g1.sh"
run "$G" slurm script --gpu-type a100 --qos debug --partition debuga100 --time 10m -- python t.py
cmp -s "$T/out" "$T/g1.sh" && ok || bad "--gpu and --gpu-type write different scripts"

# a campus offer whose limit chains jobs: the plan's count is the script's
PA="$ROOT/examples/resnet50-imagenet.yaml --access KFUPM-JRCAI --only campus-hpc --gpu RTXA6000 --resumable true --epochs 400"
run "$G" plan $PA
pj=$(sed -n 's/.*, \([0-9]*\) jobs chained across the 48 h limit, queue \([0-9]*\) h in all.*/\1/p' "$T/out" | head -1)
[ -n "$pj" ] && [ "$pj" -ge 2 ] && ok || bad "plan: no chained jobs for a 48 h limit: $(grep -A1 '^Why' "$T/out")"
run "$G" plan $PA --emit slurm -- python train.py
grep -q '^#SBATCH --requeue$' "$T/out" && grep -q "^# The work takes about $pj jobs of 2-00:00:00" "$T/out" &&
	grep -q "emit slurm: $pj chained jobs" "$T/err" && ok || bad "emit slurm: not the plan's $pj jobs: $(grep -i 'jobs' "$T/out" "$T/err")"

# ---- on real Slurm daemons ----
if ! slurm_cluster_start "$T/cluster"; then
	# CI sets GPURENT_REQUIRE_SLURM=1: there the daemons must start
	if [ "${GPURENT_REQUIRE_SLURM:-0}" = 1 ]; then
		bad "the test cluster did not start: $SLURM_WHY"
		for f in "$T"/cluster/log/*; do [ -f "$f" ] && { echo "== $f"; tail -5 "$f"; }; done
	else
		echo "slurm: SKIP the real-Slurm cases: $SLURM_WHY"
	fi
	finish
	exit $?
fi
export SLURM_CONF GPURENT_LEDGER="$T/ledger.db"
lint_has "seed: --time above the partition's limit (scontrol)" seed.sbatch 6 "--time=02:00:00 is above the partition's limit of 00:02:00"
# the job: 75 units of 1 s, a checkpoint every 5; each job may run 1 min and stops 30 s before it
"$G" slurm script --partition gpu --time 1m --cpus 1 --mem 200M --job-name drill --gpurent "$G" --ckpt-dir "$T/ck" \
	--log-dir "$T/slurm-logs" --requeues 8 -- "$B/progs/slurmjob" 75 5 1000 "$T/work.log" >"$T/drill.sbatch"
lint_clean "the drill's script passes lint (limit from scontrol)" drill.sbatch
grep -q -- '--signal=B:USR1@30' "$T/drill.sbatch" && ok || bad "drill: lead $(grep signal "$T/drill.sbatch")"
run sbatch --test-only "$T/drill.sbatch"
[ "$rc" -eq 0 ] && ok || bad "sbatch --test-only: exit $rc $(cat "$T/err")"
# the odd values as sbatch reads them: --test-only takes the script; the job has its name and
# writes its log into 'lo gs%1' (--output 'lo gs%%1/...')
"$G" slurm script --time 1m --cpus 1 --mem 200M --partition gpu --job-name "$JN" --gpurent "$G" \
	--log-dir "$T/lo gs%1" --ckpt-dir "$T/ck-odd" -- true >"$T/odd2.sbatch"
run sbatch --test-only "$T/odd2.sbatch"
[ "$rc" -eq 0 ] && ok || bad "sbatch --test-only of the odd values: exit $rc $(cat "$T/err")"
if oid=$(sbatch --parsable "$T/odd2.sbatch" 2>"$T/err"); then
	scontrol show job "$oid" | grep -Fq "JobName=$JN" && ok || bad "sbatch read the job name as: $(scontrol show job "$oid" | grep JobName)"
	deadline=$(( $(date +%s) + 120 ))
	while [ "$(date +%s)" -lt "$deadline" ]; do
		case $(scontrol -o show job "$oid" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p') in
		COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|"") break;;
		esac
		sleep 1
	done
	ls "$T/lo gs%1/" | grep -q -- "-$oid\.out\$" && ok || bad "the odd values' job wrote no log in 'lo gs%1': $(ls "$T/lo gs%1/")"
	scancel "$oid" 2>/dev/null
else
	bad "sbatch of the odd values: $(cat "$T/err")"
fi
id=$(sbatch --parsable "$T/drill.sbatch") || bad "sbatch: $id"
# Slurm 22.05 holds a requeued job until now + 121 s (EligibleTime, reason
# BeginTime); the test moves its start closer, as the owner may. Not to "now":
# the hold is there because "the time stamp on the new batch launch credential
# must be larger than the time stamp on the revoke request" and slurmd must have
# purged the last attempt (batch_requeue_fini(), src/slurmctld/job_mgr.c of
# SchedMD/slurm at slurm-22-05-8-1, d525b6872a, line 16098; slurmd refuses a
# credential whose ctime <= the revoke time, src/common/slurm_cred.c line 2046).
# A start in the revoke's second fails the launch (the flake "drill: job 4
# ended FAILED", RunTime 0, seen under load): so only once the node has
# finished the last attempt (no COMPLETING), and to now+3 s.
deadline=$(( $(date +%s) + 420 ))
state=""
while [ "$(date +%s)" -lt "$deadline" ]; do
	info=$(scontrol -o show job "$id" 2>/dev/null)
	state=$(printf '%s' "$info" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
	case $state in
	COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY) break;;
	PENDING) case $info in
		*Reason=BeginTime*)
			scontrol show node gn1 2>/dev/null | grep -q 'State=[A-Z+]*COMPLETING' ||
				scontrol update jobid="$id" StartTime=now+3 >/dev/null 2>&1;;
		*Reason=Partition*|*Reason=BadConstraints*|*Reason=ReqNodeNotAvail*) break;;   # never runs
		esac;;
	esac
	sleep 1
done
[ "$state" = COMPLETED ] && ok || { bad "drill: job $id ended $state"; scontrol show job "$id" | head -8; cat "$T"/slurm-logs/*.err 2>/dev/null | tail -20; }
starts=$(grep -c '^start ' "$T/work.log" 2>/dev/null || echo 0)
[ "$starts" -ge 3 ] && ok || bad "drill: $starts attempts, expected at least 3 (two requeues)"
grep -q '^done 75$' "$T/work.log" && ok || bad "drill: not done: $(tail -3 "$T/work.log")"
# every unit done, none repeated beyond one checkpoint interval (5) per attempt
missing=0 repeated=0
for u in $(seq 1 75); do
	c=$(grep -c "^unit $u attempt" "$T/work.log")
	[ "$c" -ge 1 ] || missing=$((missing + 1))
	[ "$c" -gt 1 ] && repeated=$((repeated + c - 1))
done
[ "$missing" -eq 0 ] && ok || bad "drill: $missing units lost"
[ "$repeated" -le $(( (starts - 1) * 5 )) ] && ok || bad "drill: $repeated units repeated"
# each attempt resumed from the newest checkpoint the one before it wrote
awk '/^checkpoint /{last=$2} /^start /{if (NR > 1 && $3 != last) bad=1; if (NR == 1 && $3 != 0) bad=1}
	END{exit bad}' "$T/work.log" && ok || { bad "drill: an attempt did not resume from the newest checkpoint"; grep -v '^unit' "$T/work.log"; }
grep -q '^signal ' "$T/work.log" && ok || bad "drill: the job never got the time-limit signal"
# the ledger: every attempt, its restart count and queue wait; requeue until the last
if command -v sqlite3 >/dev/null 2>&1; then
	rows=$(sqlite3 "$GPURENT_LEDGER" "SELECT count(*) FROM slurm_attempts WHERE job_id = '$id'")
	[ "$rows" = "$starts" ] && ok || bad "ledger: $rows attempts recorded, $starts ran"
	seq=$(sqlite3 "$GPURENT_LEDGER" "SELECT group_concat(restart_count, ',') FROM (SELECT restart_count FROM slurm_attempts WHERE job_id = '$id' ORDER BY run_id)")
	want=$(seq 0 $((starts - 1)) | paste -sd, -)
	[ "$seq" = "$want" ] && ok || bad "ledger: restart counts $seq, expected $want"
	acts=$(sqlite3 "$GPURENT_LEDGER" "SELECT group_concat(action, ',') FROM (SELECT action FROM slurm_attempts WHERE job_id = '$id' ORDER BY run_id)")
	case $acts in *requeue,requeue*,end) ok;; *) bad "ledger: actions $acts";; esac
	w=$(sqlite3 "$GPURENT_LEDGER" "SELECT count(*) FROM slurm_attempts WHERE job_id = '$id' AND queue_wait_seconds >= 0 AND time_limit_seconds = 60")
	[ "$w" = "$starts" ] && ok || bad "ledger: $w of $starts attempts with a queue wait and the 60 s limit"
	r=$(sqlite3 "$GPURENT_LEDGER" "SELECT group_concat(stop_reason, ',') FROM (SELECT r.stop_reason FROM runs r JOIN slurm_attempts s ON s.run_id = r.id WHERE s.job_id = '$id' ORDER BY r.id)")
	case $r in time-limit,time-limit*,exit) ok;; *) bad "ledger: stop reasons $r";; esac
else
	echo "slurm: SKIP the ledger checks: no sqlite3 shell"
fi
tr '\n' ' ' <"$T/drill.sbatch" | grep -q 'gres=gpu:1' && scontrol show job "$id" | grep -q 'gres[:/]gpu' && ok ||
	bad "drill: no GPU in scontrol show job"
# the seed's script (its 2 h and 8 CPUs cut to what the test node has): no GPU allocated, as lint said
sid=$(sbatch --parsable --time=1 --cpus-per-task=1 --mem=200M "$T/seed.sbatch") || bad "sbatch seed: $sid"
deadline=$(( $(date +%s) + 120 ))
while [ "$(date +%s)" -lt "$deadline" ]; do
	state=$(scontrol -o show job "$sid" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
	case $state in RUNNING|COMPLETED|FAILED|CANCELLED|TIMEOUT) break;; esac
	scontrol -o show job "$sid" 2>/dev/null | grep -q 'Reason=Partition' && break
	sleep 1
done
case $state in RUNNING|COMPLETED|FAILED) ok;; *) bad "seed job: $state";; esac
scontrol show job "$sid" | grep -q 'gres[:/]gpu' && bad "seed job: a GPU was allocated" || ok
scancel "$sid" 2>/dev/null
finish
