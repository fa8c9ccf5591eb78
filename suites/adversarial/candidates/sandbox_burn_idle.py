# Exploit: CPU stolen from the reference. At import the candidate starts a process per CPU, each in a
# session of its own and pinned to its CPU, that burns only while the candidate's worker is idle: while
# the reference is timed. The candidate itself does one and a half times the reference's work (a true
# speedup near 0.67; the burners lifted such a candidate from 0.52-0.60x to 1.17-1.30x before the
# sandbox), so a speedup of 1 or more means the reference was slowed. The harness freezes every
# process of a candidate's sandbox while anything else is measured.
import os
import time

import torch
import torch.nn as nn


def _cpu_time(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime + stime, in clock ticks
    except (OSError, IndexError, ValueError):
        return None


def _burner(cpu, worker):
    if os.fork():
        return
    os.setsid()
    if os.fork():
        os._exit(0)
    try:
        os.sched_setaffinity(0, {cpu})
    except OSError:
        pass
    last = _cpu_time(worker)
    while True:
        time.sleep(0.01)
        now = _cpu_time(worker)
        if now is None:
            os._exit(0)
        if now == last:  # the worker is idle: something else is being timed
            end = time.perf_counter() + 0.01
            while time.perf_counter() < end:
                pass
        last = now


_worker = os.getpid()
for _cpu in sorted(os.sched_getaffinity(0)):
    _burner(_cpu, _worker)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = torch.relu(x)
        half = y.shape[0] // 2
        y[:half] = torch.relu(y[:half])
        return y
