#!/bin/sh
# tests/data/slurm-corpus/parity.sh - sbatch --test-only over every script of
# both sets on the private one-node cluster of tests/cli/lib/slurmcluster.sh
# (its slurm.conf: one node gn1, 2 CPUs, 1000 MB, gpu:2, partition "gpu",
# MaxTime=2, no accounting). Writes SBATCH-PARITY's rows on stdout:
#   set<TAB>script<TAB>exit<TAB>message
# message: sbatch's stderr lines joined with " | " ("-" when it said nothing
# but "Job N to start at ..."). Each script is submitted from an empty scratch
# directory, as the corpus test runs lint. Needs root (slurmd) and slurm-wlm.
# usage: parity.sh SHARED_DIR CORPUS_DIR
export LC_ALL=C
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
. "$ROOT/tests/cli/lib/slurmcluster.sh"
T=$(mktemp -d) || exit 1
trap 'slurm_cluster_stop; rm -rf "$T"' EXIT
unset SLURM_JOB_ID SLURM_CONF
slurm_cluster_start "$T/cluster" || { echo "SKIP sbatch parity: $SLURM_WHY" >&2; exit 77; }
for set in shared corpus; do
	[ $set = shared ] && d=$1 || d=$2
	for f in "$d"/*; do
		b=$(basename "$f")
		case $b in SOURCES.md|README.md) continue ;; esac
		mkdir -p "$T/scratch" && rm -rf "$T/scratch"/* && cd "$T/scratch" || exit 1
		timeout 60 sbatch --test-only $PARITY_EXTRA "$f" >"$T/out" 2>"$T/err" </dev/null
		rc=$?
		msg=$(grep -v 'to start at' "$T/err" | tr -d '\r' | tr '\t\n' '  ' | sed 's/  */ /g; s/ $//; s/^$/-/')
		printf '%s\t%s\t%s\t%s\n' "$set" "$b" "$rc" "$msg"
	done
done
