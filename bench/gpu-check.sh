#!/bin/sh
# bench/gpu-check.sh - the check of gpurent bench's GPU path on a real NVIDIA
# GPU (not a test: CI has no GPU). Two steps, because the GPU machine may
# lack gpurent's build dependencies:
#   sh bench/gpu-check.sh pack   here: build, then copy build/gpurent and the
#                                non-glibc libraries it links into .devbin/
#                                (git-ignored; carry it to the GPU machine)
#   sh bench/gpu-check.sh run    there: gpurent env, then gpurent bench on
#                                every GPU, and the figures against what this
#                                workplace measured on an H200 through PyTorch
#                                (bf16 8192^3 GEMM ~790 TFLOP/s, device copy
#                                ~4.3 TB/s read+write): PASS when gpurent gets
#                                at least 85% of them.
# Exit status: 0 all PASS (or not an H200: figures printed only), 1 a FAIL,
# 2 the binary cannot run there.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
D=$ROOT/.devbin
case "${1:-}" in
pack)
	make -C "$ROOT" >/dev/null || exit 2
	rm -rf "$D" && mkdir -p "$D"
	cp "$ROOT/build/gpurent" "$D/"
	ldd "$ROOT/build/gpurent" | awk '/=> \// { print $3 }' |
		grep -Ev '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*)\.so' |
		while read -r lib; do cp -L "$lib" "$D/"; done
	grep -qx '/.devbin/' "$ROOT/.git/info/exclude" 2>/dev/null || echo '/.devbin/' >>"$ROOT/.git/info/exclude"
	du -sh "$D"
	;;
run)
	G="$D/gpurent"
	export LD_LIBRARY_PATH="$D${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
	if ! "$G" --version >/dev/null 2>"$D/ldd.err"; then
		echo "gpurent does not run here: $(head -3 "$D/ldd.err")"
		exit 2
	fi
	export GPURENT_LEDGER="${GPURENT_LEDGER:-$D/ledger.db}"
	echo "== gpurent env"
	"$G" env --dir "${OUT:-/tmp}"
	echo "== gpurent bench --gpu all"
	"$G" bench --gpu all --dir "${OUT:-/tmp}" --disk-size 1GiB
	"$G" bench --gpu all --dir "${OUT:-/tmp}" --disk-size 64MiB --no-store --json >"$D/bench.json" || true
	[ -n "${OUT:-}" ] && cp "$D/bench.json" "$OUT/" 2>/dev/null
	python3 - "$D/bench.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = {(x['test'], x.get('gpu_index')): x for x in d['results']}
gpu = next((x['gpu'] for x in d['results'] if x['gpu']), None)
print("skipped:", [s['reason'] for s in d['skipped']] or "nothing")
if not gpu:
    print("FAIL: no GPU result"); sys.exit(1)
if 'H200' not in gpu:
    print(f"{gpu}: not an H200, figures above only"); sys.exit(0)
bad = 0
for test, want, unit in (('gemm_bf16', 790, 'TFLOP/s'), ('d2d_copy', 4300, 'GB/s')):
    x = r.get((test, 0))
    got = x['value'] if x else 0
    ok = got >= 0.85 * want
    bad += not ok
    print(f"{'PASS' if ok else 'FAIL'}: {test} {got:.0f} {unit} (PyTorch measured ~{want} here; "
          f"{100 * got / want:.0f}%)")
sys.exit(1 if bad else 0)
PY
	;;
*)
	echo "usage: sh bench/gpu-check.sh pack|run" >&2
	exit 2
	;;
esac
