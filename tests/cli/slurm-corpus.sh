#!/bin/sh
# tests/cli/slurm-corpus.sh - `gpurent slurm lint` judged on real scripts
# (issue 28 item 3). (a) lint runs on every script of
# tests/data/slurm-corpus/shared/ and, when present, ../shared/data/slurm-corpus/,
# each from an empty scratch directory, and its findings (rule, line) are
# compared with the verdicts of tests/data/slurm-corpus/EXPECT: each false
# and each missed finding is printed, then "slurm-corpus: N scripts, R real,
# F false, M missed"; it fails when false findings are more than 2% of the
# findings, or one real problem is missed, or a script has no verdict.
# (b) on the private test cluster (tests/cli/lib/slurmcluster.sh, as
# tests/cli/slurm.sh starts it) `sbatch --test-only` runs on every script:
# lint never says "sbatch refuses" of one sbatch takes, and each one sbatch
# refuses for a reason of the script's own (not the test cluster's missing
# partitions, accounts, nodes or gres types) has a finding. docs/slurm.md's
# counts of the sets are checked against the files.
# Prints "slurm-corpus: N passed, M failed".
export LC_ALL=C
NAME=slurm-corpus
. "$(dirname "$0")/lib/common.sh"
. "$ROOT/tests/cli/lib/slurmcluster.sh"
trap 'slurm_cluster_stop; chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT
unset SLURM_JOB_ID SLURM_CONF
EXPECT=$ROOT/tests/data/slurm-corpus/EXPECT
SHARED=$ROOT/tests/data/slurm-corpus/shared
CORPUS=$ROOT/../shared/data/slurm-corpus
TAB=$(printf '\t')

# the sets there are: "set dir" lines into $T/sets
: >"$T/sets"
if [ -d "$SHARED" ]; then echo "shared $SHARED" >>"$T/sets"
else say_skip "the shared set" "tests/data/slurm-corpus/shared/ is absent"; fi
if [ -d "$CORPUS" ]; then echo "corpus $CORPUS" >>"$T/sets"
else say_skip "the corpus set" "../shared/data/slurm-corpus/ is absent (fetched scripts, kept beside the repository)"; fi
[ -s "$T/sets" ] || { finish; exit $?; }

# scripts SET DIR: the scripts of a set, one name a line (not its notes)
scripts() { ls "$2" | grep -v -e '\.md$' -e '^EXPECT$' -e '^README' ; }

# ---- the counts docs/slurm.md gives ----
while read -r set dir; do
	n=$(scripts "$set" "$dir" | grep -c .)
	case $set in shared) p='tests/data/slurm-corpus/shared/';; *) p='../shared/data/slurm-corpus/';; esac
	grep -Fq "| \`$p\` | $n |" "$ROOT/docs/slurm.md" && ok ||
		bad "docs/slurm.md: no row '| \`$p\` | $n |' (the set has $n scripts)"
done <"$T/sets"

# ---- (a) lint against the verdicts ----
# $T/found: set TAB script TAB line TAB rule, one row a finding; $T/said/SET/SCRIPT: lint's lines
mkdir -p "$T/said/shared" "$T/said/corpus"
: >"$T/found"
while read -r set dir; do
	for b in $(scripts "$set" "$dir"); do
		rm -rf "$T/scratch" && mkdir "$T/scratch" && cd "$T/scratch" || exit 1
		"$G" slurm lint "$dir/$b" >"$T/said/$set/$b" 2>"$T/lint.err"
		rc=$?
		[ "$rc" -le 1 ] || bad "lint $set/$b: exit $rc: $(cat "$T/lint.err")"
		# "FILE:LINE: what, why, fix [RULE]": FILE is the path given
		awk -v f="$dir/$b:" -v set="$set" -v b="$b" 'index($0, f) == 1 {
			rest = substr($0, length(f) + 1); line = rest; sub(/:.*/, "", line)
			if (match($0, / \[[a-z-]+\]$/)) print set "\t" b "\t" line "\t" substr($0, RSTART + 2, RLENGTH - 3)
		}' "$T/said/$set/$b" >>"$T/found"
		cd "$T" || exit 1
	done
done <"$T/sets"
if [ ! -f "$EXPECT" ]; then
	say_skip "the verdicts" "tests/data/slurm-corpus/EXPECT is absent"
else
	# the verdicts of the sets there are; '-' rows say "no real finding"
	grep -v '^#' "$EXPECT" | awk -F '\t' 'NF >= 4' >"$T/expect.all"
	cut -f1 "$T/sets" -d' ' | while read -r set; do
		awk -F '\t' -v s="$set" '$1 == s' "$T/expect.all"
	done >"$T/expect"
	awk -F '\t' '$4 != "-" {print $1 "\t" $2 "\t" $3 "\t" $4}' "$T/expect" | sort -u >"$T/want"
	sort -u "$T/found" >"$T/got"
	# every script has its verdict
	while read -r set dir; do
		for b in $(scripts "$set" "$dir"); do
			awk -F '\t' -v s="$set" -v b="$b" '$1 == s && $2 == b {f = 1} END {exit !f}' "$T/expect" ||
				bad "EXPECT has no row for $set/$b"
		done
	done <"$T/sets"
	comm -23 "$T/got" "$T/want" >"$T/false"
	comm -13 "$T/got" "$T/want" >"$T/missed"
	while IFS="$TAB" read -r set b line rule; do
		echo "false: $set/$b:$line [$rule]: $(grep -F -- ":$line: " "$T/said/$set/$b" | grep -F -- "[$rule]" | head -1 | cut -c1-300)"
	done <"$T/false"
	while IFS="$TAB" read -r set b line rule; do
		echo "missed: $set/$b:$line [$rule]: $(awk -F '\t' -v s="$set" -v b="$b" -v l="$line" -v r="$rule" \
			'$1 == s && $2 == b && $3 == l && $4 == r {print $5}' "$T/expect" | head -1)"
	done <"$T/missed"
	n=$(awk '{print $2}' "$T/sets" | while read -r d; do scripts x "$d"; done | grep -c .)
	r=$(comm -12 "$T/got" "$T/want" | grep -c .)
	f=$(grep -c . "$T/false")
	m=$(grep -c . "$T/missed")
	echo "slurm-corpus: $n scripts, $r real, $f false, $m missed"
	# false findings at most 2% of the findings, none missed
	[ $((f * 100)) -le $(((r + f) * 2)) ] && ok || bad "$f false findings of $((r + f)): more than 2%"
	[ "$m" -eq 0 ] && ok || bad "$m real problems missed"
fi

# ---- (b) parity with sbatch on the test cluster ----
if ! slurm_cluster_start "$T/cluster"; then
	if [ "${GPURENT_REQUIRE_SLURM:-0}" = 1 ]; then
		bad "the test cluster did not start: $SLURM_WHY"
	else
		say_skip "sbatch parity" "$SLURM_WHY"
	fi
	finish
	exit $?
fi
export SLURM_CONF
# What the test cluster lacks that the script's own cluster has (a partition,
# an account, a QOS, a gres type, nodes this big, a cluster database, a
# feature, a reservation, an array this long): not the script's fault.
SITE='Requested node configuration is not available|nvalid partition|Invalid account|Invalid qos|Invalid generic resource|can.t be reached now|Problem talking to database|Invalid feature specification|[Rr]eservation|Requested time limit is invalid|More processors requested than permitted|Node count specification invalid|Invalid node name specified|Job violates accounting|Invalid wckey|Invalid job array specification|Requested partition configuration not available|Invalid account or account/partition combination|Invalid license specification'
accepted=0 site=0 refused=0
while read -r set dir; do
	for b in $(scripts "$set" "$dir"); do
		rm -rf "$T/scratch" && mkdir "$T/scratch" && cd "$T/scratch" || exit 1
		timeout 120 sbatch --test-only "$dir/$b" >"$T/sb.out" 2>"$T/sb.err" </dev/null
		src=$?
		cd "$T" || exit 1
		if [ "$src" -eq 124 ]; then bad "sbatch --test-only $set/$b: no answer in 120 s"; continue; fi
		said=$T/said/$set/$b
		if [ "$src" -eq 0 ] || grep -Eq "$SITE" "$T/sb.err"; then
			[ "$src" -eq 0 ] && accepted=$((accepted + 1)) || site=$((site + 1))
			if grep -q 'sbatch refuses' "$said"; then
				bad "lint says sbatch refuses $set/$b, which sbatch takes: $(grep 'sbatch refuses' "$said" | head -2 | cut -c1-250)"
			else ok; fi
		else
			refused=$((refused + 1))
			if [ -s "$said" ]; then ok
			else bad "sbatch refuses $set/$b ($(tr '\n' ' ' <"$T/sb.err" | cut -c1-200)) and lint says nothing"; fi
		fi
	done
done <"$T/sets"
echo "slurm-corpus: sbatch --test-only took $accepted, refused $refused for the script's own reason, $site for the test cluster's"
finish
