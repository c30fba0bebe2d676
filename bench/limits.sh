#!/bin/sh
# bench/limits.sh - issue 32's three goals in one run (not a test): runs
# bench/offers.sh (the 1M-row catalog query against `wc -l`, pandas and
# Miller, with the time split), bench/manifest.sh's "many" case (200,000
# small files against `xargs xxhsum`, ROUNDS interleaved rounds) and
# bench/guard.sh (the guard's RSS), shows each one's report, then the
# figures against their goals:
#   offers / wc -l                          <= 3
#   xxhsum / manifest, in every round       >= 2   (the smallest round)
#   the guard's peak RSS, each sampling mode <= 4 MB
#   sh bench/limits.sh [ROUNDS] [GUARD_SECONDS]    (defaults 5 and 20)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${1:-5}
GSEC=${2:-20}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

echo "== bench/offers.sh"
sh "$ROOT/bench/offers.sh" | tee "$W/offers"
echo
echo "== bench/manifest.sh ($ROUNDS rounds, many small files)"
BENCH_CASES=many sh "$ROOT/bench/manifest.sh" "$ROUNDS" | tee "$W/manifest"
echo
echo "== bench/guard.sh ($GSEC s)"
sh "$ROOT/bench/guard.sh" "$GSEC" 5 | tee "$W/guard" || true
echo
echo "== issue 32's goals, this run ($(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)):"
awk '
FILENAME ~ /offers$/ && /^gpurent \/ wc -l:/ { o = $5; sub(/x$/, "", o); have_o = 1 }
FILENAME ~ /offers$/ && /^SKIP/ { skip_o = $0 }
FILENAME ~ /manifest$/ && /manifest is faster by/ {
	for (i = 1; i <= NF; i++) if ($i == "(min") { m = $(i + 1); sub(/,$/, "", m) }
	med = $0; sub(/.*\(manifest is faster by\) */, "", med); split(med, a, " "); mmed = a[1]; have_m = 1 }
FILENAME ~ /guard$/ && /peak RSS/ {
	for (i = 1; i <= NF; i++) if ($i == "RSS") { r = $(i + 1); if (r + 0 > rss + 0) rss = r }
	mode = $1 " " $2; modes = modes (modes ? ", " : "") $0; have_g = 1 }
END {
	if (have_o)
		printf "  offers / wc -l (1M-row catalog)           %6.2fx   goal <= 3x    %s\n", o, (o <= 3 ? "met" : "MISSED")
	else
		printf "  offers / wc -l                             no figure (%s)\n", skip_o ? skip_o : "see above"
	if (have_m)
		printf "  xxhsum / manifest, smallest of the rounds %6.2fx   goal >= 2x    %s   (median %.2fx)\n", m, (m >= 2 ? "met" : "MISSED"), mmed
	else
		print "  xxhsum / manifest                          no figure (see above)"
	if (have_g)
		printf "  guard peak RSS, the larger of the modes   %6.2f MB  goal <= 4 MB  %s\n", rss, (rss <= 4 ? "met" : "MISSED")
	else
		print "  guard peak RSS                             no figure (see above)"
}' "$W/offers" "$W/manifest" "$W/guard"
