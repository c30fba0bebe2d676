#!/bin/sh
# tests/cli/docs.sh - the documentation stays true to the tree: every count of
# the repository's contents that README.md, CONTRIBUTING.md and docs/*.md state
# (GPUs, models, frameworks, fuzz harnesses, evidence rows, test sizes), every
# repository path they name, every docs/formulas.md heading the code cites and
# every docs/*.md page cited exist, docs/formulas.md's contents list every
# heading, docs/README.md lists every page, and CONTRIBUTING.md's tree has one
# line per folder of src/. Figures of a dated run (a benchmark, an accuracy
# table) are results, not counts, and stay as measured. Prints "docs: N passed, M failed".
NAME=docs
. "$(dirname "$0")/lib/common.sh"

DOCS="$ROOT/README.md $ROOT/CONTRIBUTING.md $(ls "$ROOT"/docs/*.md)"
# rows FILE: the data rows of a CSV (no comment lines, no header)
rows() { grep -v '^#' "$1" | tail -n +2 | grep -c .; }

# count WHAT REGEX TRUTH: every number REGEX (perl, one capture) finds in
# the pages equals TRUTH
count() {
	what=$1 re=$2 truth=$3
	perl -ne 'while (/'"$re"'/g) { print "$ARGV:$.: $1\n" } close ARGV if eof' $DOCS >"$T/counts"
	while read -r where n; do
		[ "$n" = "$truth" ] && ok || bad "$where says $n $what; the tree has $truth"
	done <"$T/counts"
}

gpus=$(rows "$ROOT/data/gpus.csv")
[ "$("$G" gpus | tail -n +2 | grep -c .)" -eq "$gpus" ] && ok || bad "gpurent gpus does not list the $gpus rows of data/gpus.csv"
count accelerators '\b(\d+) accelerators' "$gpus"
models=$(rows "$ROOT/data/models.csv")
[ "$("$G" models | tail -n +2 | grep -c .)" -eq "$models" ] && ok || bad "gpurent models does not list the $models rows of data/models.csv"
count presets '\b(\d+) presets' "$models"
fws=$("$G" estimate --list-choices | awk '$1 == "--framework" {print NF - 2}')
count frameworks '\bof (\d+) frameworks' "$fws"
harnesses=$(ls "$ROOT"/tests/fuzz/fuzz_*.c | wc -l | tr -d ' ')
count harnesses 'tests\/fuzz\/`, (\d+) of them' "$harnesses"
count harnesses '\b(\d+) (?:fuzz )?harnesses' "$harnesses"
count "evidence rows" 'evidence\.csv holds (\d+)' "$(rows "$ROOT/tests/data/evidence.csv")"
# the sizes of the tests that tests.md describes, read from the tests
kills=$(sed -n 's/.*while \[ "\$kills" -lt \([0-9]*\) \].*/\1/p' "$ROOT/tests/cli/run.sh")
count SIGKILLs '\b(\d+) SIGKILLs' "$kills"
guards=$(awk '/guards finishing at once/ {getline; getline; print NF - 4; exit}' "$ROOT/tests/cli/run.sh")
count guards '\b(\d+) guards finishing' "$guards"
writers=$(awk '/^# --- writers at once/ {getline; getline; print $5; exit}' "$ROOT/tests/cli/ledger.sh")
count writers '\b(\d+) writers x' "$writers"
entries=$(awk '/^# --- writers at once/ {getline; getline; getline; print $7; exit}' "$ROOT/tests/cli/ledger.sh")
count entries 'writers x (\d+) entries' "$entries"
stress=$(sed -n 's/.*stress-watchdog.sh \([0-9]*\)$/\1/p' "$ROOT/Makefile")
count "stress runs" 'scenario (\d+)\s+times' "$stress"

# --- the formulas.md headings the code and the pages cite, each
# exactly as the heading reads
grep -E '^##+ ' "$ROOT/docs/formulas.md" | sed 's/^#* //' >"$T/heads"
perl -0777 -ne 'while (/formulas\.md[\s*,(\\\/]*\\?"((?:[^"\\]|\\\n)+?)\\?"/g) {
	my $h = $1; $h =~ s/\s*\n\s*(\*\s*|\/\/\s*)?/ /g; print "$ARGV\t$h\n" }' \
	$(cd "$ROOT" && git ls-files src tests | grep -v "^tests/cli/docs.sh$" | sed "s|^|$ROOT/|") $DOCS >"$T/cites"
[ -s "$T/cites" ] && ok || bad "found no formulas.md citation"
while IFS='	' read -r file h; do
	if grep -Fxq -- "$h" "$T/heads"; then ok
	else bad "${file#$ROOT/} cites formulas.md \"$h\": no such heading"; fi
done <"$T/cites"
# the contents list every heading, with its anchor
grep -E '^##+ ' "$ROOT/docs/formulas.md" | grep -v '^## Contents' | sed 's/^#* //' | while read -r h; do
	a=$(printf '%s' "$h" | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9 -]//g; s/ /-/g')
	grep -Fq -- "[$h](#$a)" "$ROOT/docs/formulas.md" || echo "$h"
done >"$T/untoc"
[ ! -s "$T/untoc" ] && ok || bad "docs/formulas.md's contents lack: $(tr '\n' ';' <"$T/untoc")"
# every anchor a page links to is a heading of that page
for f in $DOCS; do
	grep -oE '\]\(#[a-z0-9-]+\)' "$f" | sed 's/](#//; s/)//' | sort -u | while read -r a; do
		grep -E '^#+ ' "$f" | sed 's/^#* //' | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9 -]//g; s/ /-/g' \
			| grep -Fxq -- "$a" || echo "${f#$ROOT/}: #$a"
	done
done >"$T/anchors"
[ ! -s "$T/anchors" ] && ok || bad "links to no heading: $(tr '\n' ';' <"$T/anchors")"

# refs FILE...: the repository paths FILE names, one a line, as
# "FILE<tab>PATH": not a pattern (followed by "<", "*" or "{"), not a path of
# another repository (after "owner/repo@commit", or under a top folder
# gpurent does not have, or after a project's name: "torchtitan docs/...")
refs() {
	perl -0777 -ne 'while (/(?<![\w\/.-])((?:src|tests|data|docs|examples|bench|tools|include|po)\/[\w.\/-]*\w)(?![\w<*{\/-])/g) {
		my ($p, $pre) = ($1, substr($_, 0, $-[1]));
		next if $pre =~ /[\w.-]+\/[\w.-]+@[0-9a-f]{7,40}[\s:*\/]*\z/;
		next if $pre =~ /\b(?:torchtitan|vllm|transformers|litgpt|skypilot|deepspeed|megatron|sglang)\s+\z/i;
		next unless $p =~ m{^(src/(base|core|os|hw|store|guard|kit|cmd|cli|util|main\.c|LAYERS)|tests/(unit|cli|fuzz|fake|progs|data|abi)/|data/|docs/[^/]+$|examples/|bench/|tools/|include/|po/)};
		print "$ARGV\t$p\n" }' "$@"
}

# --- every docs/ page the code, the tests or the pages cite exists
{ cd "$ROOT" && refs $(git ls-files src tests Makefile | grep -v "^tests/fuzz/corpus/\|^tests/data/" | sed "s|^|$ROOT/|") | grep '	docs/'
  git ls-files src | sed "s|^|$ROOT/|" | xargs grep -oE '(^|[ "(])formulas\.md' | sed 's/:.*/	docs\/formulas.md/'
  for f in $DOCS; do grep -oE '\]\([A-Za-z0-9_.-]+\.(md|1)\)' "$f" | sed "s|^](|$f	$(dirname "${f#$ROOT/}")/|; s|)\$||; s|	\./|	|"; done
} | sort -u >"$T/pages"
[ -s "$T/pages" ] && ok || bad "found no cited page"
while IFS='	' read -r file p; do
	[ -f "$ROOT/$p" ] && ok || bad "${file#$ROOT/} cites $p, which does not exist"
done <"$T/pages"
# docs/README.md lists every page
for f in "$ROOT"/docs/*.md "$ROOT"/docs/*.1; do
	b=$(basename "$f"); [ "$b" = README.md ] && continue
	grep -Fq "]($b)" "$ROOT/docs/README.md" && ok || bad "docs/README.md does not list $b"
done

# --- every path of the repository the pages name exists (a program by its source)
refs $DOCS | sort -u >"$T/paths"
while IFS='	' read -r file p; do
	if [ -e "$ROOT/$p" ] || [ -e "$ROOT/$p.c" ]; then ok
	else bad "${file#$ROOT/} names $p, which does not exist"; fi
done <"$T/paths"

# --- CONTRIBUTING.md's tree: a line per folder of src/ with a .c or .h file,
# and every line a folder that exists
awk '/^## The tree/ {on = 1} on && /^```$/ {n++; if (n == 2) exit; next} on && n == 1 {print $1}' \
	"$ROOT/CONTRIBUTING.md" >"$T/tree"
[ -s "$T/tree" ] && ok || bad "CONTRIBUTING.md has no tree"
(cd "$ROOT" && find src -name '*.[ch]' | sed 's|/[^/]*$|/|' | sort -u) >"$T/srcdirs"
while read -r d; do
	grep -Fxq -- "$d" "$T/tree" && ok || bad "CONTRIBUTING.md's tree lacks $d"
done <"$T/srcdirs"
while read -r d; do
	[ -d "$ROOT/$d" ] && ok || bad "CONTRIBUTING.md's tree names $d, which does not exist"
done <"$T/tree"
# in floor order: src/LAYERS's folders in the order of its lines
grep -v '^#' "$ROOT/src/LAYERS" | tr ' ' '\n' | grep . | sed 's|^\.$||; s|^|src/|; s|/*$|/|' >"$T/floors"
grep '^src/' "$T/tree" >"$T/treesrc"
[ "$(sort "$T/floors")" = "$(sort "$T/treesrc")" ] && ok || bad "CONTRIBUTING.md's src/ folders are not those of src/LAYERS"
awk 'NR == FNR {floor[$1] = FNR; next} {print floor[$1]}' "$T/floors" "$T/treesrc" | sort -nc 2>/dev/null \
	&& ok || bad "CONTRIBUTING.md's tree is not in the floor order of src/LAYERS"

finish
