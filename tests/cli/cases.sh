#!/bin/sh
# tests/cli/cases.sh - the "run this, expect that" tests, kept as data in
# tests/cli/cases/*.test and run against the real binary ($GPURENT).
#
# A .test file is a list of cases, a blank line between two cases; a line
# starting with '#' is a comment. A case is:
#
#   ARGUMENTS         the first line: gpurent's arguments (the binary is
#                     implicit), read as sh words (eval): quote with '...'
#                     or "...", $(printf '\033') for bytes one cannot type
#   exit N            the exit status (no exit line: 0)
#   match ERE         stdout has a line matching ERE (grep -E); as many
#                     match lines as the case needs
#   no-match ERE      no line of stdout matches ERE
#   > TEXT            one line of the whole stdout, in order: the '>'
#                     lines together are stdout, byte for byte ('>' alone:
#                     an empty line)
#   error TEXT        stderr is exactly one line and it contains TEXT
#                     (grep -F)
#   stderr-any        stderr is not checked (a warning the case ignores)
#
# What a case does not mention is checked to be empty: no match, no-match
# or '>' line means nothing on stdout; no error (or stderr-any) line means
# nothing on stderr. Every case runs in a fresh directory of its own, with
# examples/, tests/ and data/ of the repository at hand (symbolic links),
# stdin from /dev/null, and the environment of lib/common.sh. Each match,
# no-match, '>' block and error line counts as one check (a case of none
# counts its exit status as one); a failing check is reported with the
# file:line of its case. Run one file: sh tests/cli/cases.sh FILE.test...
# The same in more words, with examples: tests/cli/cases/README.
NAME=cases
. "$(dirname "$0")/lib/common.sh"

[ $# -gt 0 ] || set -- "$ROOT"/tests/cli/cases/*.test
n=0

# run_case FILE LINE: the case gathered in $T/case (its lines as written)
run_case() {
	where="${1#"$ROOT"/}:$2"
	args=$(head -1 "$T/case")
	tail -n +2 "$T/case" >"$T/lines"
	want_rc=0 checks=0 wantout=0 wanterr=0 anyerr=0
	: >"$T/want"
	while IFS= read -r l; do
		case $l in
		"exit "*) want_rc=${l#exit } ;;
		"match "* | "no-match "* | ">" | "> "* | "error "* | stderr-any) ;;
		*) bad "$where: cannot read the line '$l'"; return ;;
		esac
	done <"$T/lines"
	n=$((n + 1))
	d="$T/c$n"
	mkdir "$d" && ln -s "$ROOT/examples" "$ROOT/tests" "$ROOT/data" "$d/" || { bad "$where: no directory"; return; }
	(cd "$d" && eval "set -- $args" && exec "$G" "$@") <"/dev/null" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" != "$want_rc" ]; then
		bad "$where: gpurent $args: exit $rc, expected $want_rc: $(head -3 "$T/err")"
		return
	fi
	while IFS= read -r l; do
		case $l in
		"match "*)
			wantout=1 checks=$((checks + 1))
			grep -Eq -- "${l#match }" "$T/out" && ok ||
				{ bad "$where: gpurent $args: stdout lacks /${l#match }/"; sed 's/^/    /' "$T/out" | head -20; }
			;;
		"no-match "*)
			wantout=1 checks=$((checks + 1))
			if grep -Eq -- "${l#no-match }" "$T/out"; then bad "$where: gpurent $args: stdout has /${l#no-match }/"; else ok; fi
			;;
		">" | "> "*)
			wantout=1
			if [ "$l" = ">" ]; then echo >>"$T/want"; else printf '%s\n' "${l#> }" >>"$T/want"; fi
			;;
		"error "*)
			wanterr=1 checks=$((checks + 1))
			if [ "$(wc -l <"$T/err")" -ne 1 ]; then bad "$where: gpurent $args: stderr is not one line:"; cat "$T/err"
			elif grep -Fq -- "${l#error }" "$T/err"; then ok
			else bad "$where: gpurent $args: stderr '$(cat "$T/err")' lacks '${l#error }'"; fi
			;;
		stderr-any) anyerr=1 ;;
		esac
	done <"$T/lines"
	if [ -s "$T/want" ]; then
		checks=$((checks + 1))
		cmp -s "$T/want" "$T/out" && ok ||
			{ bad "$where: gpurent $args: stdout is not the '>' lines:"; diff "$T/want" "$T/out" | head -20; }
	fi
	if [ "$wantout" = 0 ] && [ -s "$T/out" ]; then
		checks=$((checks + 1)); bad "$where: gpurent $args: printed to stdout: $(head -3 "$T/out")"
	fi
	if [ "$wanterr" = 0 ] && [ "$anyerr" = 0 ] && [ -s "$T/err" ]; then
		checks=$((checks + 1)); bad "$where: gpurent $args: printed to stderr: $(head -3 "$T/err")"
	fi
	[ "$checks" -gt 0 ] || ok
}

for f; do
	[ -r "$f" ] || { bad "$f: cannot read"; continue; }
	lineno=0 start=0
	: >"$T/case"
	while IFS= read -r l || [ -n "$l" ]; do
		lineno=$((lineno + 1))
		case $l in
		"#"*) continue ;;
		"")
			[ "$start" = 0 ] || run_case "$f" "$start"
			start=0; : >"$T/case"; continue ;;
		esac
		[ "$start" != 0 ] || start=$lineno
		printf '%s\n' "$l" >>"$T/case"
	done <"$f"
	[ "$start" = 0 ] || run_case "$f" "$start"
done
[ "$n" -gt 0 ] || bad "no case found in $*"
finish
