#!/bin/sh
# tests/cli/release.sh - `gpurent release` in a test HOME planted with each
# kind of credential, shell histories, leftovers in a private /tmp and
# /dev/shm and personal paths: --dry-run lists exactly what release then
# deletes; --keep spares a path; a failing --verify deletes nothing and
# runs no action; the action (an --on-release command that records its
# calls in a file) runs once; the ledger records counts by category and no
# secret. And the guard's --release / *-release presets. Prints
# "release: N passed, M failed".
NAME=release
. "$(dirname "$0")/lib/common.sh"

MARK=gpurentRELEASEmarker41d9
H=$T/home W=$T/work
plant() {
	rm -rf "$H" "$W" "$T/tmproot" "$T/shm"
	mkdir -p "$H/.aws" "$H/.config/gcloud" "$H/.cache/huggingface" "$H/.docker" "$H/.ssh" "$W/results" \
		"$W/scratch/deep" "$T/tmproot" "$T/shm"
	printf '[default]\naws_secret_access_key = %s\n' "$MARK" >"$H/.aws/credentials"
	printf '{"refresh_token": "%s"}\n' "$MARK" >"$H/.config/gcloud/application_default_credentials.json"
	printf 'hf_%s\n' "$MARK" >"$H/.cache/huggingface/token"
	printf 'machine api.wandb.ai login u password %s\n' "$MARK" >"$H/.netrc"
	printf 'https://u:%s@github.com\n' "$MARK" >"$H/.git-credentials"
	printf '{"auths": {"r": {"auth": "%s"}}}\n' "$MARK" >"$H/.docker/config.json"
	printf -- '-----BEGIN RSA PRIVATE KEY-----\n%s\n-----END RSA PRIVATE KEY-----\n' "$MARK" >"$H/.ssh/id_rsa"
	printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n' "$MARK" >"$H/.ssh/id_kept"
	printf 'ssh-rsa AAAA u@box\n' >"$H/.ssh/id_rsa.pub"
	printf 'ssh-rsa AAAA u@laptop\n' >"$H/.ssh/authorized_keys"
	printf 'TOKEN=%s\n' "$MARK" >"$W/.env"
	printf 'export HF_TOKEN=%s\n' "$MARK" >"$H/.bash_history"
	printf 'print("%s")\n' "$MARK" >"$H/.python_history"
	printf 'notes %s\n' "$MARK" >"$W/scratch/notes.txt"
	printf 'more\n' >"$W/scratch/deep/a.bin"
	printf 'keep me\n' >"$W/scratch/deep/keep.txt"
	ln -s /etc/hostname "$W/scratch/link"
	printf 'weights\n' >"$W/results/model.bin"
	ln "$W/results/model.bin" "$W/scratch/model-link.bin"   # a hard link: unlinked, never zeroed
	truncate -s 1100M "$T/tmproot/cache.bin"
	truncate -s 1G "$T/shm/batch.npy"
	printf 'small\n' >"$T/shm/small"
	chmod 600 "$H/.aws/credentials" "$H/.ssh/id_rsa" "$H/.ssh/id_kept"
}
# a rented box's mount table: everything on one local disk (the machine's own
# table may put /tmp on a network filesystem)
printf '22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n' >"$T/mounts.local"
MT=$T/mounts.local
rel() {
	cd "$W" || return
	run env -i HOME="$H" PATH=/usr/bin:/bin LANG=C GPURENT_TMP_ROOT="$T/tmproot" GPURENT_SHM_PATH="$T/shm" \
		GPURENT_LEDGER="$T/ledger.db" GPURENT_MOUNT_TABLE="$MT" "$G" release "$@"
	cd "$T" || return
}
listed() {   # the paths a run names as deleted (or to be), in its order
	sed -n -e 's/^  would delete \([a-z]*\) \(.*\) ([0-9]* bytes)$/\1 \2/p' \
		-e 's/^  deleted \([a-z]*\) \(.*\) ([0-9]* bytes)$/\1 \2/p' \
		-e 's/^  would remove directory \([a-z]*\) \(.*\)$/dir \1 \2/p' \
		-e 's/^  removed directory \([a-z]*\) \(.*\)$/dir \1 \2/p' "$1"
}
no_secret() {
	if grep -al "$MARK" "$@" >/dev/null 2>&1; then bad "$1: a secret's value was printed or stored"; else ok; fi
}
truncate -s 1M "$T/probe.sparse" 2>/dev/null || { echo "SKIP release: no truncate"; finish; exit $?; }

ACT="printf '%s\\n' \"\$GPURENT_STOP_REASON\" >>'$T/calls'"
plant
rel --dry-run --keep "$H/.ssh/id_kept" --keep scratch/deep/keep.txt --path scratch --on-release "$ACT"
[ "$rc" -eq 0 ] && ok || bad "dry-run: exit $rc: $(cat "$T/err")"
cp "$T/out" "$T/dry.txt"; cp "$T/err" "$T/dry.err"
listed "$T/dry.txt" >"$T/dry.list"
grep -q '^  would run: printf' "$T/dry.txt" && ok || bad "dry-run does not say what it would run"
[ ! -e "$T/calls" ] && ok || bad "dry-run ran the action"
[ -f "$H/.aws/credentials" ] && [ -f "$H/.bash_history" ] && [ -f "$W/scratch/notes.txt" ] && [ -f "$T/tmproot/cache.bin" ] \
	&& ok || bad "dry-run deleted something"
cat >"$T/want.list" <<LIST
credential $H/.aws/credentials
credential $H/.config/gcloud/application_default_credentials.json
credential $H/.cache/huggingface/token
credential $H/.netrc
credential $H/.git-credentials
credential $H/.docker/config.json
credential $H/.ssh/id_rsa
credential $W/.env
leftover $T/shm/batch.npy
leftover $T/tmproot/cache.bin
path $W/scratch/deep/a.bin
path $W/scratch/link
path $W/scratch/model-link.bin
path $W/scratch/notes.txt
history $H/.bash_history
history $H/.python_history
LIST
cmp -s "$T/dry.list" "$T/want.list" && ok || { bad "dry-run list differs from the planted items"; diff "$T/want.list" "$T/dry.list"; }
[ ! -e "$T/ledger.db" ] && ok || bad "dry-run wrote the ledger"

# the real run deletes exactly that list, runs the action once, records it
rel --keep "$H/.ssh/id_kept" --keep scratch/deep/keep.txt --path scratch --on-release "$ACT"
[ "$rc" -eq 0 ] && ok || bad "release: exit $rc: $(cat "$T/err")"
cp "$T/out" "$T/real.txt"; cp "$T/err" "$T/real.err"
listed "$T/real.txt" >"$T/real.list"
cmp -s "$T/dry.list" "$T/real.list" && ok || { bad "release deleted other paths than --dry-run listed"; diff "$T/dry.list" "$T/real.list"; }
gone=0
while read -r a b c; do
	p=$b; [ "$a" = dir ] && p=$c
	[ -e "$p" ] || [ -L "$p" ] && { bad "still there: $p"; gone=1; }
done <"$T/real.list"
[ "$gone" = 0 ] && ok
[ -f "$H/.ssh/id_kept" ] && [ -f "$W/scratch/deep/keep.txt" ] && [ -f "$H/.ssh/id_rsa.pub" ] && [ -f "$H/.ssh/authorized_keys" ] && [ -f "$W/results/model.bin" ] \
	&& [ -f "$T/shm/small" ] && [ -f /etc/hostname ] && ok || bad "release deleted a kept or unlisted file"
[ "$(cat "$T/calls" 2>/dev/null)" = release ] && ok || bad "the action ran $(wc -l <"$T/calls" 2>/dev/null) times: $(cat "$T/calls" 2>/dev/null)"
grep -q '^step 4/4 release: done$' "$T/real.txt" && ok || bad "no 'release: done' step"
grep -q 'old blocks may survive' "$T/real.txt" && ok || bad "the SSD / copy-on-write limit is not stated"
[ "$(cat "$W/results/model.bin")" = weights ] && ok || bad "a hard link's other name was zeroed"
grep -q '^released: 8 credential, 2 leftover, 4 path and 2 history files deleted' "$T/real.txt" && ok \
	|| bad "summary: $(tail -1 "$T/real.txt")"
if command -v sqlite3 >/dev/null 2>&1; then
	row=$(sqlite3 "$T/ledger.db" "SELECT verify, credentials, leftovers, paths, histories, action, action_status, action_answer FROM releases")
	[ "$row" = "skipped|8|2|4|2|command|done|exit status 0" ] && ok || bad "ledger row: $row"
else
	echo "SKIP release ledger row: no sqlite3 program"
fi
no_secret output "$T/dry.txt" "$T/dry.err" "$T/real.txt" "$T/real.err"
no_secret ledger "$T"/ledger.db*

# a failing --verify: nothing deleted, no action, exit 1
plant
rm -f "$T/calls" "$T/ledger.db"
"$G" manifest "$W/results" -o "$T/results.manifest" >/dev/null 2>&1 || bad "manifest failed"
printf 'changed\n' >>"$W/results/model.bin"
rel --verify "$T/results.manifest" results --path scratch --on-release "$ACT"
[ "$rc" -eq 1 ] && ok || bad "failed verify: exit $rc"
grep -q 'step 1/4 verify: failed: nothing is deleted' "$T/out" && ok || bad "failed verify not said: $(cat "$T/out")"
[ -f "$H/.aws/credentials" ] && [ -f "$W/scratch/notes.txt" ] && [ -f "$H/.bash_history" ] && [ -f "$T/tmproot/cache.bin" ] \
	&& ok || bad "a failed verify deleted something"
[ ! -e "$T/calls" ] && ok || bad "a failed verify ran the action"
grep -q '^step 2/4' "$T/out" && bad "went on after a failed verify" || ok
# ... and a passing one goes on
"$G" manifest "$W/results" -o "$T/results.manifest" >/dev/null 2>&1
rel --verify "$T/results.manifest" results --on-release "$ACT"
[ "$rc" -eq 0 ] && grep -q '^step 1/4 verify: ok$' "$T/out" && ok || bad "passing verify: exit $rc $(cat "$T/err")"
[ ! -e "$H/.aws/credentials" ] && [ "$(wc -l <"$T/calls")" -eq 1 ] && ok || bad "after a passing verify"

# a failing action: exit 1, recorded as failed, the command's text not stored
plant
rm -f "$T/ledger.db"
rel --on-release "exit 3 # $MARK"
[ "$rc" -eq 1 ] && grep -q '^step 4/4 release: failed$' "$T/out" && ok || bad "failing action: exit $rc"
if command -v sqlite3 >/dev/null 2>&1; then
	[ "$(sqlite3 "$T/ledger.db" "SELECT action, action_status FROM releases")" = "command|failed" ] && ok || bad "failed action not recorded"
fi
no_secret failed-action-ledger "$T"/ledger.db*

# an action that hangs is killed at --stop-timeout, and the release fails
plant
rel --no-ledger --on-release "sleep 300" --stop-timeout 1s
[ "$rc" -eq 1 ] && grep -q 'did not finish within 1 s: killed' "$T/err" && ok || bad "hanging action: exit $rc $(cat "$T/err")"

# a stop-only preset: what its storage keeps billing a day, and the releasing preset
plant
cd "$W" && run env -i HOME="$H" PATH=/usr/bin:/bin RUNPOD_POD_ID=p1 GPURENT_TMP_ROOT="$T/tmproot" \
	GPURENT_SHM_PATH="$T/shm" "$G" release --dry-run --preset runpod; cd "$T"
grep -Eq 'preset runpod only stops the instance: its storage keeps billing, about [0-9]+\.[0-9]{2} USD a day for the [0-9]+ GB used here \(data/billing.csv .runpod.: storage 0.10 USD per GB-month, stopped 0.000 USD an hour\)$' "$T/err" \
	&& grep -q 'preset runpod-release deletes the instance and its disks instead' "$T/err" && ok || bad "stop-only preset: $(cat "$T/err")"
# the figure is the formula's: 24 x 0 + GB x 0.10 / 30, for the GB it states
awk '/USD a day for the/ { for (i = 1; i <= NF; i++) { if ($i == "about") d = $(i + 1); if ($i == "the" && $(i + 2) == "GB") g = $(i + 1) } }
	END { e = g * 0.10 / 30; exit !(d + 0 >= e - 0.0051 - 0.0034 && d + 0 <= e + 0.0051 + 0.0034) }' "$T/err" && ok \
	|| bad "the daily figure is not GB x 0.10 / 30: $(cat "$T/err")"
grep -Fq 'would run: runpodctl stop pod "$RUNPOD_POD_ID"' "$T/out" && ok || bad "runpod dry run: $(cat "$T/out")"
cd "$W" && run env -i HOME="$H" PATH=/usr/bin:/bin RUNPOD_POD_ID=p1 GPURENT_TMP_ROOT="$T/tmproot" \
	GPURENT_SHM_PATH="$T/shm" "$G" release --dry-run --preset runpod-release; cd "$T"
grep -Fq 'would run: runpodctl remove pod "$RUNPOD_POD_ID"' "$T/out" && [ ! -s "$T/err" ] && ok || bad "runpod-release: $(cat "$T/out" "$T/err")"
for p in aws-release azure-release gcp-release vastai-release slurm; do
	"$G" release --dry-run --no-ledger --preset "$p" >"$T/out" 2>"$T/err"
	grep -q "^step 4/4 release: $p: " "$T/out" && ! grep -q 'only stops' "$T/err" && ok || bad "preset $p: $(cat "$T/err")"
done
grep -q 'gcloud compute instances delete' "$T/out" || "$G" release --dry-run --no-ledger --preset gcp-release 2>/dev/null | grep -q -- '--delete-disks=all' && ok || bad "gcp-release does not delete the disks"

# bad usage: one line, exit 2, nothing deleted
plant
usage() {   # usage TEXT ARGS...
	want=$1; shift
	rel "$@"
	[ "$rc" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -Fq -- "$want" "$T/err" && [ -f "$H/.aws/credentials" ] \
		&& ok || bad "release $*: rc $rc: $(cat "$T/err")"
}
usage 'unknown preset' --preset nosuch
usage 'needs the environment variable RUNPOD_POD_ID' --preset runpod-release
usage 'give one release action' --preset slurm --on-release true
usage 'expected the directory to check after it' --verify "$T/results.manifest"
usage 'a directory operand goes with --verify MANIFEST' results
usage 'No such file or directory' --path no-such-dir
usage 'refusing to delete / or your whole home directory' --path "$H"

# issue 26, release-home-dot: every spelling of /, the home and what is above
# it is resolved before the comparison and refused (all with --dry-run: a
# broken guard plans, it does not delete)
ln -s "$H" "$T/homelink"
for p in "$H/." "$H/" "$H//" "$H/./" "$W/../home" "$T/homelink/." "$T/homelink/" "$H/.ssh/.."; do
	usage 'refusing to delete / or your whole home directory' --dry-run --path "$p"
done
for p in / /. // /../ /tmp/..; do
	usage 'refusing to delete / or your whole home directory' --dry-run --path "$p"
done
usage 'a directory above your home directory' --dry-run --path "$T"
usage 'a directory above your home directory' --dry-run --path "$H/.."
# a mount point, as the mount table names it (\040: a space)
mkdir -p "$W/data mnt"
printf '22 1 8:1 / / rw - ext4 /dev/sda1 rw\n40 22 0:50 / %s rw - nfs4 fs:/x rw\n' "$(printf '%s' "$W/data mnt" | sed 's/ /\\040/g')" >"$T/mounts.mnt"
MT=$T/mounts.mnt
usage 'a mount point' --dry-run --path "data mnt"
usage 'a mount point' --dry-run --path "./data mnt/"
MT=$T/mounts.local
# ... and the real run of the repro: $HOME/. is refused, nothing of it goes
printf 'precious\n' >"$H/thesis.txt"
rel --no-ledger --path "$H/."
[ "$rc" -eq 2 ] && [ -f "$H/thesis.txt" ] && ok || bad "release-home-dot: --path \$HOME/.: rc $rc, thesis: $(ls "$H")"

# issue 26, release-keep-dot: --keep in every spelling keeps the file
keepcase() {   # keepcase A.BIN KEEP-ARGS...: under --path scratch, keep.txt stays, notes.txt goes, a.bin as told
	abin=$1; shift
	plant
	ln -s scratch/deep "$W/deeplink"
	ln -s "$W/scratch/deep" "$T/abslink"
	rel --no-ledger --path scratch "$@"
	if [ "$abin" = gone ]; then [ ! -e "$W/scratch/deep/a.bin" ]; else [ -f "$W/scratch/deep/a.bin" ]; fi
	abin_ok=$?
	[ "$rc" -eq 0 ] && [ "$abin_ok" -eq 0 ] && [ -f "$W/scratch/deep/keep.txt" ] && [ ! -e "$W/scratch/notes.txt" ] \
		&& ok || bad "release-keep-dot: $*: rc $rc, left: $(find "$W/scratch" 2>&1 | tr '\n' ' ') $(cat "$T/err")"
}
for k in ./scratch/deep/keep.txt ../work/scratch/deep/keep.txt scratch//deep/./keep.txt \
	"$W/scratch/deep/../deep/keep.txt" deeplink/keep.txt "$T/abslink/keep.txt" "$W/scratch/../scratch/deep/keep.txt"; do
	keepcase gone --keep "$k"
done
for k in scratch/deep/ scratch/deep/. scratch//deep ./scratch/deep "$T/abslink/" "$T/abslink"; do
	keepcase stays --keep "$k"
done
# a symlink to the kept tree keeps the tree (and the link)
keepcase stays --keep deeplink
[ -L "$W/deeplink" ] && ok || bad "--keep deeplink removed the link"
# a symlink from the kept tree out: the link stays, what it points to under --path goes
plant
ln -s ../notes.txt "$W/scratch/deep/out"
rel --no-ledger --path scratch --keep scratch/deep
[ "$rc" -eq 0 ] && [ -L "$W/scratch/deep/out" ] && [ ! -e "$W/scratch/notes.txt" ] && [ -f "$W/scratch/deep/keep.txt" ] \
	&& ok || bad "a symlink out of the kept tree: rc $rc $(cat "$T/err")"
# a --path that is a symlink into the kept tree removes the link, never the tree
plant
ln -s "$W/results" "$W/reslink"
rel --no-ledger --path reslink
[ "$rc" -eq 0 ] && [ ! -L "$W/reslink" ] && [ -f "$W/results/model.bin" ] && ok || bad "--path to a link into a kept tree: rc $rc $(cat "$T/err")"
# a --keep that matches nothing is an error, not a silent no-op
plant
usage 'nothing release would delete is there or under it' --path scratch --keep results
usage 'No such file or directory' --path scratch --keep scratch/nosuch
[ -f "$W/scratch/notes.txt" ] && ok || bad "a refused --keep deleted something"

# issue 26: a campus home. Inside a Slurm job, the home on NFS as the mount
# table shows it, a real unencrypted key and ~/.netrc: `release --preset
# slurm` and `release` with no preset delete none of them, only the job's
# own --path, and say per credential why
mkdir -p "$T/bin"
printf '#!/bin/sh\necho "$0 $*" >>"%s/provider.calls"\n' "$T" >"$T/bin/scancel"
cp "$T/bin/scancel" "$T/bin/runpodctl"
chmod +x "$T/bin/scancel" "$T/bin/runpodctl"
printf '22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n41 22 0:52 / %s rw,relatime shared:30 - nfs4 fs01.campus:/export/home rw,vers=4.2\n' \
	"$H" >"$T/mounts.campus"
campus() {   # a campus home, or a rented box's with the same files
	rm -rf "$H" "$W" "$T/provider.calls"
	mkdir -p "$H/.ssh" "$W/job/out" "$T/tmproot" "$T/shm"
	ssh-keygen -q -t ed25519 -N '' -C campus -f "$H/.ssh/id_ed25519" >/dev/null 2>&1
	printf 'machine cluster.campus login u password %s\n' "$MARK" >"$H/.netrc"
	printf 'ls\n' >"$H/.bash_history"
	printf 'partial\n' >"$W/job/out/part.txt"
}
crel() {   # crel MOUNTTABLE ENV... -- ARGS...
	mt=$1; shift
	cd "$W" || return
	run env -i HOME="$H" PATH="$T/bin:/usr/bin:/bin" LANG=C GPURENT_TMP_ROOT="$T/tmproot" GPURENT_SHM_PATH="$T/shm" \
		GPURENT_MOUNT_TABLE="$mt" "$@"
	cd "$T" || return
}
untouched() {   # untouched WHAT: the key, its .pub, ~/.netrc and the history are all there
	[ -f "$H/.ssh/id_ed25519" ] && [ -f "$H/.ssh/id_ed25519.pub" ] && [ -f "$H/.netrc" ] && [ -f "$H/.bash_history" ] \
		&& grep -q "$MARK" "$H/.netrc" && ok || bad "$1: deleted a campus credential: $(ls -a "$H" "$H/.ssh" | tr '\n' ' ')"
}
if ! command -v ssh-keygen >/dev/null 2>&1; then
	echo "SKIP release campus home: no ssh-keygen (tools/deps.sh installs openssh-client)"
else
	campus
	[ -f "$H/.ssh/id_ed25519" ] && head -1 "$H/.ssh/id_ed25519" | grep -q 'BEGIN OPENSSH PRIVATE KEY' && ok || bad "ssh-keygen made no key"
	crel "$T/mounts.campus" SLURM_JOB_ID=4242 "$G" release --no-ledger --preset slurm --path job
	[ "$rc" -eq 0 ] && ok || bad "campus --preset slurm: rc $rc $(cat "$T/err")"
	untouched "release --preset slurm"
	[ ! -e "$W/job" ] && ok || bad "campus --preset slurm: the job's own --path is still there"
	[ "$(cat "$T/provider.calls" 2>/dev/null)" = "$T/bin/scancel 4242" ] && ok || bad "scancel calls: $(cat "$T/provider.calls" 2>/dev/null)"
	grep -Fxq "  kept credential $H/.ssh/id_ed25519: inside Slurm job 4242 (SLURM_JOB_ID), whose home outlives the job; --wipe-credentials deletes it" "$T/out" \
		&& grep -Fq "  kept credential $H/.netrc: inside Slurm job 4242" "$T/out" && grep -Fq "  kept history $H/.bash_history: inside Slurm job 4242" "$T/out" \
		&& ok || bad "campus: no kept line per credential: $(cat "$T/out")"
	grep -q 'scancel ends Slurm job 4242 and frees its allocation: it releases nothing' "$T/out" && ok || bad "slurm: not said that scancel releases nothing: $(cat "$T/out")"
	grep -q 'what the provider keeps billing' "$T/out" && bad "slurm lists provider leftovers" || ok
	# no preset at all, the same home
	campus
	crel "$T/mounts.campus" SLURM_JOB_ID=4242 "$G" release --no-ledger --path job
	[ "$rc" -eq 0 ] && [ ! -e "$W/job" ] && ok || bad "campus, no preset: rc $rc $(cat "$T/err")"
	untouched "release with no preset"
	# the network home alone, with the user's own --on-release: still kept, the mount named
	campus
	crel "$T/mounts.campus" "$G" release --no-ledger --on-release true
	untouched "release on an NFS home"
	grep -Fxq "  kept credential $H/.netrc: the home is on $H, a nfs4 filesystem shared beyond this machine; --wipe-credentials deletes it" "$T/out" \
		&& ok || bad "NFS home: $(grep kept "$T/out")"
	# ... and Lustre, GPFS, BeeGFS, CIFS, fuse.sshfs homes, in /proc/mounts' format too
	for fs in lustre gpfs beegfs cifs fuse.sshfs; do
		printf '/dev/sda1 / ext4 rw 0 0\nsrv:/h %s %s rw 0 0\n' "$H" "$fs" >"$T/mounts.fs"
		campus
		crel "$T/mounts.fs" "$G" release --no-ledger --on-release true
		untouched "release on a $fs home"
		grep -Fq "a $fs filesystem shared beyond" "$T/out" && ok || bad "$fs home: $(grep kept "$T/out")"
	done
	# Slurm alone (a local home on the node)
	campus
	crel "$T/mounts.local" SLURM_JOB_ID=77 RUNPOD_POD_ID=p1 "$G" release --no-ledger --preset runpod-release
	untouched "runpod-release inside a Slurm job"
	# a stop-only preset on a rented box keeps them (the disk stays)
	campus
	crel "$T/mounts.local" RUNPOD_POD_ID=p1 "$G" release --no-ledger --preset runpod
	untouched "release --preset runpod"
	grep -Fq "  kept credential $H/.netrc: preset runpod only stops the machine" "$T/out" && ok || bad "runpod stop: $(grep kept "$T/out")"
	# --wipe-credentials on the campus host: they go, and the line says whose home it is
	campus
	crel "$T/mounts.campus" SLURM_JOB_ID=4242 "$G" release --no-ledger --preset slurm --wipe-credentials
	[ "$rc" -eq 0 ] && [ ! -e "$H/.ssh/id_ed25519" ] && [ ! -e "$H/.netrc" ] && [ ! -e "$H/.bash_history" ] && ok \
		|| bad "--wipe-credentials: rc $rc $(ls -a "$H/.ssh")"
	grep -Eq "^  --wipe-credentials: the credentials and histories of $H go: the home of [^ ]+ \(uid $(id -u)\) on .+, on a nfs4 filesystem from fs01.campus:/export/home$" "$T/out" \
		&& ok || bad "--wipe-credentials: whose home: $(grep wipe "$T/out")"
	campus
	crel "$T/mounts.local" SLURM_JOB_ID=4243 "$G" release --no-ledger --dry-run --preset slurm --wipe-credentials
	grep -Eq "^  --wipe-credentials: the credentials and histories of $H go: the home of [^ ]+ \(uid $(id -u)\) on .+, inside Slurm job 4243$" "$T/out" \
		&& grep -q "^  would delete credential $H/.netrc" "$T/out" && ok || bad "--wipe-credentials in a job: $(cat "$T/out")"
	# a rented box (local disk, no Slurm) with runpod-release: the dry run lists the credentials first, then they go
	campus
	crel "$T/mounts.local" RUNPOD_POD_ID=p1 "$G" release --no-ledger --dry-run --preset runpod-release --path job
	listed "$T/out" >"$T/rented.list"
	[ "$(head -2 "$T/rented.list")" = "credential $H/.netrc
credential $H/.ssh/id_ed25519" ] && grep -q "^history $H/.bash_history$" "$T/rented.list" && grep -q "^path $W/job/out/part.txt$" "$T/rented.list" \
		&& ok || bad "rented dry run: $(cat "$T/rented.list")"
	grep -q '^  kept ' "$T/out" && bad "rented box: kept something: $(grep kept "$T/out")" || ok
	[ -f "$H/.netrc" ] && [ ! -e "$T/provider.calls" ] && ok || bad "the dry run changed something"
	grep -Fq '    - network volumes: they outlive the pod and bill per GB-month: runpodctl network-volume list, then runpodctl network-volume delete VOLUME_ID (https://docs.runpod.io/' "$T/out" \
		&& ok || bad "runpod-release dry run: no provider leftovers: $(cat "$T/out")"
	crel "$T/mounts.local" RUNPOD_POD_ID=p1 "$G" release --no-ledger --preset runpod-release --path job
	[ "$rc" -eq 0 ] && [ ! -e "$H/.ssh/id_ed25519" ] && [ ! -e "$H/.netrc" ] && [ ! -e "$H/.bash_history" ] && [ ! -e "$W/job" ] \
		&& [ -f "$H/.ssh/id_ed25519.pub" ] && ok || bad "rented box: rc $rc, left $(ls -a "$H" "$H/.ssh" | tr '\n' ' ') $(cat "$T/err")"
	[ "$(cat "$T/provider.calls" 2>/dev/null)" = "$T/bin/runpodctl remove pod p1" ] && ok || bad "runpodctl calls: $(cat "$T/provider.calls" 2>/dev/null)"
	sed -n '/^step 4\/4 release: done$/,$p' "$T/out" | grep -q 'runpodctl network-volume delete' && ok || bad "after the real run: no provider leftovers"
fi

# issue 26, aws-release: the dry run says what terminate-instances leaves billing
for p in aws-release gcp-release azure-release vastai-release; do
	"$G" release --dry-run --no-ledger --preset "$p" >"$T/out" 2>"$T/err"
	grep -q "^  what the provider keeps billing after $p (data/release_leftovers.csv), and the command that removes each:$" "$T/out" \
		&& [ "$(grep -c '^    - .*(https://' "$T/out")" -ge 1 ] && ok || bad "$p: provider leftovers: $(cat "$T/out")"
done
"$G" release --dry-run --no-ledger --preset aws-release >"$T/out" 2>&1
grep -q 'DeleteOnTermination is false.*aws ec2 delete-volume' "$T/out" && grep -q 'Elastic IP addresses.*aws ec2 release-address' "$T/out" \
	&& ok || bad "aws-release: volumes and Elastic IPs not named: $(cat "$T/out")"
# a broken data file is one line and exit 2, before anything is done
mkdir -p "$T/dd"
printf 'preset,keeps,remove,source\nslurm,x,y,z\n' >"$T/dd/release_leftovers.csv"
GPURENT_INSTANCE_ID=i-1 "$G" --data-dir "$T/dd" release --dry-run --no-ledger --preset aws-release >"$T/out" 2>"$T/err"
[ $? -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'release_leftovers.csv:2: preset: expected a preset that releases' "$T/err" \
	&& ok || bad "bad release_leftovers.csv: $(cat "$T/err")"

# the guard: --release picks the preset's releasing variant
RUNPOD_POD_ID=p1 "$G" run --no-ledger --dry-run --preset runpod --release -- true >"$T/out" 2>"$T/err"
grep -Fq 'would run: runpodctl remove pod "$RUNPOD_POD_ID"' "$T/err" && ok || bad "run --release: $(cat "$T/err")"
"$G" run --no-ledger --dry-run --preset autodl --release -- true >"$T/out" 2>"$T/err"
[ $? -eq 2 ] && grep -q 'has no release variant' "$T/err" && ok || bad "run --release autodl: $(cat "$T/err")"
SLURM_JOB_ID=7 "$G" run --no-ledger --dry-run --preset slurm --release -- true >"$T/out" 2>"$T/err"
# under Slurm the end of the job is the release: the guard ends it (a
# clean exit frees the allocation; docs/slurm.md)
grep -Fq 'Slurm job 7: CMD finished its work; the job ends' "$T/err" && ok || bad "run --release slurm: $(cat "$T/err")"
# the plan's checklist names the preset that fits the chosen offer
"$G" plan "$ROOT/examples/lora-7b.yaml" --only runpod >"$T/out" 2>"$T/err"
grep -q 'at the end: gpurent release --verify MANIFEST DIR --preset runpod-release deletes the instance' "$T/out" \
	&& ok || bad "plan --only runpod: no runpod-release line: $(grep 'at the end' "$T/out")"
"$G" plan "$ROOT/examples/lora-7b.yaml" --only autodl >"$T/out" 2>"$T/err"
grep -q 'at the end: gpurent release --preset autodl only stops it' "$T/out" \
	&& ok || bad "plan --only autodl: $(grep 'at the end' "$T/out") $(head -2 "$T/err")"
if need_py "plan --json release_preset"; then
	"$G" plan "$ROOT/examples/lora-7b.yaml" --only runpod --json >"$T/out" 2>/dev/null
	python3 -c "import json; assert json.load(open('$T/out'))['advice']['release_preset'] == 'runpod-release'" && ok || bad "plan --json release_preset"
fi
finish
