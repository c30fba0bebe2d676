#!/bin/sh
# bench/stress-watchdog.sh - the --hard-deadline watchdog against a guard
# killed with SIGKILL at every moment of its start, on a loaded machine:
# the job (a shell with two sleeps in its group) must never outlive the
# watchdog. `make stress` runs it 50 times under `stress-ng --cpu 4`;
# tests/cli/run.sh runs it 5 times without load.
#
#   GPURENT=build/gpurent sh bench/stress-watchdog.sh [RUNS] [--no-load]
#
# Prints "N runs, M orphans" and exits 1 when M > 0. Only the processes of
# each run are looked at: every run has a token of its own in the
# environment variable GPURENT_TEST_RUN, which the guard, the watchdog and
# the job inherit, so other users' processes (or another copy of this
# script) do not count.
export LC_ALL=C
G=${GPURENT:?set GPURENT to the binary}
RUNS=${1:-50}
LOAD=1
[ "${2:-}" = --no-load ] && LOAD=0
T=$(mktemp -d)
STRESS=
cleanup() {
	[ -n "$STRESS" ] && kill "$STRESS" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
if [ "$LOAD" = 1 ]; then
	if ! command -v stress-ng >/dev/null 2>&1; then
		echo "SKIP watchdog stress: stress-ng is not installed (apt-get install stress-ng)"
		exit 0
	fi
	stress-ng --cpu 4 --timeout 900 >/dev/null 2>&1 &
	STRESS=$!
fi
cd "$T" || exit 1
TOK=gpurent-stress-$$-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')

# the live processes (zombies read an empty environ) of run $1
tok_pids() {
	grep -lszxF "GPURENT_TEST_RUN=$1" /proc/[0-9]*/environ 2>/dev/null | while read -r f; do
		d=${f%/environ}
		st=$(sed 's/^.*) \(.\).*/\1/' "$d/stat" 2>/dev/null)
		[ -n "$st" ] && [ "$st" != Z ] && echo "${d#/proc/}"
	done
}

orphans=0 fired=0 started=0
i=0
while [ "$i" -lt "$RUNS" ]; do
	i=$((i + 1))
	tok=$TOK-$i
	rm -f ready marker
	GPURENT_TEST_RUN=$tok "$G" run --no-ledger --log-dir logs --grace 100ms --hard-deadline 300ms \
		--on-stop 'echo fired >>marker' -- sh -c 'sleep 7901 & sleep 7902 & echo >ready; wait' \
		>/dev/null 2>&1 &
	gp=$!
	# when to kill the guard: as soon as the job is up (the moment the
	# watchdog may not know its group yet), or at a random moment of the
	# first 60 ms (before, during or after the job's start)
	if [ $((i % 2)) -eq 1 ]; then
		k=0
		while [ ! -e ready ] && [ "$k" -lt 20000 ]; do k=$((k + 1)); done
	else
		r=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
		sleep "0.0$(printf '%02d' $((r % 60)))"
	fi
	kill -9 "$gp" 2>/dev/null
	wait "$gp" 2>/dev/null
	[ -e ready ] && started=$((started + 1))
	# the watchdog acts 1.4 s after the start (300 ms + 100 ms + 1 s of
	# slack) and holds the token too: wait (up to 60 s) until nothing of
	# the run is left
	end=$(($(date +%s) + 60))
	while [ -n "$(tok_pids "$tok")" ] && [ "$(date +%s)" -lt "$end" ]; do sleep 0.05; done
	left=$(tok_pids "$tok")
	if [ -n "$left" ]; then
		orphans=$((orphans + 1))
		for p in $left; do
			echo "run $i: left alive: $p $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null) (parent $(awk '{print $4}' "/proc/$p/stat" 2>/dev/null))"
			kill -9 "$p" 2>/dev/null
		done
	fi
	[ -s marker ] && fired=$((fired + 1))
done
load="without load"
[ "$LOAD" = 1 ] && load="under stress-ng --cpu 4"
echo "watchdog stress $load: $RUNS runs, $orphans orphans (the job was up in $started, the action fired in $fired)"
[ "$orphans" -eq 0 ]
