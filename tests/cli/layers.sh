#!/bin/sh
# layers.sh - the shape of src/ (CONTRIBUTING.md "The tree"): every quoted
# #include is written from src/ and never climbs the floors of src/LAYERS,
# every folder of src/ with code is on a floor, no .c file is over 1,000
# lines and no function over 200.
NAME=layers
. "$(dirname "$0")/lib/common.sh"

# climbs DIR: one line per include of DIR/**/*.[ch] that breaks DIR/LAYERS
climbs() {
	(cd "$1" && awk '
	FILENAME == "LAYERS" {
		if ($0 ~ /^#/ || NF == 0) next
		floor++
		for (i = 1; i <= NF; i++) {
			if ($i in level) printf "LAYERS: %s is on two floors\n", $i
			level[$i] = floor
		}
		next
	}
	FNR == 1 {
		from = FILENAME; sub(/\/[^\/]*$/, "", from); if (from == FILENAME) from = "."
		if (!(from in level)) printf "%s: its folder %s is on no floor of LAYERS\n", FILENAME, from
	}
	/^[ \t]*#[ \t]*include[ \t]*"/ {
		inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
		to = inc; sub(/\/[^\/]*$/, "", to); if (to == inc) to = "."
		if (inc ~ /(^|\/)\.\.?\//) { printf "%s:%d: \"%s\" is not written from src/\n", FILENAME, FNR, inc; next }
		if ((getline junk < inc) < 0) { printf "%s:%d: \"%s\": no such file under src/\n", FILENAME, FNR, inc; next }
		close(inc)
		if (from == to || !(from in level)) next
		if (!(to in level)) printf "%s:%d: \"%s\": folder %s is on no floor\n", FILENAME, FNR, inc, to
		else if (level[to] > level[from]) printf "%s:%d: \"%s\" climbs from %s (floor %d) to %s (floor %d)\n", FILENAME, FNR, inc, from, level[from], to, level[to]
		else if (level[to] == level[from]) printf "%s:%d: \"%s\": %s and %s share a floor\n", FILENAME, FNR, inc, from, to
	}' LAYERS $(find . -name '*.[ch]' | sed 's|^\./||' | LC_ALL=C sort))
}

out=$(climbs "$ROOT/src")
if [ -z "$out" ]; then ok; else bad "includes that break src/LAYERS:"; echo "$out"; fi
for d in $(grep -v '^#' "$ROOT/src/LAYERS"); do
	[ -d "$ROOT/src/$d" ] && ok || bad "src/LAYERS names $d, which is not a folder of src/"
done

# The check finds what it is for, in a scratch tree: a climb, a shared
# floor, a path with ../, a folder on no floor.
mkdir -p "$T/s/base" "$T/s/kit" "$T/s/os" "$T/s/new"
printf 'base\nkit os\n' >"$T/s/LAYERS"
: >"$T/s/kit/x.h"; : >"$T/s/os/y.h"; : >"$T/s/base/z.h"
printf '#include "kit/x.h"\n' >"$T/s/base/a.c"
printf '#include "os/y.h"\n#include "../base/z.h"\n#include "base/z.h"\n' >"$T/s/kit/b.c"
echo "int x;" >"$T/s/new/c.c"
out=$(climbs "$T/s")
echo "$out" | grep -q 'base/a.c:1: "kit/x.h" climbs from base (floor 1) to kit (floor 2)' && ok || bad "a climb is not found: $out"
echo "$out" | grep -q 'kit/b.c:1: "os/y.h": kit and os share a floor' && ok || bad "a shared floor is not found: $out"
echo "$out" | grep -q 'kit/b.c:2: "../base/z.h" is not written from src/' && ok || bad "a ../ include is not found: $out"
echo "$out" | grep -q 'new/c.c: its folder new is on no floor' && ok || bad "a folder on no floor is not found: $out"
[ "$(echo "$out" | wc -l)" -eq 4 ] && ok || bad "the scratch tree gives other lines: $out"

# Files a newcomer can read: no .c file over 1,000 lines, no function over
# 200 (a function runs from a "{" at column 0 to the next "}" at column 0).
long=$(cd "$ROOT/src" && find . -name '*.c' -exec wc -l {} + | awk '$2 != "total" && $1 > 1000 {print $2 ": " $1 " lines"}')
if [ -z "$long" ]; then ok; else bad "files over 1,000 lines:"; echo "$long"; fi
longfn=$(cd "$ROOT/src" && awk '
/^\{/ { start = FNR; name = prev; next }
/^\}/ && start { if (FNR - start + 1 > 200) printf "%s:%d: %s: %d lines\n", FILENAME, start, name, FNR - start + 1; start = 0 }
{ prev = $0 }' $(find . -name '*.c' | LC_ALL=C sort))
if [ -z "$longfn" ]; then ok; else bad "functions over 200 lines:"; echo "$longfn"; fi
finish
