#!/bin/sh
# options.sh - every command's options through the one parser: for each
# option that `gpurent CMD --list-options` lists, `--x v` and `--x=v` give
# the same result (and not a usage error), a flag's `--x`/`--x=true` and
# `--no-x`/`--x=false` agree, a valued option without its value is one line
# and exit 2, a duration without a unit is refused with the same line
# everywhere, an unknown option gets one line with a suggestion, and the
# help text names every option of the table and nothing else.
NAME=options
. "$(dirname "$0")/lib/common.sh"
# env and release look at the machine (its listening sockets, the home's
# credentials, leftovers in /tmp and /dev/shm), which other work on a busy
# machine changes between two runs: each option's two spellings must see
# the same machine, so they see one of the test's own, empty
mkdir -p "$T/home" "$T/proc" "$T/tmproot" "$T/shm"
export HOME="$T/home" GPURENT_PROC_ROOT="$T/proc" GPURENT_TMP_ROOT="$T/tmproot" GPURENT_SHM_PATH="$T/shm"
# and a cgroup of one CPU and 128 MiB: bench, run for each option's two
# spellings, then copies 16 MiB buffers on one thread, not 256 MiB on each
# core (seconds a run on a busy machine, and most of this script's time)
mkdir -p "$T/cgroup"
echo "100000 100000" >"$T/cgroup/cpu.max"
echo 134217728 >"$T/cgroup/memory.max"
echo 0 >"$T/cgroup/memory.current"
export GPURENT_CGROUP_ROOT="$T/cgroup"

export GPURENT_LEDGER="$T/ledger.db"
export HOME="$T/home"
mkdir -p "$HOME" data ck/step_100 ck/step_200
printf 'hello\n' >data/a.txt
printf '{}' >ck/step_100/done
printf '{}' >ck/step_200/done
"$G" manifest data -o data.manifest >/dev/null 2>&1
"$G" ledger add --cost 1 --duration 1h >/dev/null 2>&1
"$G" ledger export --csv >runs.csv 2>/dev/null

# One line a command: NAME|OPERANDS BEFORE|OPERANDS AFTER (run from $ROOT).
specs="bench|--no-gpu --no-store --disk-size 1MiB --dir $T|
bill audit||
bill import|tests/data/bills/neutral-clean.csv|
bill list||
ckpt interval|--write 90s --mtbf 6h|
ckpt latest|$T/ck|
ckpt prune|$T/ck --keep 1 --dry-run|
cost|--price 1.2 --sessions 10x20m --currency CNY|
env|--no-python --dir $T|
estimate|examples/lora-7b.yaml|
gpus||
ledger add|--cost 1 --duration 1h|
ledger export||
ledger import|$T/runs.csv|
ledger list||
ledger probes||
ledger show|1|
ledger summary||
catalog list||
catalog update|--url http://127.0.0.1:9 --retries 0 --timeout 1s|
completion||bash
config get||currency
config list||
config path||
config set||currency CNY
config unset||rate
manifest|$T/data -o $T/m2.manifest|
models||
offers||
plan|examples/lora-7b.yaml|
probe|--no-ledger --log-dir $T/logs|-- true
release|--dry-run --no-ledger|
report|--out $T/r.html|
run|--dry-run --no-ledger --log-dir $T/logs|-- true
slurm lint|tests/data/slurm/seed004.sbatch|
slurm script|--time 10m --log-dir $T/sl|-- true
verify|$T/data.manifest $T/data|"

# mask digits: timings, sizes and ids differ from run to run; a progress
# line (redrawn after each carriage return, as often as time allows) goes,
# and goes whole when it is a line of its own: it is drawn only once a
# command has run a second, which a loaded machine reaches in one of the
# two runs compared and not the other
mask() { sed "/^$(printf '\r')/d; s/$(printf '\r').*\$//; s/[0-9.]* *[KMGT]*i*B\/s/RATE/g; s/[0-9][0-9.]*/9/g; s/  */ /g" "$1"; }

cd "$ROOT" || exit 1
echo "$specs" | while IFS='|' read -r cmd pre post; do
	# shellcheck disable=SC2086
	"$G" $cmd --list-options >"$T/opts" 2>"$T/err" || { bad "$cmd --list-options: $(cat "$T/err")"; continue; }
	"$G" help $cmd >"$T/help" 2>&1 || "$G" $cmd --help >"$T/help" 2>&1
	# an empty list only for a command whose help lists no option
	[ -s "$T/opts" ] || ! grep -Eq '^ +--[a-z]' "$T/help" && ok || bad "$cmd --list-options printed nothing, its help lists options"
	# plan takes the workload fields that `gpurent help estimate` documents
	[ "$cmd" = plan ] && "$G" help estimate >>"$T/help" 2>&1
	while read -r opt type example short; do
		grep -q -- "$opt\b" "$T/help" && ok || bad "$cmd: $opt is not in its help"
		case $type in
		flag)
			run "$G" $cmd $pre "$opt" $post; a=$rc; mask "$T/out" >"$T/o1"; mask "$T/err" >"$T/e1"
			run "$G" $cmd $pre "$opt=true" $post; b=$rc; mask "$T/out" >"$T/o2"; mask "$T/err" >"$T/e2"
			if [ "$a" = "$b" ] && cmp -s "$T/o1" "$T/o2" && cmp -s "$T/e1" "$T/e2" &&
			   { [ "$a" != 2 ] || ! grep -q -- "$opt: expected\|unknown option" "$T/e1"; }; then
				ok
			else
				bad "$cmd $opt: '$opt' (exit $a) and '$opt=true' (exit $b) differ: $(diff "$T/o1" "$T/o2" | head -3) $(diff "$T/e1" "$T/e2" | head -3)"
			fi
			run "$G" $cmd $pre "$opt=maybe" $post
			[ "$rc" = 2 ] && grep -q "expected true or false" "$T/err" && ok ||
				bad "$cmd $opt=maybe: exit $rc $(cat "$T/err")"
			;;
		*)
			run "$G" $cmd $pre "$opt" "$example" $post; a=$rc; mask "$T/out" >"$T/o1"; mask "$T/err" >"$T/e1"
			run "$G" $cmd $pre "$opt=$example" $post; b=$rc; mask "$T/out" >"$T/o2"; mask "$T/err" >"$T/e2"
			# the same result both ways; a usage error only where the value
			# parsed but does not fit the rest (a workload field against
			# the example's model), never one about this option's syntax
			if [ "$a" = "$b" ] && cmp -s "$T/o1" "$T/o2" && cmp -s "$T/e1" "$T/e2" &&
			   { [ "$a" != 2 ] || ! grep -q -- "$opt: expected\|unknown option" "$T/e1"; }; then
				ok
			else
				bad "$cmd: '$opt $example' (exit $a: $(head -1 "$T/e1")) and '$opt=$example' (exit $b) differ"
			fi
			[ -z "$short" ] || {
				run "$G" $cmd $pre "$short" "$example" $post; c=$rc; mask "$T/out" >"$T/o3"
				[ "$c" = "$a" ] && cmp -s "$T/o1" "$T/o3" && ok || bad "$cmd: '$short $example' differs from '$opt $example'"
			}
			if [ -z "$post" ]; then
				run "$G" $cmd $pre "$opt"
				[ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q -- "$opt: expected a value" "$T/err" && ok ||
					bad "$cmd $opt without a value: exit $rc $(cat "$T/err")"
			fi
			case $type in int|count|bytes|bandwidth|money|percent|number)
				# hex is no number here, in any converter
				run "$G" $cmd $pre "$opt" 0x10 $post
				[ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q -- "$opt" "$T/err" && ok ||
					bad "$cmd $opt 0x10 (hex): exit $rc $(cat "$T/err")"
			esac
			if [ "$type" = duration ]; then
				run "$G" $cmd $pre "$opt" 3 $post
				[ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q -- "$opt: expected a duration with a unit, e.g. 3d" "$T/err" && ok ||
					bad "$cmd $opt 3 (a bare number): exit $rc $(cat "$T/err")"
			fi
			;;
		esac
	done <"$T/opts"
	# every --name the help shows is an option of the table (a subcommand
	# shares its help with its siblings: any of theirs will do)
	parent=${cmd%% *}
	cp "$T/opts" "$T/allopts"
	if [ "$parent" != "$cmd" ]; then
		"$G" $parent --list-options >>"$T/allopts" 2>/dev/null
		echo "$specs" | while IFS='|' read -r c2 _ _; do
			[ "${c2%% *}" = "$parent" ] && "$G" $c2 --list-options >>"$T/allopts" 2>/dev/null
		done
	fi
	grep -o -- '--[a-z][a-z0-9-]*' "$T/help" | sort -u | while read -r h; do
		case $h in --help|--list-options|--data-dir|--version|--FIELD) continue ;; esac
		grep -q -- "^$h " "$T/allopts" || grep -q -- "^--${h#--no-} flag" "$T/allopts" || echo "$cmd: help names $h, which is not an option" >>"$T/helpbad"
	done
	run "$G" $cmd $pre --definitely-not-an-option $post
	[ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "unknown option" "$T/err" && ok ||
		bad "$cmd: an unknown option: exit $rc $(cat "$T/err")"
	first=$(head -1 "$T/opts" | cut -d' ' -f1)
	if [ -n "$first" ]; then
		run "$G" $cmd $pre "${first}x" $post
		[ "$rc" = 2 ] && grep -q "did you mean '$first'" "$T/err" && ok ||
			bad "$cmd ${first}x: no suggestion: $(cat "$T/err")"
	fi
	echo "$pass $fail" >"$T/counts"
done
read -r pass fail <"$T/counts"

# The man page and the specs above cover the code (issue 17 item 6): every
# command `gpurent help` lists has a spec line and a place in gpurent(1),
# every option of every command is in gpurent(1), and so are every
# GPURENT_* variable the code reads and each exit status.
"$G" help | awk '/^Commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}' >"$T/cmds"
[ "$(wc -l <"$T/cmds")" -ge 10 ] && ok || bad "gpurent help lists too few commands"
while read -r c; do
	[ "$c" = help ] && continue
	echo "$specs" | grep -q "^$c[ |]" && ok || bad "command $c has no line in options.sh specs"
	grep -q "gpurent $c" "$ROOT/README.md" && ok || bad "README.md never shows gpurent $c"
done <"$T/cmds"
echo "$specs" | while IFS='|' read -r cmd _ _; do
	"$G" $cmd --list-options 2>/dev/null | awk '{print $1}'
done | sort -u >"$T/everyopt"
grep -rhoE 'getenv\("GPURENT_[A-Z_]+"\)' "$ROOT/src" | sed 's/getenv("\(.*\)")/\1/' | sort -u >"$T/envs"
[ -s "$T/envs" ] && ok || bad "found no GPURENT_ variables in src (the pattern broke)"

# manual PAGE ENVIRONMENT FILES EXIT: PAGE (its section headings in its own
# language) names every command, option, GPURENT_ variable, data file and
# exit status. The Chinese manual is a translation of gpurent(1) and is held
# to the same list.
manual() {
	page=$1 name=${1##*/}
	while read -r c; do
		[ "$c" = help ] && continue
		awk -v c="$c" 'index($0, "\\fB" c "\\fR") == 1 || index($0, "\\fB" c " ") == 1 {f = 1} END {exit !f}' "$page" &&
			ok || bad "docs/$name COMMANDS lacks $c"
	done <"$T/cmds"
	: >"$T/manbad"
	while read -r o; do
		grep -Fq -- "\\%$o\\fR" "$page" || grep -Fq -- "$o" "$page" || echo "docs/$name does not document $o" >>"$T/manbad"
	done <"$T/everyopt"
	if [ -s "$T/manbad" ]; then while read -r l; do bad "$l"; done <"$T/manbad"; else ok; fi
	sed -n "/^\.SH $2/,/^\.SH /p" "$page" >"$T/envsec"
	while read -r e; do
		grep -Fq "$e" "$T/envsec" && ok || bad "$name ENVIRONMENT lacks $e"
	done <"$T/envs"
	sed -n "/^\.SH $3/,/^\.SH /p" "$page" >"$T/filesec"
	for f in "$ROOT"/data/*.csv; do
		grep -Fq "data/${f##*/}" "$T/filesec" && ok || bad "$name FILES lacks data/${f##*/}"
	done
	sed -n "/^\.SH $4/,/^\.SH /p" "$page" >"$T/exitsec"
	for x in 0 1 2; do
		grep -q "^\.B $x\$\|^\.IP $x\|^$x " "$T/exitsec" && ok || bad "$name EXIT STATUS lacks $x"
	done
}
manual "$ROOT/docs/gpurent.1" ENVIRONMENT FILES "EXIT STATUS"
ZH=$ROOT/docs/gpurent.zh_CN.1
manual "$ZH" 环境变量 文件 退出状态
if command -v groff >/dev/null 2>&1; then
	groff -k -man -Tutf8 -ww "$ZH" >/dev/null 2>"$T/zhwarn"
	[ ! -s "$T/zhwarn" ] && ok || bad "groff warns on docs/gpurent.zh_CN.1: $(head -3 "$T/zhwarn")"
else
	echo "SKIP options: groff is not installed: docs/gpurent.zh_CN.1 is not rendered"
fi
if [ -s "$T/helpbad" ]; then
	while read -r l; do bad "$l"; done <"$T/helpbad"
else
	ok
fi
finish
