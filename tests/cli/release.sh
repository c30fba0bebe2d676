#!/bin/sh
# tests/cli/release.sh - `gpurent release` in a test HOME planted with each
# kind of credential, shell histories, leftovers in a private /tmp and
# /dev/shm and personal paths: --dry-run lists exactly what release then
# deletes; --keep spares a path; a failing --verify deletes nothing and
# runs no action; the action (an --on-release command that records its
# calls in a file) runs once; the ledger records counts by category and no
# secret. And the guard's --release / *-release presets. Prints
# "release: N passed, M failed".
NAME=release
. "$(dirname "$0")/lib/common.sh"

MARK=gpurentRELEASEmarker41d9
H=$T/home W=$T/work
plant() {
	rm -rf "$H" "$W" "$T/tmproot" "$T/shm"
	mkdir -p "$H/.aws" "$H/.config/gcloud" "$H/.cache/huggingface" "$H/.docker" "$H/.ssh" "$W/results" \
		"$W/scratch/deep" "$T/tmproot" "$T/shm"
	printf '[default]\naws_secret_access_key = %s\n' "$MARK" >"$H/.aws/credentials"
	printf '{"refresh_token": "%s"}\n' "$MARK" >"$H/.config/gcloud/application_default_credentials.json"
	printf 'hf_%s\n' "$MARK" >"$H/.cache/huggingface/token"
	printf 'machine api.wandb.ai login u password %s\n' "$MARK" >"$H/.netrc"
	printf 'https://u:%s@github.com\n' "$MARK" >"$H/.git-credentials"
	printf '{"auths": {"r": {"auth": "%s"}}}\n' "$MARK" >"$H/.docker/config.json"
	printf -- '-----BEGIN RSA PRIVATE KEY-----\n%s\n-----END RSA PRIVATE KEY-----\n' "$MARK" >"$H/.ssh/id_rsa"
	printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n' "$MARK" >"$H/.ssh/id_kept"
	printf 'ssh-rsa AAAA u@box\n' >"$H/.ssh/id_rsa.pub"
	printf 'ssh-rsa AAAA u@laptop\n' >"$H/.ssh/authorized_keys"
	printf 'TOKEN=%s\n' "$MARK" >"$W/.env"
	printf 'export HF_TOKEN=%s\n' "$MARK" >"$H/.bash_history"
	printf 'print("%s")\n' "$MARK" >"$H/.python_history"
	printf 'notes %s\n' "$MARK" >"$W/scratch/notes.txt"
	printf 'more\n' >"$W/scratch/deep/a.bin"
	printf 'keep me\n' >"$W/scratch/deep/keep.txt"
	ln -s /etc/hostname "$W/scratch/link"
	printf 'weights\n' >"$W/results/model.bin"
	ln "$W/results/model.bin" "$W/scratch/model-link.bin"   # a hard link: unlinked, never zeroed
	truncate -s 1100M "$T/tmproot/cache.bin"
	truncate -s 1G "$T/shm/batch.npy"
	printf 'small\n' >"$T/shm/small"
	chmod 600 "$H/.aws/credentials" "$H/.ssh/id_rsa" "$H/.ssh/id_kept"
}
rel() {
	cd "$W" || return
	run env -i HOME="$H" PATH=/usr/bin:/bin LANG=C GPURENT_TMP_ROOT="$T/tmproot" GPURENT_SHM_PATH="$T/shm" \
		GPURENT_LEDGER="$T/ledger.db" "$G" release "$@"
	cd "$T" || return
}
listed() {   # the paths a run names as deleted (or to be), in its order
	sed -n -e 's/^  would delete \([a-z]*\) \(.*\) ([0-9]* bytes)$/\1 \2/p' \
		-e 's/^  deleted \([a-z]*\) \(.*\) ([0-9]* bytes)$/\1 \2/p' \
		-e 's/^  would remove directory \([a-z]*\) \(.*\)$/dir \1 \2/p' \
		-e 's/^  removed directory \([a-z]*\) \(.*\)$/dir \1 \2/p' "$1"
}
no_secret() {
	if grep -al "$MARK" "$@" >/dev/null 2>&1; then bad "$1: a secret's value was printed or stored"; else ok; fi
}
truncate -s 1M "$T/probe.sparse" 2>/dev/null || { echo "SKIP release: no truncate"; finish; exit $?; }

ACT="printf '%s\\n' \"\$GPURENT_STOP_REASON\" >>'$T/calls'"
plant
rel --dry-run --keep "$H/.ssh/id_kept" --keep scratch/deep/keep.txt --path scratch --on-release "$ACT"
[ "$rc" -eq 0 ] && ok || bad "dry-run: exit $rc: $(cat "$T/err")"
cp "$T/out" "$T/dry.txt"; cp "$T/err" "$T/dry.err"
listed "$T/dry.txt" >"$T/dry.list"
grep -q '^  would run: printf' "$T/dry.txt" && ok || bad "dry-run does not say what it would run"
[ ! -e "$T/calls" ] && ok || bad "dry-run ran the action"
[ -f "$H/.aws/credentials" ] && [ -f "$H/.bash_history" ] && [ -f "$W/scratch/notes.txt" ] && [ -f "$T/tmproot/cache.bin" ] \
	&& ok || bad "dry-run deleted something"
cat >"$T/want.list" <<LIST
credential $H/.aws/credentials
credential $H/.config/gcloud/application_default_credentials.json
credential $H/.cache/huggingface/token
credential $H/.netrc
credential $H/.git-credentials
credential $H/.docker/config.json
credential $H/.ssh/id_rsa
credential $W/.env
leftover $T/shm/batch.npy
leftover $T/tmproot/cache.bin
path $W/scratch/deep/a.bin
path $W/scratch/link
path $W/scratch/model-link.bin
path $W/scratch/notes.txt
history $H/.bash_history
history $H/.python_history
LIST
cmp -s "$T/dry.list" "$T/want.list" && ok || { bad "dry-run list differs from the planted items"; diff "$T/want.list" "$T/dry.list"; }
[ ! -e "$T/ledger.db" ] && ok || bad "dry-run wrote the ledger"

# the real run deletes exactly that list, runs the action once, records it
rel --keep "$H/.ssh/id_kept" --keep scratch/deep/keep.txt --path scratch --on-release "$ACT"
[ "$rc" -eq 0 ] && ok || bad "release: exit $rc: $(cat "$T/err")"
cp "$T/out" "$T/real.txt"; cp "$T/err" "$T/real.err"
listed "$T/real.txt" >"$T/real.list"
cmp -s "$T/dry.list" "$T/real.list" && ok || { bad "release deleted other paths than --dry-run listed"; diff "$T/dry.list" "$T/real.list"; }
gone=0
while read -r a b c; do
	p=$b; [ "$a" = dir ] && p=$c
	[ -e "$p" ] || [ -L "$p" ] && { bad "still there: $p"; gone=1; }
done <"$T/real.list"
[ "$gone" = 0 ] && ok
[ -f "$H/.ssh/id_kept" ] && [ -f "$W/scratch/deep/keep.txt" ] && [ -f "$H/.ssh/id_rsa.pub" ] && [ -f "$H/.ssh/authorized_keys" ] && [ -f "$W/results/model.bin" ] \
	&& [ -f "$T/shm/small" ] && [ -f /etc/hostname ] && ok || bad "release deleted a kept or unlisted file"
[ "$(cat "$T/calls" 2>/dev/null)" = release ] && ok || bad "the action ran $(wc -l <"$T/calls" 2>/dev/null) times: $(cat "$T/calls" 2>/dev/null)"
grep -q '^step 4/4 release: done$' "$T/real.txt" && ok || bad "no 'release: done' step"
grep -q 'old blocks may survive' "$T/real.txt" && ok || bad "the SSD / copy-on-write limit is not stated"
[ "$(cat "$W/results/model.bin")" = weights ] && ok || bad "a hard link's other name was zeroed"
grep -q '^released: 8 credential, 2 leftover, 4 path and 2 history files deleted' "$T/real.txt" && ok \
	|| bad "summary: $(tail -1 "$T/real.txt")"
if command -v sqlite3 >/dev/null 2>&1; then
	row=$(sqlite3 "$T/ledger.db" "SELECT verify, credentials, leftovers, paths, histories, action, action_status, action_answer FROM releases")
	[ "$row" = "skipped|8|2|4|2|command|done|exit status 0" ] && ok || bad "ledger row: $row"
else
	echo "SKIP release ledger row: no sqlite3 program"
fi
no_secret output "$T/dry.txt" "$T/dry.err" "$T/real.txt" "$T/real.err"
no_secret ledger "$T"/ledger.db*

# a failing --verify: nothing deleted, no action, exit 1
plant
rm -f "$T/calls" "$T/ledger.db"
"$G" manifest "$W/results" -o "$T/results.manifest" >/dev/null 2>&1 || bad "manifest failed"
printf 'changed\n' >>"$W/results/model.bin"
rel --verify "$T/results.manifest" results --path scratch --on-release "$ACT"
[ "$rc" -eq 1 ] && ok || bad "failed verify: exit $rc"
grep -q 'step 1/4 verify: failed: nothing is deleted' "$T/out" && ok || bad "failed verify not said: $(cat "$T/out")"
[ -f "$H/.aws/credentials" ] && [ -f "$W/scratch/notes.txt" ] && [ -f "$H/.bash_history" ] && [ -f "$T/tmproot/cache.bin" ] \
	&& ok || bad "a failed verify deleted something"
[ ! -e "$T/calls" ] && ok || bad "a failed verify ran the action"
grep -q '^step 2/4' "$T/out" && bad "went on after a failed verify" || ok
# ... and a passing one goes on
"$G" manifest "$W/results" -o "$T/results.manifest" >/dev/null 2>&1
rel --verify "$T/results.manifest" results --on-release "$ACT"
[ "$rc" -eq 0 ] && grep -q '^step 1/4 verify: ok$' "$T/out" && ok || bad "passing verify: exit $rc $(cat "$T/err")"
[ ! -e "$H/.aws/credentials" ] && [ "$(wc -l <"$T/calls")" -eq 1 ] && ok || bad "after a passing verify"

# a failing action: exit 1, recorded as failed, the command's text not stored
plant
rm -f "$T/ledger.db"
rel --on-release "exit 3 # $MARK"
[ "$rc" -eq 1 ] && grep -q '^step 4/4 release: failed$' "$T/out" && ok || bad "failing action: exit $rc"
if command -v sqlite3 >/dev/null 2>&1; then
	[ "$(sqlite3 "$T/ledger.db" "SELECT action, action_status FROM releases")" = "command|failed" ] && ok || bad "failed action not recorded"
fi
no_secret failed-action-ledger "$T"/ledger.db*

# an action that hangs is killed at --stop-timeout, and the release fails
plant
rel --no-ledger --on-release "sleep 300" --stop-timeout 1s
[ "$rc" -eq 1 ] && grep -q 'did not finish within 1 s: killed' "$T/err" && ok || bad "hanging action: exit $rc $(cat "$T/err")"

# a stop-only preset: what its storage keeps billing a day, and the releasing preset
plant
cd "$W" && run env -i HOME="$H" PATH=/usr/bin:/bin RUNPOD_POD_ID=p1 GPURENT_TMP_ROOT="$T/tmproot" \
	GPURENT_SHM_PATH="$T/shm" "$G" release --dry-run --preset runpod; cd "$T"
grep -Eq 'preset runpod only stops the instance: its storage keeps billing, about [0-9]+\.[0-9]{2} USD a day for the [0-9]+ GB used here \(data/billing.csv .runpod.: storage 0.10 USD per GB-month, stopped 0.000 USD an hour\)$' "$T/err" \
	&& grep -q 'preset runpod-release deletes the instance and its disks instead' "$T/err" && ok || bad "stop-only preset: $(cat "$T/err")"
# the figure is the formula's: 24 x 0 + GB x 0.10 / 30, for the GB it states
awk '/USD a day for the/ { for (i = 1; i <= NF; i++) { if ($i == "about") d = $(i + 1); if ($i == "the" && $(i + 2) == "GB") g = $(i + 1) } }
	END { e = g * 0.10 / 30; exit !(d + 0 >= e - 0.0051 - 0.0034 && d + 0 <= e + 0.0051 + 0.0034) }' "$T/err" && ok \
	|| bad "the daily figure is not GB x 0.10 / 30: $(cat "$T/err")"
grep -Fq 'would run: runpodctl stop pod "$RUNPOD_POD_ID"' "$T/out" && ok || bad "runpod dry run: $(cat "$T/out")"
cd "$W" && run env -i HOME="$H" PATH=/usr/bin:/bin RUNPOD_POD_ID=p1 GPURENT_TMP_ROOT="$T/tmproot" \
	GPURENT_SHM_PATH="$T/shm" "$G" release --dry-run --preset runpod-release; cd "$T"
grep -Fq 'would run: runpodctl remove pod "$RUNPOD_POD_ID"' "$T/out" && [ ! -s "$T/err" ] && ok || bad "runpod-release: $(cat "$T/out" "$T/err")"
for p in aws-release azure-release gcp-release vastai-release slurm; do
	"$G" release --dry-run --no-ledger --preset "$p" >"$T/out" 2>"$T/err"
	grep -q "^step 4/4 release: $p: " "$T/out" && ! grep -q 'only stops' "$T/err" && ok || bad "preset $p: $(cat "$T/err")"
done
grep -q 'gcloud compute instances delete' "$T/out" || "$G" release --dry-run --no-ledger --preset gcp-release 2>/dev/null | grep -q -- '--delete-disks=all' && ok || bad "gcp-release does not delete the disks"

# bad usage: one line, exit 2, nothing deleted
plant
usage() {   # usage TEXT ARGS...
	want=$1; shift
	rel "$@"
	[ "$rc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -Fq -- "$want" "$T/err" && [ -f "$H/.aws/credentials" ] \
		&& ok || bad "release $*: rc $rc: $(cat "$T/err")"
}
usage 'unknown preset' --preset nosuch
usage 'needs the environment variable RUNPOD_POD_ID' --preset runpod-release
usage 'give one release action' --preset slurm --on-release true
usage 'expected the directory to check after it' --verify "$T/results.manifest"
usage 'a directory operand goes with --verify MANIFEST' results
usage 'No such file or directory' --path no-such-dir
usage 'refusing to delete / or your whole home directory' --path "$H"

# the guard: --release picks the preset's releasing variant
RUNPOD_POD_ID=p1 "$G" run --no-ledger --dry-run --preset runpod --release -- true >"$T/out" 2>"$T/err"
grep -Fq 'would run: runpodctl remove pod "$RUNPOD_POD_ID"' "$T/err" && ok || bad "run --release: $(cat "$T/err")"
"$G" run --no-ledger --dry-run --preset autodl --release -- true >"$T/out" 2>"$T/err"
[ $? -eq 2 ] && grep -q 'has no release variant' "$T/err" && ok || bad "run --release autodl: $(cat "$T/err")"
SLURM_JOB_ID=7 "$G" run --no-ledger --dry-run --preset slurm --release -- true >"$T/out" 2>"$T/err"
# under Slurm the end of the job is the release: the guard ends it (a
# clean exit frees the allocation; docs/slurm.md)
grep -Fq 'Slurm job 7: CMD finished its work; the job ends' "$T/err" && ok || bad "run --release slurm: $(cat "$T/err")"
# the plan's checklist names the preset that fits the chosen offer
"$G" plan "$ROOT/examples/lora-7b.yaml" --only runpod >"$T/out" 2>"$T/err"
grep -q 'at the end: gpurent release --verify MANIFEST DIR --preset runpod-release deletes the instance' "$T/out" \
	&& ok || bad "plan --only runpod: no runpod-release line: $(grep 'at the end' "$T/out")"
"$G" plan "$ROOT/examples/lora-7b.yaml" --only autodl >"$T/out" 2>"$T/err"
grep -q 'at the end: gpurent release --preset autodl only stops it' "$T/out" \
	&& ok || bad "plan --only autodl: $(grep 'at the end' "$T/out") $(head -2 "$T/err")"
if need_py "plan --json release_preset"; then
	"$G" plan "$ROOT/examples/lora-7b.yaml" --only runpod --json >"$T/out" 2>/dev/null
	python3 -c "import json; assert json.load(open('$T/out'))['advice']['release_preset'] == 'runpod-release'" && ok || bad "plan --json release_preset"
fi
finish
