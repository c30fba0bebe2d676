#!/bin/sh
# tests/cli/examples.sh - every example in README.md and docs/*.md gives an
# answer (issue 29: the README's own student example found nothing). Each
# `gpurent ...` command of a fenced block (`$ gpurent` lines where a block
# shows its output, else lines that start with gpurent; a trailing \ or |
# joins the next line) runs, in the order of its page, with the built binary
# in a directory of the test's own that sees the repository's examples/,
# tests/ and data/, its own config, ledger and cache. It fails on "No offer
# fits" / "No offer serves" and on an exit status other than 0 that the
# example's own comment does not name ("exit 1 on a fail"). What cannot run
# here (a GPU box, the network, a cluster, a file of the reader's own, a
# synopsis) says SKIP and why. Prints "examples: N passed, M failed".
NAME=examples
. "$(dirname "$0")/lib/common.sh"

W=$T/w
mkdir -p "$W" "$T/home" "$T/cache" "$T/data-home"
for d in examples tests data; do ln -s "$ROOT/$d" "$W/$d"; done
export HOME="$T/home" XDG_CACHE_HOME="$T/cache" XDG_DATA_HOME="$T/data-home" GPURENT_LEDGER="$T/ledger.db"
export GPURENT_NVML_LIB=none LC_ALL=C
unset CUDA_VISIBLE_DEVICES

# FILE:LINE<TAB>COMMAND (newlines of a joined command as \n), page by page
perl -e '
for my $f (@ARGV) {
	open(my $fh, "<", $f) or die "$f: $!";
	my @l = <$fh>; chomp @l;
	my ($in, $dollar, $cmd, $at) = (0, 0);
	for my $i (0 .. $#l) {
		my $s = $l[$i];
		if ($s =~ /^\s*```/) {
			$in = !$in;
			# a block that shows output marks its commands with "$ "
			if ($in) { $dollar = 0; for (my $k = $i + 1; $k <= $#l && $l[$k] !~ /^\s*```/; $k++) { $dollar = 1 if $l[$k] =~ /^\s*\$ gpurent\b/ } }
			next;
		}
		next unless $in;
		if (defined $cmd) { $cmd .= "\n$s"; } elsif ($dollar ? $s =~ /^\s*\$ (gpurent\b.*)$/ : $s =~ /^\s*(gpurent\b.*)$/) {
			$cmd = $1; $at = $i + 1;
			if ($cmd =~ /^gpurent( [a-z]+)*: / || $cmd =~ /^gpurent [0-9]/) { undef $cmd; next; }   # output
		} else { next; }
		next if $s =~ /(\\|\|)\s*$/;
		(my $one = $cmd) =~ s/\n/\\n/g;
		my $rel = $f; $rel =~ s{.*/((docs/)?[^/]+)$}{$1};
		print "$rel:$at\t$one\n";
		undef $cmd;
	}
}' "$ROOT/README.md" "$ROOT"/docs/*.md >"$T/cmds"
n=$(wc -l <"$T/cmds")
[ "$n" -ge 60 ] && ok || bad "only $n example commands read from README.md and docs/*.md"

# why COMMAND: the reason it cannot run here, or nothing (COMMAND without its comments)
why() {
	case $1 in
	'gpurent bench'*) echo "measures the rented GPU box" ;;
	'gpurent probe'*) echo "runs the job's first steps on the GPU box" ;;
	'gpurent env'*) echo "checks the rented box (its GPUs, /workspace)" ;;
	'gpurent release'*) echo "deletes files and credentials of the rented box" ;;
	*' [-'*|*' [--'*) echo "a synopsis ([options]), not a command" ;;
	*'--preset runpod'*) echo "runs on a RunPod machine (RUNPOD_POD_ID)" ;;
	'gpurent run '*'-- python'*|'gpurent run '*'-- ./'*) echo "runs the reader's own training program" ;;
	*/workspace*) echo "a path of the rented box (/workspace)" ;;
	*'~/'*|*' ../'*) echo "a catalog or file in the reader's home" ;;
	*cur-2024-03.csv*|*gcp-2024-03.csv*) echo "the reader's own bill exports" ;;
	*' task.yaml'*|*' train.dstack.yml'*|*' job.yaml'*|*MD5SUMS*|*results.manifest*) echo "a file of the reader's own" ;;
	'gpurent ledger show '*) echo "names a run id of the reader's ledger" ;;
	'gpurent ckpt latest ckpt'*) echo "reads the reader's checkpoint folder" ;;
	*' sbatch '*|*srun*) echo "submits to a Slurm cluster" ;;
	esac
}

i=0
while IFS="$(printf '\t')" read -r where cmd; do
	i=$((i + 1))
	cmd=$(printf '%s' "$cmd" | sed 's/\\n/\n/g')
	first=$(printf '%s\n' "$cmd" | head -1)
	reason=$(why "$(printf '%s\n' "$cmd" | sed 's/[[:space:]][[:space:]]*# .*$//' | tr '\n' ' ')")
	if [ -n "$reason" ]; then
		say_skip "$where '$(printf '%.60s' "$first")'" "$reason"
		continue
	fi
	# the example's own comment may name its status ("exit 1 on a fail")
	allowed=$(printf '%s\n' "$cmd" | sed -n 's/.*#.*exit \([0-9]\).*/\1/p' | head -1)
	printf '%s\n' "$cmd" | sed "s|^gpurent |\"\$GPURENT\" |; s/\\([|;&] *\\)gpurent /\\1\"\$GPURENT\" /g" >"$T/cmd.sh"
	(cd "$W" && timeout 120 sh "$T/cmd.sh") >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	if grep -q 'No offer fits\|No offer serves' "$T/out" "$T/err"; then
		bad "$where: '$first' finds nothing: $(grep -A3 'No offer' "$T/out" | head -4)"
	elif [ "$rc" -ne 0 ] && [ "$rc" != "${allowed:-0}" ]; then
		bad "$where: '$first' exits $rc, which the page does not say: $(tail -2 "$T/err")"
	else
		ok
	fi
done <"$T/cmds"
[ "$i" -eq "$n" ] && ok || bad "read $i of the $n commands"

finish
