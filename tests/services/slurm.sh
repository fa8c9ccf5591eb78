#!/usr/bin/env bash
# A throwaway one-node Slurm cluster for the tests (Debian's slurm-wlm, with munge): munged,
# slurmctld and slurmd started from a configuration in DIR, talking over loopback at free ports,
# with no cgroups and no accounting. The node claims 8 CPUs whatever the machine has, so an array
# of 8 tasks runs at once on a small test machine. Writes DIR/slurm.conf; the client commands need
# SLURM_CONF=DIR/slurm.conf. Runs as root (slurmd starts jobs as their submitter).
#   slurm.sh start DIR     slurm.sh stop DIR
set -euo pipefail
cmd=${1:?start or stop}
dir=${2:?a folder}
for tool in munged mungekey slurmctld slurmd sbatch; do
  command -v "$tool" >/dev/null || [[ -x /usr/sbin/$tool ]] ||
    { echo "no $tool here (scripts/install-deps installs Debian's slurm-wlm and munge)" >&2; exit 1; }
done
export PATH=$PATH:/usr/sbin
stop() {
  for d in slurmd slurmctld munged; do
    if [[ -f $dir/$d.pid ]]; then kill "$(cat "$dir/$d.pid")" 2>/dev/null || true; fi
  done
  for d in slurmd slurmctld munged; do
    for _ in $(seq 1 50); do
      [[ -f $dir/$d.pid ]] && kill -0 "$(cat "$dir/$d.pid")" 2>/dev/null || break
      sleep 0.1
    done
  done
}
case $cmd in
  start)
    [[ $(id -u) -eq 0 ]] || { echo "the test cluster runs as root" >&2; exit 1; }
    [[ -d $dir ]] && stop
    rm -rf "$dir"
    mkdir -p "$dir/state" "$dir/spool"
    chmod 700 "$dir"
    mungekey --create --keyfile="$dir/munge.key" 2>/dev/null || dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
    chmod 600 "$dir/munge.key"
    munged --force --key-file="$dir/munge.key" --socket="$dir/munge.socket" --pid-file="$dir/munged.pid" \
      --log-file="$dir/munged.log" --seed-file="$dir/munged.seed"
    ports=($(python3 -c 'import socket
ss = [socket.socket() for _ in range(2)]
for s in ss: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in ss])'))
    cat >"$dir/slurm.conf" <<CONF
ClusterName=headroomtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=${ports[0]}
SlurmdPort=${ports[1]}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
MinJobAge=600
KillWait=5
NodeName=headroomnode NodeHostname=$(hostname) NodeAddr=127.0.0.1 CPUs=8 RealMemory=4096 State=UNKNOWN
PartitionName=test Nodes=headroomnode Default=YES MaxTime=INFINITE State=UP
CONF
    slurmctld -f "$dir/slurm.conf" -i
    slurmd -f "$dir/slurm.conf" -N headroomnode
    export SLURM_CONF=$dir/slurm.conf
    for _ in $(seq 1 100); do
      state=$(sinfo -h -N -o %t 2>/dev/null || true)
      [[ $state == idle* ]] && { echo "Slurm: node headroomnode $state ($dir)"; exit 0; }
      sleep 0.2
    done
    echo "the test cluster did not come up (node: ${state:-none})" >&2
    tail -20 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
    exit 1
    ;;
  stop)
    stop
    rm -rf "$dir"
    ;;
  *)
    echo "usage: $0 start|stop DIR" >&2
    exit 2
    ;;
esac
