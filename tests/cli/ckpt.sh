#!/bin/sh
# tests/cli/ckpt.sh - `gpurent ckpt latest` and `gpurent ckpt prune` on
# checkpoint directories made here. Prints "ckpt: N passed, M failed".
export LC_ALL=C
NAME=ckpt
. "$(dirname "$0")/lib/common.sh"

# numeric order, temp files and a torn (empty) file
mkdir d
for s in 99 999 1000; do echo "weights $s" >"d/step_$s.pt"; done
echo partial >d/.step_2000.pt.tmp.AbC123
echo partial >d/step_3000.pt.partial
: >d/step_1500.pt
echo notes >d/README
run "$G" ckpt latest d
[ "$rc" -eq 0 ] && [ "$(cat out)" = "d/step_1000.pt" ] && ok || bad "latest: step_1000 after step_999, torn and temp ignored: rc $rc $(cat out err)"
run "$G" ckpt latest d/ --explain
[ "$(cat out)" = "d/step_1000.pt" ] && ok || bad "a trailing slash: $(cat out)"
grep -q '^step_1500.pt: torn, step 1500 (an empty file)$' err && grep -q '^step_1000.pt: complete, step 1000 <- latest$' err \
	&& grep -q '^.step_2000.pt.tmp.AbC123: temporary' err && grep -q '^README: not a checkpoint' err \
	&& ok || bad "--explain: $(cat err)"

# markers: once used, only marked checkpoints count
mkdir m
for s in 100 200 300; do echo x >"m/step_$s.bin"; done
: >m/step_100.bin.complete
: >m/step_200.bin.done
run "$G" ckpt latest m
[ "$(cat out)" = "m/step_200.bin" ] && ok || bad "marker mode: $(cat out err)"

# checkpoint directories with a marker inside (HF Trainer, torch DCP)
mkdir -p h/checkpoint-500 h/checkpoint-1000 h/checkpoint-1500
echo '{}' >h/checkpoint-500/trainer_state.json
echo '{}' >h/checkpoint-1000/trainer_state.json
echo w >h/checkpoint-1500/model.safetensors
run "$G" ckpt latest h
[ "$(cat out)" = "h/checkpoint-1000" ] && ok || bad "directories with markers: $(cat out err)"

# none, and no directory: exit 1
mkdir e
run "$G" ckpt latest e
[ "$rc" -eq 1 ] && [ ! -s out ] && grep -q 'no complete checkpoint' err && ok || bad "empty dir: rc $rc $(cat err)"
run "$G" ckpt latest nowhere
[ "$rc" -eq 1 ] && grep -q 'no such directory' err && ok || bad "missing dir: rc $rc $(cat err)"
run "$G" ckpt latest
[ "$rc" -eq 2 ] && ok || bad "no DIR: exit 2, got $rc"
run "$G" ckpt latest d --bogus
[ "$rc" -eq 2 ] && grep -q 'unknown option' err && ok || bad "unknown option: rc $rc"

# prune
mkdir p
for s in 1 2 3 4 5; do echo x >"p/step_$s.pt"; touch -d "2024-01-0$s" "p/step_$s.pt"; done
: >p/step_0.pt
echo x >p/.step_6.pt.tmp.Zz9Yy8
touch -d 2024-01-01 p/.step_6.pt.tmp.Zz9Yy8
echo x >p/.step_7.pt.tmp.Qq1Ww2
run "$G" ckpt prune p --keep 2 --dry-run
[ "$rc" -eq 0 ] && [ "$(grep -c '^would remove' out)" -eq 5 ] && [ "$(ls -A p | wc -l)" -eq 8 ] \
	&& ok || bad "prune --dry-run: $(cat out err)"
run "$G" ckpt prune p --keep 2
[ "$rc" -eq 0 ] && [ "$(ls -A p | sort | tr '\n' ' ')" = ".step_7.pt.tmp.Qq1Ww2 step_4.pt step_5.pt " ] \
	&& ok || bad "prune --keep 2 left: $(ls -A p | tr '\n' ' ') $(cat err)"
run "$G" ckpt prune h --keep 1
[ "$rc" -eq 0 ] && [ ! -e h/checkpoint-500 ] && [ -d h/checkpoint-1000 ] && [ -d h/checkpoint-1500 ] \
	&& ok || bad "prune removes whole checkpoint directories, keeps the one in progress: $(ls h) $(cat err)"
run "$G" ckpt prune p
[ "$rc" -eq 2 ] && grep -q -- '--keep' err && ok || bad "prune without --keep: rc $rc"
run "$G" ckpt prune p --keep 0
[ "$rc" -eq 2 ] && ok || bad "prune --keep 0: rc $rc"

# the help and the man page
run "$G" ckpt --help
grep -q 'ckpt latest DIR' out && grep -q 'ckpt prune DIR --keep N' out && ok || bad "ckpt --help lists latest and prune"
grep -q 'fBckpt latest' "$ROOT/docs/gpurent.1" && grep -q 'fBckpt prune' "$ROOT/docs/gpurent.1" \
	&& ok || bad "docs/gpurent.1 lacks ckpt latest/prune"

# a write at least as long as the MTBF cannot make progress: said, not 5987214.2%
run "$G" ckpt interval --write 10h --mtbf 1h --work 24h
[ "$rc" -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'cannot make progress' "$T/err" &&
	[ ! -s "$T/out" ] && ok || bad "write >= mtbf: rc $rc $(cat "$T/out" "$T/err")"

finish
