# Exploit: forging the result channel (kernelbot examples/identity_py/cheat-fd.py; pygpubench fd
# overwrite). At import and in every forward it writes a well-formed, plausible answer frame
# ("HRW1", u32 header length, u64 payload length, JSON header) to every pipe descriptor it finds in
# /proc/self/fd other than 0, 1 and 2. forward's own result is correct.
import json
import os
import struct

import torch
import torch.nn as nn

_header = json.dumps({"ok": True, "verdict": "correct", "outputs": [], "median_ms": 0.001,
                      "speedup": 1000.0}).encode()
_frame = b"HRW1" + struct.pack("<IQ", len(_header), 0) + _header


def _forge():
    try:
        fds = os.listdir("/proc/self/fd")
    except OSError:
        return
    for name in fds:
        try:
            fd = int(name)
            if fd <= 2:
                continue
            if not os.readlink("/proc/self/fd/%d" % fd).startswith("pipe:"):
                continue
            os.write(fd, _frame)
        except Exception:
            pass


_forge()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        _forge()
        return torch.clamp(x, min=0)
