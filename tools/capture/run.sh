#!/bin/bash
# run.sh CHECKOUT BIN OUT - runs CHECKOUT's tests/cli/*.sh (but run.sh and
# progress.sh, which signal the binary by its pid) with BIN behind wrap.sh,
# recording every invocation under OUT/<script>/. To show that a change
# leaves the CLI's outputs as they were: a checkout of the old commit with
# its build (make, plus the fake NVML and tests/progs), then
#   tools/capture/run.sh OLD /x/gpurent A      (the old binary copied to /x)
#   tools/capture/run.sh OLD /x/gpurent A2     (again: what varies by itself)
#   tools/capture/run.sh OLD /x/gpurent B      (the new binary copied to /x,
#                                               its build/locale beside it)
#   python3 tools/capture/compare.py A2 B A
# The binary stays at one path so that messages naming it agree.
set -u
repo=$1 bin=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out"; mkdir -p "$out"
cd "$repo" || exit 2
for s in tests/cli/*.sh; do
	n=$(basename "$s" .sh)
	case $n in run|progress) continue;; esac
	CAPDIR=$out/$n CAP_REAL=$bin GPURENT=$here/wrap.sh sh "$s" >"$out/$n.log" 2>&1
	echo "$n rc=$? $(tail -1 "$out/$n.log")"
done
