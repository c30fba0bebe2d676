#!/bin/sh
# tests/cli/env.sh - `gpurent env` on the fake NVML (tests/fake/fake_nvml.c):
# a whole card, a MIG slice, a vGPU, a driver too old for the framework's
# CUDA, no NVML at all, a small /dev/shm; with a fake python3 on PATH that
# prints scripted framework versions. And `gpurent bench`: without a GPU
# (the GPU part skipped with one line, host numbers present and positive),
# and its whole GPU path on a fake libcudart/libcublas
# (tests/fake/fake_cuda.c) whose timings are known in advance; results in
# the ledger and --history. Prints "env: N passed, M failed".
NAME=env
. "$(dirname "$0")/lib/common.sh"
# The security part (tests/cli/security.sh tests it) looks at the machine's
# listening sockets, the home and /tmp, which other work on a busy machine
# changes: here it sees a machine of the test's own, empty.
mkdir -p "$T/sec-home" "$T/sec-proc" "$T/sec-tmp"
export HOME="$T/sec-home" GPURENT_PROC_ROOT="$T/sec-proc" GPURENT_TMP_ROOT="$T/sec-tmp"

# ---- fakes ----
mkdir -p "$T/bin" "$T/fake" "$T/fakecuda" "$T/empty" "$T/work"
FAKE_OK=1
if [ -f "$(dirname "$G")/fake/libnvidia-ml.so.1" ]; then
	cp "$(dirname "$G")/fake/libnvidia-ml.so.1" "$T/fake/"
elif ! cc -std=c17 -D_POSIX_C_SOURCE=200809L -O1 -shared -fPIC -Wl,-soname,libnvidia-ml.so.1 \
	-o "$T/fake/libnvidia-ml.so.1" "$ROOT/tests/fake/fake_nvml.c" 2>"$T/cc.err"; then
	FAKE_OK=0
	echo "SKIP fake NVML cases: cannot build tests/fake/fake_nvml.c: $(head -1 "$T/cc.err")"
fi
CUDA_OK=1
if cc -std=c17 -D_POSIX_C_SOURCE=200809L -O1 -shared -fPIC -Wl,-soname,libcudart.so.13 \
	-o "$T/fakecuda/libcudart.so.13" "$ROOT/tests/fake/fake_cuda.c" 2>"$T/cc.err"; then
	ln -s libcudart.so.13 "$T/fakecuda/libcublas.so.13"
	[ "$FAKE_OK" = 1 ] && cp "$T/fake/libnvidia-ml.so.1" "$T/fakecuda/"
else
	CUDA_OK=0
	echo "SKIP fake CUDA cases: cannot build tests/fake/fake_cuda.c: $(head -1 "$T/cc.err")"
fi
# python3 and nvcc on PATH print what the scenario says
cat >"$T/bin/python3" <<'EOF'
#!/bin/sh
cat "$FAKE_PY"
EOF
cat >"$T/bin/nvcc" <<'EOF'
#!/bin/sh
echo "nvcc: NVIDIA (R) Cuda compiler driver"
echo "Cuda compilation tools, release 12.4, V12.4.131"
EOF
chmod +x "$T/bin/python3" "$T/bin/nvcc"
REALPY=$(command -v python3 || true)
TAB=$(printf '\t')

nvml() { printf '%s\n' "$@" >"$T/nvml.script"; }
py() { printf "$1" >"$T/py.out"; }
# gpurent env on the scripted box; /dev/shm is $T (a large directory) unless given
envrun() {
	run env LD_LIBRARY_PATH="${LIBS:-$T/fake}" FAKE_NVML_SCRIPT="$T/nvml.script" FAKE_PY="$T/py.out" \
		PATH="$T/bin:/usr/bin:/bin" "$G" env --shm-path "${SHM:-$T}" "$@"
}
# has_line LEVEL TOPIC TEXT: a verdict (its line joined with its fix line) containing TEXT
has_line() {
	awk -v lv="$1" -v tp="$2" '
		$1 == lv && $2 == tp { if (cur != "") print cur; cur = $0; next }
		cur != "" && /^ +fix: / { cur = cur " " $0; print cur; cur = ""; next }
		{ if (cur != "") print cur; cur = "" }
		END { if (cur != "") print cur }' "$T/out" | grep -Fq -- "$3"
}
check() {   # check NAME LEVEL TOPIC TEXT
	if has_line "$2" "$3" "$4"; then ok; else bad "$1: no '$2 $3' line with '$4'"; sed 's/^/    /' "$T/out" | head -30; fi
}
no_line() {   # no_line NAME LEVEL TOPIC
	if grep -Eq "^$2 +$3 " "$T/out"; then bad "$1: unexpected '$2 $3' line"; grep -E "^$2 +$3 " "$T/out"; else ok; fi
}
# exit status 1 exactly when a check fails
status_matches() {
	if grep -q '^fail ' "$T/out"; then want=1; else want=0; fi
	[ "$rc" -eq "$want" ] && ok || bad "$1: exit $rc with$( [ "$want" = 0 ] && echo out) fail lines"
}

PY_TORCH121="python${TAB}3.11.9\nfw${TAB}torch${TAB}ok${TAB}2.3.1+cu121${TAB}12.1${TAB}1${TAB}sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90${TAB}\nfw${TAB}tensorflow${TAB}missing\nfw${TAB}jax${TAB}missing\n"

if [ "$FAKE_OK" = 1 ]; then
	# 1. a whole card: the box as paid for
	nvml "driver 550.54.15" "cuda 12040" \
		'gpu name="NVIDIA H100 80GB HBM3" mem=81559MiB used=0.5GiB mig=0 virt=0 cc=9.0 pcie=5/5 width=16/16 nvlink=18 busid=00000000:3B:00.0'
	py "$PY_TORCH121"
	envrun
	check whole-driver ok driver "NVIDIA driver 550.54.15, runs CUDA up to 12.4; 1 GPU"
	check whole-gpu info gpu0 "NVIDIA H100 80GB HBM3: 79.6 GiB, 79.1 GiB free; compute capability 9.0; PCIe gen5 x16 now (gen5 x16 at most); 18 NVLink links active"
	check whole-card ok gpu0 "a whole card: 79.6 GiB visible; the NVIDIA H100 SXM has 80 GB"
	check whole-torch ok torch "PyTorch 2.3.1+cu121, built for CUDA 12.1, runs on driver 550.54.15 (needs >= 530.30.02)"
	check whole-python info python "python 3.11.9: torch 2.3.1+cu121 for CUDA 12.1, tensorflow not installed, jax not installed"
	check whole-nvcc info cuda "nvcc 12.4"
	no_line whole-no-gpu-warn warn gpu0
	no_line whole-no-torch-fail fail torch
	status_matches whole-status
	grep -q '^verdict: ' "$T/out" && ok || bad "whole: no verdict line"

	if need_py "env --json"; then
		envrun --json
		"$REALPY" -c "
import json, sys
d = json.load(open('$T/out'))
assert d['schema'] == 'gpurent.env/1', d['schema']
assert d['driver'] == {'nvml': True, 'version': '550.54.15', 'cuda': '12.4'}, d['driver']
g = d['gpus'][0]
assert g['name'] == 'NVIDIA H100 80GB HBM3' and g['mig'] is False and g['virtualization'] == 'none'
assert g['compute_capability'] == '9.0' and g['pcie_gen_max'] == 5 and g['nvlink_active'] == 18
assert g['spec'] == 'NVIDIA H100 SXM' and g['nominal_memory_bytes'] == 80e9
fw = {f['name']: f for f in d['python']['frameworks']}
assert fw['torch']['cuda'] == '12.1' and fw['torch']['gpus'] == 1 and not fw['jax']['installed']
assert d['host_resources']['shm']['path'] == '$T'
assert d['dirs'][0]['role'] == 'working'
levels = {c['level'] for c in d['checks']}
assert levels <= {'info', 'ok', 'warn', 'fail'}
assert d['verdict'] == ('fail' if d['counts']['fail'] else 'warn' if d['counts']['warn'] else 'ok')
assert any(c['topic'] == 'gpu0' and c['level'] == 'ok' for c in d['checks'])
import re
assert all(re.fullmatch('[a-z][a-z_]*', c['code']) for c in d['checks']), d['checks']
assert any(c['topic'] == 'gpu0' and c['code'] == 'gpu_whole' for c in d['checks'])
assert any(c['topic'] == 'torch' and c['code'] == 'fw_driver_ok' and c['fix'] is None for c in d['checks'])
" && ok || bad "--json"
	fi

	# 2. a MIG slice sold as a card
	nvml "driver 550.54.15" "cuda 12040" \
		'gpu name="NVIDIA A100-SXM4-80GB" mem=40192MiB used=0.3GiB mig=1 virt=0 cc=8.0 pcie=4/4 width=16/16'
	envrun
	check mig warn gpu0 "MIG mode is on: you get a slice (a MIG instance) of this card (39.2 GiB visible); the whole NVIDIA A100 80GB SXM has 80 GB"
	check mig-fix warn gpu0 "nvidia-smi -mig 0"
	no_line mig-not-whole ok gpu0
	# NVML shows the whole card's memory; the instance it can open is the slice
	nvml "driver 550.54.15" "cuda 12040" \
		'gpu name="NVIDIA A100-SXM4-80GB" mem=81920MiB used=0.3GiB mig=1 virt=0 cc=8.0 migmem=9984MiB'
	envrun
	check mig-instance warn gpu0 "MIG mode is on: you get a slice (a MIG instance) of this card with 9.8 GiB; the whole NVIDIA A100 80GB SXM has 80 GB"

	# 3. a vGPU
	nvml "driver 535.104.05" "cuda 12020" \
		'gpu name="GRID A100-40C" mem=40960MiB used=0.2GiB mig=0 virt=2 cc=8.0'
	envrun
	check vgpu warn gpu0 "a vGPU: the card is virtualised and may be time-shared with other tenants"
	check vgpu-info info gpu0 "virtualization: vGPU"
	no_line vgpu-not-whole ok gpu0

	# 4. a driver too old for the framework's CUDA (acceptance 2)
	nvml "driver 470.82.01" "cuda 11040" \
		'gpu name="NVIDIA A100-SXM4-80GB" mem=81920MiB used=0.3GiB mig=0 virt=0 cc=8.0'
	py "python${TAB}3.10.12\nfw${TAB}torch${TAB}ok${TAB}2.4.0+cu121${TAB}12.1${TAB}0${TAB}${TAB}RuntimeError: The NVIDIA driver on your system is too old (found version 11040).\nfw${TAB}tensorflow${TAB}missing\nfw${TAB}jax${TAB}ok${TAB}0.4.35${TAB}12${TAB}0${TAB}${TAB}\n"
	envrun
	check old-torch fail torch "PyTorch 2.4.0+cu121 is built for CUDA 12.1, which needs driver >= 530.30.02 (>= 525.60.13 with minor version compatibility); driver 470.82.01 runs CUDA <= 11.4"
	check old-fix-build fail torch "pip install torch --index-url https://download.pytorch.org/whl/cuXYZ with XYZ at most 114"
	check old-fix-driver fail torch "upgrade the NVIDIA driver to >= 530.30.02"
	check old-fix-compat fail torch "cuda-compat-12-1"
	check old-sees fail torch "PyTorch cannot see the GPU: RuntimeError: The NVIDIA driver on your system is too old"
	check old-jax fail jax "JAX 0.4.35 is built for CUDA 12, which needs driver >= 525.60.13"
	check old-nvcc warn cuda "the system nvcc is CUDA 12.4, which needs driver >= 550.54.14"
	[ "$rc" -eq 1 ] && ok || bad "old driver: exit $rc, expected 1"

	# 5. NVML present but the driver is not loaded
	nvml "init 9"
	py "$PY_TORCH121"
	envrun
	check nvml-init warn driver "no NVIDIA driver: NVML did not start"
	check nvml-init-torch warn torch "built for CUDA 12.1, but there is no NVIDIA driver: it runs on the CPU"
	no_line nvml-init-gpu info gpu0
	status_matches nvml-init-status
	grep -q '; no GPU on this machine$' "$T/out" && ok || bad "no GPU said in the verdict line"
fi

# 6. no NVML at all (acceptance 2): no libnvidia-ml anywhere on the path
if ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml\.so\.1'; then
	echo "SKIP env without NVML: this machine has a real libnvidia-ml.so.1"
else
	py "$PY_TORCH121"
	LIBS=$T/empty envrun
	check no-nvml warn driver "no NVIDIA driver: no NVIDIA driver library (libnvidia-ml.so.1) on this machine: 0 GPUs"
	check no-nvml-fix warn driver "docker run --gpus all"
	no_line no-nvml-gpu info gpu0
	status_matches no-nvml-status
fi

# ... and NVML turned off, which works on any machine
py "$PY_TORCH121"
run env GPURENT_NVML_LIB=none FAKE_PY="$T/py.out" PATH="$T/bin:/usr/bin:/bin" "$G" env --shm-path "$T"
check nvml-none warn driver "no NVIDIA driver: NVML turned off (GPURENT_NVML_LIB=none): 0 GPUs"
status_matches nvml-none-status

# 7. no Python: said, not a crash; --no-python
LIBS=$T/empty envrun --python "$T/bin/no-such-python"
check no-python info python "no python3 to ask: $T/bin/no-such-python not found on PATH: framework checks skipped"
LIBS=$T/empty envrun --no-python
check no-python-flag info python "no python3 to ask: --no-python"
py "garbage\n"
LIBS=$T/empty envrun
check python-garbage info python "ran but did not answer the probe (exit status 0)"

# 8. a small /dev/shm (acceptance 2): a 64 MiB tmpfs, as docker gives by default
mkdir -p "$T/shm"
py "$PY_TORCH121"
if unshare --user --map-root-user --mount true 2>/dev/null; then
	nvml "driver 550.54.15" "cuda 12040"
	run unshare --user --map-root-user --mount sh -c \
		'mount -t tmpfs -o size=64m tmpfs "$1" && shift && exec "$@"' sh "$T/shm" \
		env LD_LIBRARY_PATH="$T/empty" FAKE_PY="$T/py.out" PATH="$T/bin:/usr/bin:/bin" \
		"$G" env --shm-path "$T/shm"
	check small-shm fail shm "$T/shm has 64 MiB free (64 MiB in all): PyTorch DataLoader workers die with 'bus error'"
	check small-shm-fix fail shm "--shm-size=16g or --ipc=host"
	[ "$rc" -eq 1 ] && ok || bad "small shm: exit $rc, expected 1"
else
	echo "SKIP env with a 64 MiB /dev/shm: cannot mount a tmpfs here (no user namespaces)"
fi
SHM=$T/no-such-shm LIBS=$T/empty envrun
check no-shm warn shm "$T/no-such-shm does not exist"
# GPURENT_SHM_PATH is the same knob
run env LD_LIBRARY_PATH="$T/empty" FAKE_PY="$T/py.out" PATH="$T/bin:/usr/bin:/bin" \
	GPURENT_SHM_PATH="$T/no-such-shm" "$G" env
check shm-env warn shm "$T/no-such-shm does not exist"

# 9. directories
LIBS=$T/empty envrun --dir "$T/work" --dir "$T/missing"
check dir-working ok disk "$T (working):"
check dir-ok ok disk "$T/work (dir):"
check dir-missing warn disk "$T/missing (dir): does not exist"

# 10. usage
expect_err env-unknown 2 "gpurent env: --frobnicate: unknown option" "$G" env --frobnicate
expect_err env-dir-value 2 "env: --dir: expected a value" "$G" env --dir
run "$G" env --help
cp "$T/out" "$T/help1"
run "$G" help env
cmp -s "$T/out" "$T/help1" && grep -q '^usage: gpurent env' "$T/out" && ok || bad "help env differs from env --help"

# ---- gpurent bench ----
export GPURENT_LEDGER="$T/ledger.db"
# 11. no GPU: the GPU part is skipped with one line; host numbers present and positive
run env LD_LIBRARY_PATH="$T/empty" CUDA_VISIBLE_DEVICES= "$G" bench --dir "$T/work" --disk-size 8MiB
[ "$rc" -eq 0 ] && ok || bad "bench: exit $rc: $(head -3 "$T/err")"
[ "$(grep -Ec '^gpu[0-9]* ' "$T/out")" -eq 1 ] && grep -Eq '^gpu +skipped: ' "$T/out" && ok \
	|| bad "bench without a GPU: expected one 'gpu  skipped:' line: $(grep -E '^gpu[0-9]* ' "$T/out")"
for t in 'memory copy, 1 thread' 'CPU sort, 1 thread' 'disk write 8 MiB \+ fsync' 'disk read 8 MiB'; do
	if grep -E "^(memory|cpu|disk) +$t" "$T/out" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^(GB\/s|Melem\/s)$/) { v = $(i - 1) } } END { exit !(v > 0) }'; then
		ok
	else
		bad "bench: '$t' missing or not positive"; cat "$T/out"
	fi
done
# as many results stored as result lines printed (2-thread lines need a second core)
n=$(grep -Ec '^(memory|cpu|disk) ' "$T/out")
[ "$n" -ge 4 ] && grep -q "^stored $n results in $T/ledger.db" "$T/out" \
	&& ok || bad "bench: $n results printed, not all stored: $(tail -1 "$T/out")"
[ ! -e "$T/work/.gpurent-bench-"* ] 2>/dev/null && ok || bad "bench left its disk file behind"

if need_py "bench --json without a GPU"; then
	run env LD_LIBRARY_PATH="$T/empty" CUDA_VISIBLE_DEVICES= "$G" bench --dir "$T/work" --disk-size 8MiB --no-store --json
	"$REALPY" -c "
import json
d = json.load(open('$T/out'))
assert d['schema'] == 'gpurent.bench/1' and d['stored'] is False and d['ledger'] is None
r = {x['test']: x for x in d['results']}
for t in ('mem_copy_1t', 'cpu_sort_1t', 'disk_write', 'disk_read'):
    assert r[t]['value'] > 0 and r[t]['gpu'] is None, t
assert r['disk_write']['unit'] == 'GB/s' and r['cpu_sort_1t']['unit'] == 'Melem/s'
assert not any(x['test'].startswith('gemm') for x in d['results'])
assert [s['part'] for s in d['skipped']] == ['gpu'] and d['skipped'][0]['reason'].startswith('skipped: ')
" && ok || bad "bench --json without a GPU"
fi

# 12. the whole GPU path on the fake CUDA: figures known in advance
if [ "$CUDA_OK" = 1 ] && [ "$FAKE_OK" = 1 ]; then
	nvml "driver 550.54.15" "cuda 12040" \
		'gpu name="NVIDIA H100 80GB HBM3" mem=81559MiB used=0.5GiB mig=0 virt=0 cc=9.0 pcie=5/5 width=16/16 busid=00000000:3B:00.0'
	run env LD_LIBRARY_PATH="$T/fakecuda" FAKE_NVML_SCRIPT="$T/nvml.script" "$G" bench --dir "$T/work" --disk-size 8MiB
	[ "$rc" -eq 0 ] && ok || bad "bench on fake CUDA: exit $rc: $(head -3 "$T/err")"
	grep -q 'fake_cuda' "$T/err" && bad "fake CUDA complains: $(cat "$T/err")" || ok
	grep -Fq 'gpu0    NVIDIA H100 80GB HBM3 (nominal: NVIDIA H100 SXM in data/gpus.csv)' "$T/out" && ok || bad "bench: GPU header"
	for want in 'GEMM bf16 4096^3 +500 TFLOP/s +51% of 989.5' 'GEMM fp16 4096^3 +500 TFLOP/s +51% of 989.5' \
		'GEMM fp32 2048^3 +50.00 TFLOP/s +75% of 67 ' 'device copy 128 MiB +3000 GB/s +90% of 3350' \
		'host->device 256 MiB pinned +50.00 GB/s +79% of 63.015' 'device->host 256 MiB pinned +50.00 GB/s +79% of 63.015'; do
		grep -Eq "^gpu0 +$(printf '%s' "$want" | sed 's/\^/\\^/g')" "$T/out" && ok || { bad "bench fake GPU: no '$want'"; grep '^gpu' "$T/out"; }
	done
	# env sees the fake runtime as the system CUDA
	py "$PY_TORCH121"
	LIBS=$T/fakecuda envrun
	check fake-cudart info cuda "system CUDA: runtime 13.0 (libcudart.so.13), nvcc 12.4"
	# bf16 needs Ampere: a T4 skips it with a line
	nvml "driver 550.54.15" "cuda 12040" 'gpu name="Tesla T4" mem=15360MiB cc=7.5 busid=00000000:3B:00.0'
	run env LD_LIBRARY_PATH="$T/fakecuda" FAKE_NVML_SCRIPT="$T/nvml.script" FAKE_CUDA_NAME="Tesla T4" FAKE_CUDA_CC=7.5 \
		"$G" bench --dir "$T/work" --disk-size 8MiB --no-store
	grep -Fq 'gpu0    GEMM bf16: needs compute capability 8.0 (Ampere) or newer, this is 7.5' "$T/out" && ok || bad "T4 bf16 skip line"
	grep -Eq '^gpu0 +GEMM fp16 4096\^3 +500 TFLOP/s +769% of 65' "$T/out" && ok || bad "T4 fp16 vs its nominal 65"
	grep -Eq '^gpu0 +host->device 256 MiB pinned +50.00 GB/s +317% of 15.754' "$T/out" && ok || bad "T4 PCIe gen3 nominal"
	# no device: one line
	run env LD_LIBRARY_PATH="$T/fakecuda" FAKE_CUDA_DEVICES=0 "$G" bench --dir "$T/work" --disk-size 8MiB --no-store
	grep -Fq 'gpu     skipped: no usable CUDA device (cudaErrorNoDevice: no CUDA-capable device is detected)' "$T/out" \
		&& ok || bad "no CUDA device line: $(grep '^gpu' "$T/out")"
	run env LD_LIBRARY_PATH="$T/fakecuda" "$G" bench --dir "$T/work" --disk-size 8MiB --no-store --gpu 3
	grep -Fq 'gpu     skipped: no CUDA device 3 (this box has 1)' "$T/out" && ok || bad "--gpu 3 line"
fi

# 13. --history compares boxes: another box measured twice as fast
if need_py "bench --history"; then
	"$REALPY" -c "
import sqlite3, time
db = sqlite3.connect('$T/ledger.db')
v = db.execute(\"SELECT value FROM bench_results WHERE test = 'mem_copy_1t' ORDER BY id DESC LIMIT 1\").fetchone()[0]
db.execute(\"INSERT INTO bench_results (measured_at, host, gpu, test, value, unit, nominal, recorded_at) VALUES (?, 'other-box', NULL, 'mem_copy_1t', ?, 'GB/s', NULL, ?)\", (time.time(), 2 * v, time.time()))
db.commit()"
	run "$G" bench --history
	awk '/^mem_copy_1t \(GB\/s\)/ { on = 1; next } on && /^  / { print; next } { on = 0 }' "$T/out" >"$T/mem"
	[ "$(wc -l <"$T/mem")" -eq 2 ] && sed -n 1p "$T/mem" | grep -q ' 1.00x  other-box ' \
		&& sed -n 2p "$T/mem" | grep -q ' 0.50x  ' && ok || { bad "--history: other-box first, this box at 0.50x"; cat "$T/out"; }
	run "$G" bench --history --json
	"$REALPY" -c "
import json
d = json.load(open('$T/out'))
assert d['schema'] == 'gpurent.bench-history/1'
m = [x for x in d['latest'] if x['test'] == 'mem_copy_1t']
assert [x['host'] for x in m][0] == 'other-box' and abs(m[1]['ratio_to_best'] - 0.5) < 1e-9
" && ok || bad "--history --json"
fi
GPURENT_LEDGER=$T/fresh.db run "$G" bench --history
grep -q "^no benchmark results in $T/fresh.db yet" "$T/out" && ok || bad "--history on an empty ledger"

# 14. bench usage and failures
expect_err bench-size 2 "bench: --disk-size: expected a size from 1MiB to 64GiB, got '0'" "$G" bench --disk-size 0
expect_err bench-gpu 2 "bench: --gpu: expected a device number or 'all', got 'x'" "$G" bench --gpu x
expect_err bench-unknown 2 "gpurent bench: --fast: unknown option" "$G" bench --fast
run env LD_LIBRARY_PATH="$T/empty" "$G" bench --dir "$T/missing" --no-gpu --no-store
[ "$rc" -eq 1 ] && grep -Eq "^disk +$T/missing: No such file or directory" "$T/out" && ok || bad "bench --dir missing: exit $rc: $(grep '^disk' "$T/out")"
run "$G" bench --help
cp "$T/out" "$T/help1"
run "$G" help bench
cmp -s "$T/out" "$T/help1" && grep -q '^usage: gpurent bench' "$T/out" && ok || bad "help bench differs from bench --help"

# 15. the hand-written CUDA ABI (src/hw/cuda_abi.h) against NVIDIA's headers, where installed
CUDA_INC=${CUDA_HOME:-/usr/local/cuda}/include
if [ -f "$CUDA_INC/cublas_api.h" ] && [ -f "$CUDA_INC/cuda_runtime_api.h" ]; then
	cc -std=c17 -fsyntax-only -Wall -Wextra -Werror -I"$CUDA_INC" -I"$ROOT/src" "$ROOT/tests/abi/cuda_abi_check.c" 2>"$T/abi.err" \
		&& ok || bad "src/hw/cuda_abi.h disagrees with $CUDA_INC: $(head -5 "$T/abi.err")"
else
	echo "SKIP CUDA ABI check: no CUDA headers in $CUDA_INC"
fi

# 16. documented
for c in env bench; do
	grep -q "gpurent $c" "$ROOT/README.md" && grep -Fq "$c" "$ROOT/docs/gpurent.1" \
		&& ok || bad "command $c missing from README.md or docs/gpurent.1"
done
for fl in --shm-path --no-python --disk-size --history --no-store; do
	grep -Fq -- "$fl" "$ROOT/docs/gpurent.1" && ok || bad "docs/gpurent.1 does not document $fl"
done

# one usable-CPU count (src/os/sys.c): the cgroup quota under GPURENT_CGROUP_ROOT
mkdir -p cg
echo "100000 100000" >cg/cpu.max
GPURENT_CGROUP_ROOT=$T/cg "$G" env --json >cg.json 2>/dev/null
grep -q '"cpus": 1,' cg.json && ok || bad "cpu.max 100000 100000 gives 1 usable CPU: $(grep cpus cg.json)"
echo "max 100000" >cg/cpu.max
GPURENT_CGROUP_ROOT=$T/cg "$G" env --json >cg.json 2>/dev/null
grep -q '"cpus": [1-9]' cg.json && ok || bad "cpu.max max: affinity decides: $(grep cpus cg.json)"

finish
