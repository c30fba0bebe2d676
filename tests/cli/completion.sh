#!/bin/sh
# completion.sh - `gpurent completion`: the bash script driven through
# bash's own completion machinery (complete -p, the function it names, as
# TAB calls it), the candidates behind it, and the zsh and fish scripts
# (fish through its own `complete -C` where fish is installed).
NAME=completion
. "$(dirname "$0")/lib/common.sh"

mkdir -p "$T/bin"
ln -s "$G" "$T/bin/gpurent"
export PATH="$T/bin:$PATH"
"$G" completion bash >"$T/gpurent.bash" || bad "completion bash: exit $?"

# tab LINE...: what bash completes for the words (the last one is the word
# under the cursor, empty for a new word), one candidate a line, sorted.
tab() {
	bash -c '
		. "$1"; shift
		spec=$(complete -p gpurent) || exit 3
		fn=$(printf "%s\n" "$spec" | sed -n "s/.*-F \([^ ]*\) gpurent$/\1/p")
		[ -n "$fn" ] || exit 4
		COMP_WORDS=(gpurent "$@"); COMP_CWORD=$#
		COMP_LINE="gpurent $*"; COMP_POINT=${#COMP_LINE}
		"$fn" gpurent "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' tab "$T/gpurent.bash" "$@" | sort
}

# expect_tab NAME "EXPECTED (one a line)" WORD...: the candidates exactly
expect_tab() {
	name=$1 want=$2; shift 2
	[ -n "$want" ] || [ "$name" = unknown ] || { bad "$name: the test expects nothing (a test bug)"; return; }
	got=$(tab "$@")
	if [ "$got" = "$(printf '%s\n' "$want" | sort)" ]; then ok; else
		bad "$name: completing '$*' gave:"; printf '%s\n' "$got" | sed 's/^/    /' | head -20
	fi
}

if ! command -v bash >/dev/null 2>&1; then
	echo "SKIP completion: bash is not installed"
else
	# the issue's three cases
	expect_tab command "plan" pl
	expect_tab option "--currency" plan --cur
	want=$("$G" models | awk 'NR > 1 && $1 ~ /^llama-3/ {print $1}')
	[ -n "$want" ] || bad "models lists no llama-3 preset"
	expect_tab model "$want" estimate --model llama-3
	# every command, and help
	want=$(printf '%s\n' $("$G" help | awk '/^Commands:/ {on = 1; next} on && /^  [a-z]/ {print $1} on && /^$/ {exit}'))
	expect_tab commands "$want" ""
	expect_tab help-cmd "plan
probe" help p
	# fixed values from the option tables, both spellings
	expect_tab choice "torchtitan
torchtune" estimate --framework t
	expect_tab choice-eq "qlora" estimate --task=q
	expect_tab emit "dstack
none
sky
slurm" plan --emit ""
	# subcommands, their options, and options before them
	expect_tab subs "list" ledger l
	expect_tab subs-after-opt "show
summary" ledger --ledger x.db s
	expect_tab sub-option "--limit" ledger list --li
	expect_tab bill-subs "audit" bill a
	expect_tab ckpt-subs "interval
latest
prune" ckpt ""
	# names from the data and the guard's presets
	expect_tab preset "runpod
runpod-release" run --preset r
	expect_tab currency "CNY" plan --currency CN
		# GPUs by the aliases people type (the full names have spaces)
	expect_tab gpu "H100
H100-NVL
H100-PCIE" estimate --gpu H100
	# files: a file option, an operand, and after `--`
	: >"$T/work.yaml"
	( cd "$T" && tab plan wor ) >"$T/files" 2>&1
	grep -qx "work.yaml" "$T/files" && ok || { bad "operand: no file name"; cat "$T/files"; }
	( cd "$T" && tab run --log-dir "" ) >"$T/files" 2>&1
	grep -qx "bin" "$T/files" && ok || { bad "--log-dir: no directory"; cat "$T/files"; }
	# an unknown command completes to nothing, and nothing breaks
	expect_tab unknown "" frobnicate --x
fi

# the candidates themselves: options come from --list-options, so every
# option of every command is offered (a missing one is a drift)
for c in estimate plan run probe offers; do
	"$G" $c --list-options | awk '{print $1}' | sort >"$T/want"
	"$G" completion candidates -- $c -- | sort >"$T/got" 2>&1
	grep -vx -- "--help" "$T/got" | cmp -s - "$T/want" && ok || { bad "$c: options differ from --list-options"; diff "$T/want" "$T/got" | head; }
done

# the other shells
if command -v zsh >/dev/null 2>&1; then
	"$G" completion zsh >"$T/_gpurent"
	zsh -n "$T/_gpurent" && ok || bad "zsh script: syntax error"
	head -n 1 "$T/_gpurent" | grep -qx "#compdef gpurent" && ok || bad "zsh script lacks #compdef"
else
	echo "SKIP completion zsh: zsh is not installed"
fi
if command -v fish >/dev/null 2>&1; then
	"$G" completion fish >"$T/gpurent.fish"
	got=$(HOME=$T fish --no-config -c "source $T/gpurent.fish; complete -C 'gpurent pl'" 2>&1 | awk '{print $1}')
	[ "$got" = plan ] && ok || bad "fish: 'gpurent pl' gave '$got'"
	got=$(HOME=$T fish --no-config -c "source $T/gpurent.fish; complete -C 'gpurent plan --cur'" 2>&1 | awk '{print $1}')
	[ "$got" = --currency ] && ok || bad "fish: 'gpurent plan --cur' gave '$got'"
else
	echo "SKIP completion fish: fish is not installed"
fi

expect_err bad-shell 2 "'tcsh': expected bash, zsh or fish" "$G" completion tcsh
expect_err no-shell 2 "expected bash, zsh or fish" "$G" completion
finish
