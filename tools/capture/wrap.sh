#!/bin/bash
# wrap.sh - stands in for gpurent (GPURENT=.../wrap.sh) and records each
# invocation under $CAPDIR/N.d/: args (the directory, then argv), out, err,
# rc; then runs $CAP_REAL with the same arguments and passes its output on.
# Invocations are numbered in the order they start. A caller that cannot
# write $CAPDIR (a test run as another user) is run unrecorded.
[ -w "$CAPDIR" ] || [ ! -e "$CAPDIR" ] || exec "$CAP_REAL" "$@"
n=$(mkdir -p "$CAPDIR" && cd "$CAPDIR" && i=$(ls | wc -l); while ! mkdir "$i.d" 2>/dev/null; do i=$((i+1)); done; echo $i)
d=$CAPDIR/$n.d
printf '%s\n' "$PWD" "$@" > "$d/args"
"$CAP_REAL" "$@" > "$d/out" 2> "$d/err"; rc=$?
echo $rc > "$d/rc"
cat "$d/out"; cat "$d/err" >&2
exit $rc
