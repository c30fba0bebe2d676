#!/bin/sh
# progress.sh - the progress line of long work: on a terminal (a tmux
# pane of the test's own, on a private socket), never in a pipe or a file,
# forced with --progress, off with --quiet. GPURENT_PROGRESS_AFTER=0 draws
# from the first moment, so nothing waits on the work taking a second.
NAME=progress
. "$(dirname "$0")/lib/common.sh"

export GPURENT_PROGRESS_AFTER=0
mkdir -p data/sub
for i in 1 2 3 4; do head -c 1500000 /dev/urandom >data/f$i; done
echo small >data/sub/s
"$G" manifest data -o data.manifest >/dev/null 2>pipe.err || bad "manifest: exit $?"

# in a pipe or a file: no progress line, not even a carriage return
[ ! -s pipe.err ] && ok || bad "manifest wrote to a non-terminal stderr: $(od -c pipe.err | head -3)"
"$G" verify data.manifest data >v.out 2>v.err; rc=$?
[ "$rc" = 0 ] && ! grep -q "$(printf '\r')" v.err v.out && ok || bad "verify in a pipe: exit $rc, $(od -c v.err | head -3)"
# --progress forces it anywhere; --quiet wins over a terminal (below)
"$G" verify data.manifest data --progress >/dev/null 2>forced.err
tr '\r' '\n' <forced.err | grep -Eq '^verify: [0-9.]+ MB / [0-9.]+ MB, 5 / 5 files' && ok ||
	bad "verify --progress: $(tr '\r' '\n' <forced.err | tail -3)"
# the last line says it is done, and ends the line
tail -c 1 forced.err | od -c | grep -q '\\n' && ok || bad "the last progress line is not ended"

# bench (its parts and the disk's bytes), plan over a catalog tree, bill
# import: the same line, forced here since stderr is a file
"$G" bench --no-gpu --no-store --disk-size 4MiB --dir "$T" --progress >/dev/null 2>bench.err
tr '\r' '\n' <bench.err | grep -Eq '^bench: .*3 / 3 parts' && ok || bad "bench --progress: $(tr '\r' '\n' <bench.err | tail -3)"
mkdir -p cats/aws cats/gcp
cp "$ROOT/data/offers.csv" cats/aws/vms.csv
cp cats/aws/vms.csv cats/gcp/vms.csv
"$G" plan "$ROOT/examples/lora-7b.yaml" --catalog cats --progress >/dev/null 2>plan.err
tr '\r' '\n' <plan.err | grep -Eq '^plan: [0-9.]+ [KMG]?B / [0-9.]+ [KMG]?B, 2 / 2 catalogs' && ok ||
	bad "plan --progress over a catalog tree: $(tr '\r' '\n' <plan.err | grep '^plan:' | tail -2)"
# --json wins over --progress: nothing but the JSON's own stderr
"$G" plan "$ROOT/examples/lora-7b.yaml" --catalog cats --progress --json >plan.json 2>planj.err
grep -q "$(printf '\r')" planj.err && bad "plan --json drew a progress line" || ok
"$G" bill --ledger "$T/l.db" import "$ROOT"/tests/data/bills/neutral-clean.csv --progress >/dev/null 2>bill.err
tr '\r' '\n' <bill.err | grep -Eq '^bill import: .*1 / 1 files' && ok || bad "bill import --progress: $(tr '\r' '\n' <bill.err | tail -2)"

if ! command -v tmux >/dev/null 2>&1; then
	echo "SKIP progress on a terminal: tmux is not installed"
	finish
	exit $?
fi
# one tmux server per pane, on its own socket: a server ends with its last
# session, and a new session must never race the old server's exit
cleanup_tmux() { for s in "$T"/tmux-*.sock; do [ -S "$s" ] && tmux -S "$s" kill-server 2>/dev/null; done; }
trap 'cleanup_tmux; chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT
# on_tty NAME CMD: run CMD in a pane of 200 columns, wait (60 s at most)
# for it to end, and leave the pane's text in $T/NAME.screen
on_tty() {
	name=$1; shift
	S="$T/tmux-$name.sock"
	tries=0
	until tmux -S "$S" new-session -d -s "$name" -x 200 -y 40 \
		"cd '$T' && TERM=xterm GPURENT_PROGRESS_AFTER=0 $*; echo \"END-\$?\"; sleep 600" 2>"$T/tmux.err"; do
		tries=$((tries + 1))
		[ $tries -lt 5 ] || { bad "$name: tmux would not start: $(cat "$T/tmux.err")"; return; }
		sleep 1
	done
	i=0
	while [ $i -lt 600 ]; do
		tmux -S "$S" capture-pane -p -t "$name" >"$T/$name.screen" 2>/dev/null
		grep -q "^END-" "$T/$name.screen" && break
		i=$((i + 1)); sleep 0.1
	done
	tmux -S "$S" kill-server 2>/dev/null
	grep -q "^END-0" "$T/$name.screen" || bad "$name: did not end well: $(cat "$T/$name.screen")"
}
on_tty mf "'$G' manifest data -o tty.manifest"
grep -Eq '^manifest: [0-9.]+ MB, 5 files, [0-9.]+ [KMG]B/s' "$T/mf.screen" && ok ||
	bad "manifest on a terminal: no progress line: $(cat "$T/mf.screen")"
grep -v '^#' tty.manifest >a.lines; grep -v '^#' data.manifest >b.lines
[ -s a.lines ] && cmp -s a.lines b.lines && ok || bad "the manifest on a terminal differs: $(diff a.lines b.lines | head -5)"
on_tty vf "'$G' verify data.manifest data"
grep -Eq '^verify: [0-9.]+ MB / [0-9.]+ MB, 5 / 5 files' "$T/vf.screen" && ok ||
	bad "verify on a terminal: no progress line: $(cat "$T/vf.screen")"
on_tty vq "'$G' verify data.manifest data --quiet"
grep -Eq '^verify: [0-9.]+ [KMG]?B / ' "$T/vq.screen" && bad "verify --quiet drew a progress line: $(cat "$T/vq.screen")" || ok
on_tty vd "TERM=dumb '$G' verify data.manifest data"
grep -Eq '^verify: [0-9.]+ [KMG]?B / ' "$T/vd.screen" && bad "TERM=dumb drew a progress line" || ok
on_tty pl "'$G' plan '$ROOT/examples/lora-7b.yaml' --catalog cats >/dev/null"
grep -Eq '^plan: .*2 / 2 catalogs' "$T/pl.screen" && ok || bad "plan on a terminal: no progress line: $(cat "$T/pl.screen")"
finish
