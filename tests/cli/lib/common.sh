# tests/cli/lib/common.sh - sourced by the tests/cli/*.sh scripts: a fresh
# temp dir, counters, and the checks they share. The script sets NAME and
# ends with `finish`, which prints "NAME: N passed, M failed".
set -u
: "${GPURENT:?set GPURENT to the binary}"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT
cd "$T" || exit 1
# The user's own defaults never reach a test: a config file of the test's
# own (none), no GPURENT_* setting from the environment, C messages.
export XDG_CONFIG_HOME="$T/.config"
# nor the catalogs `gpurent catalog update` fetched for the user
export XDG_CACHE_HOME="$T/.cache"
unset GPURENT_CONFIG GPURENT_ACCESS GPURENT_CATALOG GPURENT_CURRENCY GPURENT_FRAMEWORK \
	GPURENT_PRESET GPURENT_PRICE GPURENT_RATE GPURENT_RATE_DATE GPURENT_RATE_SOURCE GPURENT_STALE_DAYS GPURENT_NOW LANGUAGE
export LC_MESSAGES=C
pass=0 fail=0
G=$GPURENT
HAVE_PY=0
command -v python3 >/dev/null 2>&1 && HAVE_PY=1
HAVE_PYYAML=0
[ "$HAVE_PY" = 1 ] && python3 -c 'import yaml' 2>/dev/null && HAVE_PYYAML=1
skipped=0

# say_skip WHAT WHY: one "NAME: SKIP WHAT: WHY" line; counted in finish's line
say_skip() { skipped=$((skipped + 1)); echo "$NAME: SKIP $1: $2"; }
# need_py WHAT: true when python3 is there to run the checks WHAT, else a SKIP line
need_py() { [ "$HAVE_PY" = 1 ] && return 0; say_skip "$1" "python3 is not installed (tools/deps.sh installs it)"; return 1; }
# need_pyyaml WHAT: likewise for checks that read YAML with PyYAML (SkyPilot's reader)
need_pyyaml() { [ "$HAVE_PYYAML" = 1 ] && return 0; say_skip "$1" "python3 with PyYAML is not installed (tools/deps.sh installs python3-yaml)"; return 1; }
# skyvalid NAME FILE [skycheck.py options]: the emitted task checked against
# SkyPilot itself: its task schema (tests/data/skypilot-task.schema.json,
# written down from sky/utils/schemas.py) with python3-jsonschema, the
# instance types in the catalog given, the input task's keys kept (--in);
# nothing without jsonschema or PyYAML (HAVE_JSONSCHEMA: the caller says SKIP once)
HAVE_JSONSCHEMA=0
[ "$HAVE_PYYAML" = 1 ] && python3 -c 'import jsonschema' 2>/dev/null && HAVE_JSONSCHEMA=1
skyvalid() {
	[ "$HAVE_JSONSCHEMA" = 1 ] || return 0
	_n=$1 _f=$2
	shift 2
	python3 "$ROOT/tests/cli/lib/skycheck.py" "$ROOT/tests/data/skypilot-task.schema.json" "$_f" "$@" >skyvalid.out 2>&1 \
		&& ok || bad "$_n: not a task SkyPilot takes as it is: $(head -5 skyvalid.out)"
}
# need_shared DIR WHAT: true when ../shared/DIR (real files, not in the repository) is there
need_shared() { [ -e "$ROOT/../shared/$1" ] && return 0; say_skip "$2" "../shared/$1 is absent (real files kept beside the repository)"; return 1; }

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# run CMD...: captures stdout in $T/out, stderr in $T/err, the status in rc
run() { "$@" >"$T/out" 2>"$T/err"; rc=$?; }

# ranked CHECK: a Python expression over the plan JSON in $T/out (plan
# --json): r its ranked list, ex its exclusions by code, rows (provider,
# instance, region, gpu, gpus, mode) a choice; a SKIP line without python3
ranked() {
	need_py "ranked: $1" || return 0
	python3 - "$T/out" "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["ranked"]
ex = {e["code"]: e for e in d["excluded"]}
rows = [(x["provider"], x["instance"], x["region"], x["gpu"], x["gpus"], x["mode"]) for x in r]
assert eval(sys.argv[2]), rows
PY
}

# expect_ok NAME PATTERN CMD...: exit 0 and stdout matches (grep -E)
expect_ok() {
	name=$1 pat=$2; shift 2
	run "$@"
	if [ "$rc" -ne 0 ]; then bad "$name: exit $rc: $(head -3 "$T/err")"; return; fi
	if ! grep -Eq -- "$pat" "$T/out"; then bad "$name: stdout lacks /$pat/"; sed 's/^/    /' "$T/out" | head -20; return; fi
	ok
}

# expect_err NAME CODE PATTERN CMD...: exit CODE, exactly one stderr line
# matching PATTERN (grep -F), nothing on stdout.
expect_err() {
	name=$1 code=$2 pat=$3; shift 3
	run "$@"
	if [ "$rc" -ne "$code" ]; then bad "$name: exit $rc, expected $code: $(head -3 "$T/err")"; return; fi
	if [ "$(wc -l <"$T/err")" -ne 1 ]; then bad "$name: stderr is not one line:"; cat "$T/err"; return; fi
	if ! grep -Fq -- "$pat" "$T/err"; then bad "$name: stderr '$(cat "$T/err")' lacks '$pat'"; return; fi
	if [ -s "$T/out" ]; then bad "$name: printed to stdout on error"; return; fi
	ok
}

finish() {
	if [ "$skipped" -gt 0 ]; then echo "$NAME: $pass passed, $fail failed, $skipped skipped"
	else echo "$NAME: $pass passed, $fail failed"; fi
	[ "$fail" -eq 0 ]
}
