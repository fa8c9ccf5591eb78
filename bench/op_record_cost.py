"""What the operator record behind torch_fallback costs a recorded call (docs/eval.md, "Verdicts").

The worker records the operators of each trial's first call, never of a timed call. This times one
forward call three ways, interleaved call by call so that a busy machine weighs on all three
alike: with no record; under a Python dispatch mode that notes every operator's name (the record the
worker used before, and still uses where libheadroom_op_record.so was not built); and with the C++
record armed before the call and disarmed after it, its end-of-call checks included (one of them
starts a thread). The calls with no record run right after a C++ record was disarmed: what a timed
call sees. "empty" is a call that does nothing: the record's own fixed cost.

Usage: python3 bench/op_record_cost.py LIB [--device cuda] [--calls N]
  LIB: build/<preset>/lib/libheadroom_op_record.so, built against this Python's torch.
"""
import argparse
import ctypes
import statistics
import time

import torch
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode


class PythonRecord(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.add(func.__name__.split(".")[0])
        return func(*args, **(kwargs or {}))


def cases(device):
    x = torch.rand(256, 4096, device=device)
    s = torch.rand(32, 32768, device=device)
    a = torch.randn(256, 256, device=device)
    b = torch.randn(256, 256, device=device)
    h = torch.randn(64, 64, device=device)
    ws = [torch.randn(64, 64, device=device) for _ in range(16)]

    def mlp():  # 16 small layers: the per-operator cost shows
        y = h
        for w in ws:
            y = F.relu(y @ w)
        return y

    return {
        "empty": lambda: None,
        "relu 256x4096": lambda: torch.relu(x),
        "softmax 32x32768": lambda: torch.softmax(s, dim=1),
        "matmul 256^3": lambda: torch.matmul(a, b),
        "16-layer MLP 64x64": mlp,
    }


def interleaved_medians_ms(calls, n, sync):
    """Each of `calls` n times, one of each in turn; the median of each, in ms."""
    times = [[] for _ in calls]
    for _ in range(n):
        for i, call in enumerate(calls):
            t = time.perf_counter()
            call()
            sync()
            times[i].append(time.perf_counter() - t)
    return [1e3 * statistics.median(t) for t in times]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("lib")
    p.add_argument("--device", default="cpu")
    p.add_argument("--calls", type=int, default=200)
    args = p.parse_args()
    torch.set_grad_enabled(False)
    lib = ctypes.CDLL(args.lib)
    lib.headroom_op_record_names.restype = ctypes.c_char_p
    sync = (lambda: torch.cuda.synchronize()) if args.device.startswith("cuda") else (lambda: None)

    def python_record(f):
        def run():
            with PythonRecord():
                f()
        return run

    def cpp_record(f):
        def run():
            lib.headroom_op_record_arm()
            f()
            if lib.headroom_op_record_disarm() != 0:
                raise SystemExit("the C++ record's checks failed")
        return run

    print("torch %s, %s, median of %d calls each (ms), interleaved" % (torch.__version__, args.device, args.calls))
    print("%-20s %9s %9s %9s" % ("call", "none", "python", "c++"))
    for name, f in cases(args.device).items():
        for _ in range(20):
            f()
        sync()
        none, py, cpp = interleaved_medians_ms([f, python_record(f), cpp_record(f)], args.calls, sync)
        print("%-20s %9.4f %9.4f %9.4f" % (name, none, py, cpp))


if __name__ == "__main__":
    main()
