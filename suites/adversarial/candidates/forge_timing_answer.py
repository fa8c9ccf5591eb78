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

# The nonce as the worker formats its questions to the parent (the one asked just before this call
# lies in a freed buffer whose first bytes the allocator has overwritten, so the key is matched
# after it), and as its JSON parser keeps the strings of the request that carried it (a 4-byte
# length before each: "nonce", then 32 characters).
_pattern = re.compile(rb'([0-9a-f]{32})","ask":"|nonce\x00 \x00\x00\x00([0-9a-f]{32})\x00')


def _nonce():
    """The nonce from the worker's own memory, read in place (the process's memory is its own; its
    /proc/self/mem is closed to it, the worker being non-dumpable): every answer the worker formats
    carries it, so copies lie in its heap, in the anonymous regions its allocator maps and in the
    shared region its answers are written through. The heap first, then the rest, smallest first;
    the nonce seen most often wins."""
    with open("/proc/self/maps") as maps:
        regions = [line.split() for line in maps]
    readable = []
    for fields in regions:
        if not fields[1].startswith("rw"):
            continue
        name = fields[5] if len(fields) >= 6 else ""
        if ".so" in name or name.startswith(("/usr/", "/lib", "[v")):  # libraries, vvar, vsyscall
            continue
        start, end = (int(x, 16) for x in fields[0].split("-"))
        readable.append((0 if name.startswith("[heap") else 1, end - start, start))
    seen = {}
    for _, size, start in sorted(readable):
        for found in _pattern.finditer(ctypes.string_at(start, size)):
            nonce = found.group(1) or found.group(2)
            seen[nonce] = seen.get(nonce, 0) + 1
        if seen:
            return max(seen, key=seen.get).decode()
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
        self._nonce = None
        self._looked = 0
        self._forged = False

    def forward(self, x):
        self._calls += 1
        # Looked for on every call until found (the copies come and go as buffers are reused), at
        # most 20 times: a scan costs a fraction of a second.
        if self._nonce is None and self._looked < 20:
            self._looked += 1
            self._nonce = _nonce()
        if self._calls > 10 and self._nonce and not self._forged:  # past the correctness trials: timed
            self._forged = True
            _forge(self._nonce)
        return torch.relu(x)
