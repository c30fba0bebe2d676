# tests/cli/lib/slurmcluster.sh - a private one-node Slurm cluster for a
# test run (sourced by tests/cli/slurm.sh; docs/slurm.md "The test cluster").
# Everything lives under the directory given to slurm_cluster_start: its own
# munge key and socket, a slurm.conf with free ports chosen now, state,
# spool, pid files and logs; the daemons are stopped by the pids this run
# started (never by name), so that two runs can go side by side.
#
#   slurm_cluster_start DIR   0 when up (SLURM_CONF exported), else 1 with
#                             the reason in $SLURM_WHY
#   slurm_cluster_stop        stop what slurm_cluster_start started
SLURM_PIDS=""
SLURM_WHY=""

# A TCP port nobody listens on now (the kernel's pick; the daemons bind it
# a moment later, a race we accept with a retry of the start).
slurm_free_port() {
	if command -v python3 >/dev/null 2>&1; then
		python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
		return
	fi
	while :; do
		p=$(( (($$ + $(date +%N | sed 's/^0*//;s/^$/0/')) % 20000) + 30000 ))
		hex=$(printf '%04X' "$p")
		grep -qi ":$hex " /proc/net/tcp /proc/net/tcp6 2>/dev/null || { echo "$p"; return; }
	done
}

# wait_for SECONDS CMD...: poll CMD every 0.2 s until it succeeds or time is up.
slurm_wait() {
	_until=$(( $(date +%s) + $1 )); shift
	while ! "$@" >/dev/null 2>&1; do
		[ "$(date +%s)" -ge "$_until" ] && return 1
		sleep 0.2
	done
}

slurm_cluster_stop() {
	for _p in $SLURM_PIDS; do
		kill "$_p" 2>/dev/null
	done
	for _p in $SLURM_PIDS; do
		_n=0
		while kill -0 "$_p" 2>/dev/null && [ $_n -lt 100 ]; do sleep 0.1; _n=$((_n + 1)); done
		kill -9 "$_p" 2>/dev/null
	done
	SLURM_PIDS=""
}

# The pid a daemon wrote to its pid file (the daemons fork themselves).
slurm_pidfile() {
	[ -s "$1" ] && cat "$1"
}

slurm_cluster_start() {
	_sd=$1
	for b in munged slurmctld slurmd sbatch scontrol squeue; do
		command -v "$b" >/dev/null 2>&1 || { SLURM_WHY="$b is not installed (tools/deps.sh installs slurm-wlm and munge as root)"; return 1; }
	done
	[ "$(id -u)" = 0 ] || { SLURM_WHY="slurmd must run as root to start jobs"; return 1; }
	mkdir -p "$_sd/munge" "$_sd/state" "$_sd/spool" "$_sd/log" && chmod 700 "$_sd" "$_sd/munge" || return 1
	# munge: its own key, socket, pid and seed files
	dd if=/dev/urandom of="$_sd/munge/munge.key" bs=1024 count=1 2>/dev/null && chmod 400 "$_sd/munge/munge.key"
	munged --force --socket="$_sd/munge/munge.sock" --key-file="$_sd/munge/munge.key" \
		--pid-file="$_sd/munge/munged.pid" --log-file="$_sd/log/munged.log" \
		--seed-file="$_sd/munge/munged.seed" >"$_sd/log/munged.out" 2>&1 ||
		{ SLURM_WHY="munged did not start: $(tail -1 "$_sd/log/munged.out")"; return 1; }
	slurm_wait 20 test -s "$_sd/munge/munged.pid" || { SLURM_WHY="munged wrote no pid file"; return 1; }
	SLURM_PIDS="$(cat "$_sd/munge/munged.pid")"
	cport=$(slurm_free_port) dport=$(slurm_free_port)
	while [ "$dport" = "$cport" ]; do dport=$(slurm_free_port); done
	host=$(hostname -s 2>/dev/null || hostname)
	SLURM_CLUSTER_NAME="gr$$"
	# gres.conf: two GPUs. Slurm 22.05's gres/gpu drops a GPU without File=
	# ("Removing file-less GPU gpu:(null) from final GRES list": the node then
	# registers 0 GPUs and is drained), and refuses a File= that is not a
	# character or block device; links to /dev/null and /dev/zero (two
	# devices, so two minors) in the temp dir stand in for the cards.
	mkdir -p "$_sd/dev" && ln -sf /dev/null "$_sd/dev/gpu0" && ln -sf /dev/zero "$_sd/dev/gpu1"
	printf 'Name=gpu File=%s/dev/gpu[0-1]\n' "$_sd" >"$_sd/gres.conf"
	# The partition's MaxTime is 2 minutes: the requeue test's job asks for 1.
	# config_overrides: the node is what slurm.conf says (2 CPUs, 1000 MB)
	# whatever the machine has, so the test asks for the same on any box.
	cat >"$_sd/slurm.conf" <<EOF
ClusterName=$SLURM_CLUSTER_NAME
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$cport
SlurmdPort=$dport
AuthType=auth/munge
AuthInfo=socket=$_sd/munge/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$_sd/state
SlurmdSpoolDir=$_sd/spool
SlurmctldPidFile=$_sd/slurmctld.pid
SlurmdPidFile=$_sd/slurmd.pid
SlurmctldLogFile=$_sd/log/slurmctld.log
SlurmdLogFile=$_sd/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
KillWait=15
MinJobAge=600
MessageTimeout=20
GresTypes=gpu
SlurmdParameters=config_overrides
NodeName=gn1 NodeHostname=$host NodeAddr=127.0.0.1 CPUs=2 RealMemory=1000 Gres=gpu:2 State=UNKNOWN
PartitionName=gpu Nodes=gn1 Default=YES MaxTime=2 State=UP
EOF
	export SLURM_CONF="$_sd/slurm.conf"
	slurmctld -f "$_sd/slurm.conf" -i >"$_sd/log/slurmctld.out" 2>&1 ||
		{ SLURM_WHY="slurmctld did not start: $(tail -1 "$_sd/log/slurmctld.out")"; return 1; }
	slurm_wait 30 test -s "$_sd/slurmctld.pid" || { SLURM_WHY="slurmctld wrote no pid file: $(tail -2 "$_sd/log/slurmctld.log")"; return 1; }
	SLURM_PIDS="$(cat "$_sd/slurmctld.pid") $SLURM_PIDS"
	slurmd -f "$_sd/slurm.conf" -N gn1 >"$_sd/log/slurmd.out" 2>&1 ||
		{ SLURM_WHY="slurmd did not start: $(tail -1 "$_sd/log/slurmd.out")"; return 1; }
	slurm_wait 30 test -s "$_sd/slurmd.pid" || { SLURM_WHY="slurmd wrote no pid file: $(tail -2 "$_sd/log/slurmd.log")"; return 1; }
	SLURM_PIDS="$(cat "$_sd/slurmd.pid") $SLURM_PIDS"
	slurm_node_idle() { scontrol show node gn1 2>/dev/null | grep -q 'State=IDLE'; }
	slurm_wait 60 slurm_node_idle ||
		{ SLURM_WHY="the node did not come up: $(scontrol show node gn1 2>&1 | grep -o 'State=[^ ]*\|Reason=.*' | tr '\n' ' ') $(tail -2 "$_sd/log/slurmd.log")"; return 1; }
	return 0
}
