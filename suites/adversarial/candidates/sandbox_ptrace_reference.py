# Exploit: the reference worker traced. With ptrace a candidate can read the reference's outputs or
# slow its timed calls. The candidate looks for any other headroom-worker in sight and attaches to
# it; it fails loudly if the attach succeeds. The sandbox hides every process but its own and its
# system-call filter refuses ptrace.
import ctypes
import os

import torch
import torch.nn as nn

_PTRACE_ATTACH, _PTRACE_DETACH = 16, 17


def _attached():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.restype = ctypes.c_long
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                if b"headroom-worker" not in f.read():
                    continue
        except OSError:
            continue
        if libc.ptrace(_PTRACE_ATTACH, int(pid), None, None) == 0:
            os.waitpid(int(pid), 0x40000000)  # __WALL
            libc.ptrace(_PTRACE_DETACH, int(pid), None, None)
            return pid
    return None


_traced = _attached()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        if _traced:
            raise RuntimeError("sandbox escape: attached to worker %s with ptrace" % _traced)
        return torch.relu(x)
