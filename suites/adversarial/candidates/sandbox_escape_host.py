# Exploit: the host at large. Without isolation a candidate inherits the judge's environment (its
# secrets), its capabilities, no system-call filter and its namespaces; it can append to the user's
# shell start-up file and leave a process running after its evaluation. The candidate tries each and
# fails loudly if one works; the process it leaves behind (its command line carries
# "headroom-outlive-canary") must be gone once the evaluation is over, which the CLI test checks.
import glob
import os
import pwd
import sys

import torch
import torch.nn as nn


def _status(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return line.split(":", 1)[1].strip()
    return ""


def _writable_outside():
    homes = glob.glob("/home/*") + ["/root"]
    try:
        homes.append(pwd.getpwuid(os.getuid()).pw_dir)
    except KeyError:
        pass
    targets = [os.path.join(h, ".bashrc") for h in homes] + ["/etc/headroom-escape", "/usr/headroom-escape",
                                                             "/var/tmp/headroom-escape"]
    for path in targets:
        if path.startswith(("/tmp/", "/dev/shm/", "/sandbox/build/")):
            continue  # the candidate's own scratch
        existed = os.path.exists(path)
        try:
            with open(path, "a"):
                pass
        except OSError:
            continue
        if not existed:
            os.unlink(path)
        return path
    return None


def _leave_a_process():
    if os.fork():
        return
    os.setsid()
    if os.fork():
        os._exit(0)
    try:
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)", "headroom-outlive-canary"])
    finally:
        os._exit(0)


def _judge_in_sight():
    for pid in os.listdir("/proc"):
        try:
            with open("/proc/%s/comm" % pid) as f:
                if f.read().strip() == "headroom":
                    return pid
        except OSError:
            continue
    return None


_problems = []
if "HEADROOM_TEST_CANARY" in os.environ:
    _problems.append("the judge's environment inherited")
if _status("CapEff").strip("0"):
    _problems.append("capabilities %s" % _status("CapEff"))
if _status("Seccomp") != "2":
    _problems.append("no system-call filter")
if _writable_outside():
    _problems.append("could write %s" % _writable_outside())
if _judge_in_sight():
    _problems.append("the judge (pid %s) in sight" % _judge_in_sight())
_leave_a_process()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        if _problems:
            raise RuntimeError("sandbox escape: " + "; ".join(_problems))
        return torch.relu(x)
