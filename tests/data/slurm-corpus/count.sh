#!/bin/sh
# tests/data/slurm-corpus/count.sh - the counts README.md shows, from the files themselves:
# scripts per set (EXPECT), scripts per repository (shared/SOURCES.md and
# ../corpus-sources/slurm-SOURCES.md), findings per rule (EXPECT).
#   count.sh            print the counts block (Markdown)
#   count.sh --check    exit 1 when README.md's block (between the count.sh markers) differs
export LC_ALL=C
D=$(cd "$(dirname "$0")" && pwd)
block() {
	awk -F'\t' '
	FILENAME ~ /EXPECT$/ {
		if ($0 ~ /^#/ || NF < 5) next
		seen[$1 "\t" $2] = 1
		if ($4 == "-") next
		rule[$4]++; rs[$1 "\t" $4]++
		if ($4 != "kept-alternative" && $4 != "plugin-option") { real++; files[$1 "\t" $2] = 1 }
		next
	}
	FILENAME ~ /shared\/SOURCES.md$/ {
		if ($0 !~ /^\| [0-9][0-9]-/) next
		split($0, c, "|"); s = c[3]; gsub(/[ `]/, "", s); sub(/@.*/, "", s); repo[s]++; nshared++
		next
	}
	{
		if ($0 !~ /^\| c?[0-9][0-9][0-9]-/) next
		split($0, c, "|"); s = c[3]; gsub(/ /, "", s); repo[s]++; ncorpus++
	}
	END {
		for (k in seen) { split(k, p, "\t"); set[p[1]]++ }
		for (k in files) nf++
		printf "| set | scripts |\n|---|---|\n"
		printf "| shared (tests/data/slurm-corpus/shared/) | %d |\n", set["shared"]
		printf "| corpus (../shared/data/slurm-corpus/, not committed) | %d |\n", set["corpus"]
		printf "| all | %d |\n\n", set["shared"] + set["corpus"]
		printf "Sources listed: %d shared, %d corpus.\n\n", nshared, ncorpus
		printf "| rule | shared | corpus | all |\n|---|---|---|---|\n"
		n = 0; for (r in rule) names[++n] = r
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (names[j] < names[i]) { t = names[i]; names[i] = names[j]; names[j] = t }
		for (i = 1; i <= n; i++)
			printf "| %s%s | %d | %d | %d |\n", names[i], (names[i] == "kept-alternative" || names[i] == "plugin-option") ? " (note)" : "",
				rs["shared\t" names[i]], rs["corpus\t" names[i]], rule[names[i]]
		printf "\nReal problems (all rules but the notes): %d, in %d scripts.\n\n", real, nf
		printf "| repository | scripts |\n|---|---|\n"
		m = 0; for (r in repo) rn[++m] = r
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++)
			if (repo[rn[j]] > repo[rn[i]] || (repo[rn[j]] == repo[rn[i]] && rn[j] < rn[i])) { t = rn[i]; rn[i] = rn[j]; rn[j] = t }
		for (i = 1; i <= m; i++) printf "| %s | %d |\n", rn[i], repo[rn[i]]
		printf "\n%d repositories.\n", m
	}' "$D/EXPECT" "$D/shared/SOURCES.md" "$D/../corpus-sources/slurm-SOURCES.md"
}
case $1 in
--check)
	tmp=$(mktemp) || exit 2
	block >"$tmp"
	awk '/<!-- count.sh begin -->/ { on = 1; next } /<!-- count.sh end -->/ { on = 0 } on' "$D/README.md" |
		cmp -s - "$tmp"
	rc=$?
	[ $rc -eq 0 ] || { echo "README.md: the counts differ from count.sh's; run count.sh and paste its block" >&2; diff "$tmp" - <<EOF2 >&2
$(awk '/<!-- count.sh begin -->/ { on = 1; next } /<!-- count.sh end -->/ { on = 0 } on' "$D/README.md")
EOF2
	}
	rm -f "$tmp"
	exit $rc ;;
'') block ;;
*) echo "usage: count.sh [--check]" >&2; exit 2 ;;
esac
