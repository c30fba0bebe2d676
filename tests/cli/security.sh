#!/bin/sh
# tests/cli/security.sh - `gpurent env --security` and `gpurent env` in a
# test HOME and environment planted with each kind of credential, the
# test's own listeners (Jupyter without a token, TensorBoard and an sshd
# allowing passwords on 0.0.0.0, a plain one on 127.0.0.1, a model server
# on ::1 where there is IPv6; tests/progs/listener.c, no traffic),
# leftovers in a private /tmp and /dev/shm. The scan's /proc root is
# private ($GPURENT_PROC_ROOT): the kernel's own net/tcp and tcp6 lines of
# the sockets the listeners hold (by inode), and links to their
# processes, so that other listeners of a busy machine are not seen. Every planted item is
# reported with its fix, nothing else is, and the marker value of every
# planted secret appears nowhere. Prints "security: N passed, M failed".
NAME=security
. "$(dirname "$0")/lib/common.sh"

LISTENER=$(dirname "$G")/progs/listener
[ -x "$LISTENER" ] || { echo "SKIP security: no $LISTENER (make builds it)"; finish; exit $?; }
MARK=gpurentSECRETmarker7c1e
PIDS=""
trap 'for p in $PIDS; do kill "$p" 2>/dev/null; done; chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT

H=$T/home W=$T/work
mkdir -p "$H/.aws" "$H/.config/gcloud" "$H/.cache/huggingface" "$H/.docker" "$H/.ssh" "$W" \
	"$T/bin" "$T/tmproot/run" "$T/shm" "$T/proc/net"
# ---- credentials, each holding the marker ----
printf '[default]\naws_access_key_id = AKIA%s\naws_secret_access_key = %s\n' "$MARK" "$MARK" >"$H/.aws/credentials"
printf '{"type": "authorized_user", "refresh_token": "%s"}\n' "$MARK" >"$H/.config/gcloud/application_default_credentials.json"
printf 'hf_%s\n' "$MARK" >"$H/.cache/huggingface/token"
printf 'machine api.wandb.ai\n  login user\n  password %s\n' "$MARK" >"$H/.netrc"
printf 'https://user:%s@github.com\n' "$MARK" >"$H/.git-credentials"
printf '{"auths": {"registry.example": {"auth": "%s"}}}\n' "$MARK" >"$H/.docker/config.json"
printf 'API_KEY=%s\n' "$MARK" >"$W/.env"
# an OpenSSH key without a passphrase (cipher "none") and one with
b64() { base64 | tr -d '\n'; }
{ printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\n'
  { printf 'openssh-key-v1\000\000\000\000\004none\000\000\000\004none'; printf '%s' "$MARK"; } | b64; echo
  printf -- '-----END OPENSSH PRIVATE KEY-----\n'; } >"$H/.ssh/id_plain"
{ printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\n'
  { printf 'openssh-key-v1\000\000\000\000\012aes256-ctr\000\000\000\006bcrypt'; printf '%s' "$MARK"; } | b64; echo
  printf -- '-----END OPENSSH PRIVATE KEY-----\n'; } >"$H/.ssh/id_locked"
printf 'ssh-ed25519 AAAA user@box\n' >"$H/.ssh/id_plain.pub"
printf 'box ssh-ed25519 AAAA\n' >"$H/.ssh/known_hosts"
chmod 600 "$H/.aws/credentials" "$H/.cache/huggingface/token" "$H/.netrc" "$H/.git-credentials" \
	"$H/.docker/config.json" "$W/.env" "$H/.ssh/id_plain" "$H/.ssh/id_locked"
chmod 644 "$H/.config/gcloud/application_default_credentials.json"   # readable by others: a fail
# ---- leftovers: a large (sparse) file of ours in each temporary root, small ones not reported ----
truncate -s 1200M "$T/tmproot/run/shard.bin" && truncate -s 2G "$T/shm/batch.npy" || {
	echo "SKIP security: truncate cannot make sparse files here"; finish; exit $?; }
printf 'small\n' >"$T/tmproot/small.txt"
# ---- listeners of our own ----
cp "$LISTENER" "$T/bin/jupyter-lab"
cp "$LISTENER" "$T/bin/tensorboard"
cp "$LISTENER" "$T/bin/sshd"
printf '# test sshd\nPort 22\nPasswordAuthentication yes\n' >"$T/sshd_config"
start() {   # start NAME PROG ADDR [WORD...]: a listener, its port in $T/NAME.port
	n=$1 p=$2 a=$3; shift 3
	"$p" "$a" "$T/$n.port" "$@" </dev/null >/dev/null 2>"$T/$n.err" &
	PIDS="$PIDS $!"
	eval "PID_$n=$!"
}
start jup "$T/bin/jupyter-lab" 0.0.0.0 --no-browser --ServerApp.token=
start tb "$T/bin/tensorboard" 0.0.0.0 --logdir runs
start ssh "$T/bin/sshd" 0.0.0.0 -D
start lo "$LISTENER" 127.0.0.1
# a model server on ::1 (tcp6), where the kernel has IPv6
cp "$LISTENER" "$T/bin/vllm"
start v6 "$T/bin/vllm" ::1 serve
i=0
while [ $i -lt 1200 ] && ! { [ -s "$T/jup.port" ] && [ -s "$T/tb.port" ] && [ -s "$T/ssh.port" ] && [ -s "$T/lo.port" ] &&
	{ [ -s "$T/v6.port" ] || ! kill -0 "$PID_v6" 2>/dev/null; }; }; do
	sleep 0.1; i=$((i + 1))
done
for n in jup tb ssh lo; do
	[ -s "$T/$n.port" ] || { bad "listener $n did not start: $(cat "$T/$n.err")"; finish; exit $?; }
done
HAVE6=0 NL=4
if [ -s "$T/v6.port" ]; then HAVE6=1 NL=5; else echo "SKIP the IPv6 listener: $(cat "$T/v6.err")"; fi
# the private /proc: the kernel's own lines of the sockets our listeners hold
# (found by inode among their fds, so no other socket of a busy machine), and
# links to our processes
INODES=""
for p in $PIDS; do
	for fd in /proc/"$p"/fd/*; do
		l=$(readlink "$fd" 2>/dev/null) || continue
		case $l in socket:*) INODES="$INODES $(echo "$l" | tr -dc 0-9)";; esac
	done
	kill -0 "$p" 2>/dev/null && ln -s "/proc/$p" "$T/proc/$p"
done
for f in tcp tcp6; do
	[ -r "/proc/net/$f" ] || continue
	awk -v inodes="$INODES" 'BEGIN { n = split(inodes, v, " "); for (i = 1; i <= n; i++) want[v[i]] = 1 }
		NR == 1 { print; next }
		($10 in want) && $4 == "0A" { print }' "/proc/net/$f" >"$T/proc/net/$f"
done
[ "$(cat "$T/proc/net/tcp" "$T/proc/net/tcp6" 2>/dev/null | grep -c ' 0A ')" -eq "$NL" ] && ok \
	|| { bad "the kernel does not list our $NL listeners"; cat "$T/proc/net/tcp" "$T/proc/net/tcp6"; }

secrun() {
	cd "$W" || return
	run env -i HOME="$H" PATH=/usr/bin:/bin LANG=C MY_API_TOKEN="$MARK" HF_PASSWORD="$MARK" \
		GPURENT_PROC_ROOT="$T/proc" GPURENT_TMP_ROOT="$T/tmproot" GPURENT_SHM_PATH="$T/shm" \
		GPURENT_SSHD_CONFIG="$T/sshd_config" "$G" env "$@"
	cd "$T" || return
}
# has LEVEL TOPIC TEXT: a finding line (joined with its fix line) containing TEXT
has() {
	awk -v lv="$1" -v tp="$2" '
		$1 == lv && $2 == tp { if (cur != "") print cur; cur = $0; next }
		cur != "" && /^ +fix: / { cur = cur " " $0; print cur; cur = ""; next }
		{ if (cur != "") print cur; cur = "" }
		END { if (cur != "") print cur }' "$T/out" | grep -Fq -- "$3"
}
check() {   # check NAME LEVEL TOPIC TEXT...: a line with every TEXT
	n=$1 lv=$2 tp=$3; shift 3
	for t in "$@"; do
		if ! has "$lv" "$tp" "$t"; then bad "$n: no '$lv $tp' line with '$t'"; sed 's/^/    /' "$T/out"; return; fi
	done
	ok
}
no_secret() {   # no_secret NAME FILE...: the marker nowhere
	if grep -l "$MARK" "$@" >/dev/null 2>&1; then bad "$1: a secret's value was printed"; grep -n "$MARK" "$@"; else ok; fi
}

JP=$(cat "$T/jup.port") TP=$(cat "$T/tb.port") SP=$(cat "$T/ssh.port") LP=$(cat "$T/lo.port")
secrun --security
[ "$rc" -eq 1 ] && ok || bad "security: exit $rc, expected 1 (fail findings): $(cat "$T/err")"
cp "$T/out" "$T/sec.txt"; cp "$T/err" "$T/sec.err"
check jupyter fail net "Jupyter (pid $PID_jup) listens on all interfaces (0.0.0.0 port $JP) without a token" \
	"--ip 127.0.0.1" "ssh -N -L $JP:127.0.0.1:$JP"
check tensorboard warn net "TensorBoard (pid $PID_tb) listens on all interfaces (0.0.0.0 port $TP)" "--host 127.0.0.1"
check sshd fail net "sshd (pid $PID_ssh) listens on all interfaces (0.0.0.0 port $SP) and allows password login" \
	"PasswordAuthentication no"
check loopback ok net "listens on 127.0.0.1 port $LP: loopback only"
[ "$HAVE6" = 0 ] || check v6 ok net "a model server (pid $PID_v6) listens on ::1 port $(cat "$T/v6.port"): loopback only"
check aws warn cred "$H/.aws/credentials holds AWS access keys in plain text (1)" "aws sts get-session-token" "gpurent release deletes it"
check gcloud warn cred "$H/.config/gcloud/application_default_credentials.json holds Google Cloud credentials"
check gcloud-mode fail cred "application_default_credentials.json is readable by group or others (mode 0644)" "chmod 600"
check hf warn cred "$H/.cache/huggingface/token holds a Hugging Face token" "huggingface-cli logout"
check netrc warn cred "$H/.netrc holds netrc passwords" "WANDB_API_KEY"
check git warn cred "$H/.git-credentials holds git credentials" "credential.helper"
check docker warn cred "$H/.docker/config.json holds Docker registry logins" "docker logout"
check dotenv warn cred "$W/.env holds .env assignments" "gpurent release deletes it"
check key-plain warn cred "$H/.ssh/id_plain is a private key without a passphrase" "ssh-keygen -p"
check key-locked ok cred "$H/.ssh/id_locked is a passphrase-protected private key"
check env-vars warn env-vars "named like secrets (values not shown): HF_PASSWORD MY_API_TOKEN" "unset"
check tmp warn tmp "$T/tmproot/run/shard.bin (1.2 GiB) of yours is left" "gpurent release deletes it"
check shm warn tmp "$T/shm/batch.npy (2.0 GiB)"
# nothing else: exactly the planted findings (no "none found" lines, no other listener)
NF=$((17 + HAVE6)) NOK=$((2 + HAVE6))
n=$(grep -Ec '^(info|ok|warn|fail) ' "$T/out")
[ "$n" -eq "$NF" ] && ok || { bad "security: $n findings, expected the $NF planted"; cat "$T/out"; }
grep -q "^verdict: fail (3 fail, 12 warn, $NOK ok)\$" "$T/out" && ok || bad "verdict line: $(tail -1 "$T/out")"
grep -q 'small.txt\|id_plain.pub\|known_hosts' "$T/out" && bad "a file that is not a secret or a leftover was named" || ok
no_secret text "$T/sec.txt" "$T/sec.err"

# --json: the same findings, codes and paths
secrun --security --json
cp "$T/out" "$T/sec.json"
if need_py "--security --json"; then
	python3 -c "
import json, sys
d = json.load(open('$T/sec.json'))
c = d['checks']
assert d['schema'] == 'gpurent.env/1' and d['verdict'] == 'fail', d['verdict']
assert len(c) == $NF, len(c)
codes = sorted(x['code'] for x in c)
want = sorted(['jupyter_open', 'listen_any', 'sshd_password'] + ['listen_loopback'] * (1 + $HAVE6) + ['cred_file'] * 7 +
              ['cred_readable', 'key_plain', 'key_encrypted', 'env_secret', 'tmp_large', 'tmp_large'])
assert codes == want, codes
j = [x for x in c if x['code'] == 'jupyter_open'][0]
assert j['port'] == $JP and j['pid'] == $PID_jup and j['process'] == 'jupyter' and j['address'] == '0.0.0.0'
assert all(x['fix'] for x in c if x['level'] in ('warn', 'fail'))
assert {x['path'] for x in c if x['code'] == 'tmp_large'} == {'$T/tmproot/run/shard.bin', '$T/shm/batch.npy'}
" && ok || bad "--security --json"
fi
no_secret json "$T/sec.json" "$T/err"

# plain `gpurent env` carries the same security lines after its own
secrun --no-python
cp "$T/out" "$T/env.txt"
for tp in net cred env-vars tmp; do
	a=$(grep -Ec "^(info|ok|warn|fail) +$tp " "$T/sec.txt"); b=$(grep -Ec "^(info|ok|warn|fail) +$tp " "$T/env.txt")
	[ "$a" = "$b" ] && ok || bad "env: $b '$tp' findings, --security has $a"
done
grep -q '^fail  cred ' "$T/env.txt" && grep -q '^verdict: fail' "$T/env.txt" && ok || bad "env: the security fails do not fail the verdict"
no_secret env "$T/env.txt" "$T/err"

# a clean box: each part says so in one ok line
mkdir -p "$T/clean/home" "$T/clean/work" "$T/clean/proc/net" "$T/clean/tmp"
head -1 /proc/net/tcp >"$T/clean/proc/net/tcp"
cleanrun() {
	cd "$T/clean/work" || return
	run env -i HOME="$T/clean/home" PATH=/usr/bin:/bin GPURENT_PROC_ROOT="$T/clean/proc" \
		GPURENT_TMP_ROOT="$T/clean/tmp" GPURENT_SHM_PATH="$T/clean/tmp" "$G" env --security
	cd "$T" || return
}
cleanrun
[ "$rc" -eq 0 ] && ok || bad "clean: exit $rc"
check clean-net ok net "nothing listens on all interfaces"
check clean-cred ok cred "no credentials in the usual places"
check clean-tmp ok tmp "no file of yours of 1 GiB or more in $T/clean/tmp"
[ "$(grep -Ec '^(info|ok|warn|fail) ' "$T/out")" -eq 3 ] && ok || { bad "clean: not 3 findings"; cat "$T/out"; }

# a /proc/net/tcp that does not parse: one warning naming file, line and field; the rest still runs
printf '  sl  local_address rem_address   st\n   0: 0100007F:ZZZZ 00000000:0000 0A 0 0 0 1000 0 123\n' >"$T/clean/proc/net/tcp"
cleanrun
grep -Fq "$T/clean/proc/net/tcp:2: local_address: expected 8 hex digits" "$T/err" && ok || bad "bad tcp line: $(cat "$T/err")"
check bad-tcp info net "cannot read /proc/net/tcp"
finish
