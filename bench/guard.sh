#!/bin/sh
# bench/guard.sh - issue 4's guard benchmark (not a test): the overhead of
# `gpurent run` itself while it supervises a 60-second child with 1 s
# sampling, and how fast it reacts when the child exits. Targets: peak RSS
# at most 4 MB, CPU at most 0.2% of one core, CMD's exit to the stop action
# under 100 ms. Two sampling modes: NVML (the fake libnvidia-ml.so the
# tests build: the same calls a real driver gets) and the CPU fallback
# (CMD's process tree read from /proc every second). The ledger is on, as
# on a real box.
#   sh bench/guard.sh [SECONDS] [EXIT_RUNS]     (defaults 60 and 20)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DUR=${1:-60}
RUNS=${2:-20}
BUILD=${BUILD:-build}
G=${GPURENT:-$ROOT/$BUILD/gpurent}
make -C "$ROOT" -s BUILD="$BUILD" "$BUILD/gpurent" "$BUILD/fake/libnvidia-ml.so.1" >/dev/null
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$W"
HZ=$(getconf CLK_TCK)
# the baseline: a process that does nothing but wake once a second, run
# beside the guard over the same window. On a VM each wake-up is charged
# CPU whoever wakes; what is left over is the guard's own work.
cat >wake.c <<'EOF'
#include <poll.h>
#include <stdlib.h>
int main(int c, char **v) { for (int i = atoi(c > 1 ? v[1] : "0"); i > 0; i--) poll(0, 0, 1000); return 0; }
EOF
${CC:-cc} -O2 -o wake wake.c
cat >nv <<'EOF'
driver 550.54.15
gpu name="NVIDIA H100 80GB HBM3" mem=80GiB used=60GiB util=97 memutil=40 cc=9.0
EOF

# cpu_ns PID: CPU time used so far, in ns (schedstat, else utime+stime ticks)
cpu_ns() {
	if [ -r "/proc/$1/schedstat" ]; then
		cut -d' ' -f1 "/proc/$1/schedstat"
	else
		awk -v hz="$HZ" '{ sub(/^.*\) /, ""); print ($12 + $13) * 1e9 / hz }' "/proc/$1/stat"
	fi
}
now_ns() { date +%s%N; }

# overhead LABEL ENV...: supervise `sleep DUR`; print peak RSS and CPU share
fails=0
overhead() {
	label=$1
	shift
	env "$@" "$G" run --ledger "$W/ledger.db" --log-dir "$W/logs" --poll 1s --idle 30m \
		--on-stop true -- sleep "$DUR" 2>"$W/err" &
	gp=$!
	./wake "$DUR" &
	wp=$!
	t0=$(now_ns)
	sleep 0.5
	c0=$(cpu_ns "$gp")
	w0=$(cpu_ns "$wp")
	a0=$(now_ns)
	sleep $((DUR - 2))
	c1=$(cpu_ns "$gp")
	w1=$(cpu_ns "$wp")
	a1=$(now_ns)
	hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$gp/status")
	# where the resident pages are: the guard's own (anonymous) memory and
	# the shared libraries the binary is linked with
	where=$(awk '/^[0-9a-f]+-/ { name = $6 ~ /^\// ? $6 : "anonymous (heap, stack, data)"; sub(/.*\//, "", name) }
		/^Rss:/ { r[name] += $2 }
		END { for (k in r) printf "%d\t%s\n", r[k], k }' "/proc/$gp/smaps" |
		sort -rn | awk -F '\t' '{ printf "%s%s %.2f", (NR > 1 ? ", " : ""), $2, $1 / 1024 }')
	total=$(cpu_ns "$gp")
	kill "$wp" 2>/dev/null || true
	wait "$gp" || true
	wait "$wp" 2>/dev/null || true
	awk -v l="$label" -v hwm="$hwm" -v c="$((c1 - c0))" -v a="$((a1 - a0))" -v tot="$total" \
	    -v el="$((a1 - t0))" -v w="$((w1 - w0))" 'BEGIN {
		cpu = 100 * c / a; all = 100 * tot / el; base = 100 * w / a; own = cpu - base
		printf "  %-13s peak RSS %.2f MB (limit 4 MB), CPU %.4f%% of one core while supervising, %.4f%% with start-up\n",
		       l, hwm / 1024, cpu, all
		printf "                a process that only wakes once a second: %.4f%%; the guard beyond it: %.4f%% (limit 0.2%%)  %s\n",
		       base, own, (hwm <= 4096 && own <= 0.2) ? "ok" : "OVER"
		exit !(hwm <= 4096 && own <= 0.2) }' || fails=$((fails + 1))
	echo "                resident now, MB: $where"
}

echo "gpurent run overhead, supervising a ${DUR} s child, sampling every 1 s ($(nproc) CPUs, $(uname -r)):"
overhead "NVML (fake):" -u GPURENT_NVML_LIB LD_LIBRARY_PATH="$ROOT/$BUILD/fake" FAKE_NVML_SCRIPT="$W/nv"
overhead "CPU fallback:" GPURENT_NVML_LIB=none

# CMD exits -> stop action: CMD writes the time as its last act, the action
# the time as its first; the guard learns of the exit from SIGCHLD, not a poll.
i=0
: >lat
while [ "$i" -lt "$RUNS" ]; do
	GPURENT_NVML_LIB=none "$G" run --no-ledger --log-dir "$W/logs" --poll 1s \
		--on-stop "date +%s%N >$W/t2" -- sh -c "sleep 0.1; date +%s%N >$W/t1" 2>/dev/null
	echo $(( ($(cat t2) - $(cat t1)) / 1000 )) >>lat
	i=$((i + 1))
done
sort -n lat | awk -v n="$RUNS" '{ v[NR] = $1 } END {
	med = v[int((n + 1) / 2)] / 1000; max = v[n] / 1000
	printf "CMD exit -> stop action: median %.1f ms, max %.1f ms over %d runs (limit 100 ms)  %s\n",
	       med, max, n, max < 100 ? "ok" : "OVER"
	exit !(max < 100) }' || fails=$((fails + 1))
[ "$fails" -eq 0 ]
