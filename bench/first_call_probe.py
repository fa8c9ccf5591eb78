"""Where the first forward call's seconds go in an evaluation worker (device machine).

On the H200, KernelBench's 6 GiB elementwise problems spend 4.3-6.6 s in the first forward call
of each worker (host side: the Python call returns late; the device work is 3 ms), later calls 0.4 ms.
This times, in one fresh process per case, the first and second sigmoid of a 4096 x 393216 float32
tensor, under PyTorch's caching allocator and under the worker's poisoning allocator (build/*/lib/libheadroom_poison_alloc.so, stream-ordered cudaMallocAsync).

Session 6 found both allocators fast here (10-20 ms). Session 7's worker logs showed the seconds
only under the worker's operator record (a TorchDispatchMode): the "mode" cases time the first and
second sigmoid under such a mode, "mode-warm" after one small operation under it first (what the
worker now does at start-up).

Usage: python3 bench/first_call_probe.py [LIB]   (one line per case)
"""
import json
import subprocess
import sys
import time

CASE = r"""
import json, sys, time, torch
lib, case = sys.argv[1], sys.argv[2]
if case.startswith("pluggable"):
    alloc = torch.cuda.memory.CUDAPluggableAllocator(lib, "headroom_alloc", "headroom_free")
    torch.cuda.memory.change_current_allocator(alloc)
torch.cuda.init()
torch.empty(1, device="cuda")
torch.cuda.synchronize()
out = {"case": case}
def timed(name, f):
    t = time.perf_counter(); r = f(); torch.cuda.synchronize(); out[name] = round(time.perf_counter() - t, 4); return r
import contextlib
mode = contextlib.nullcontext
if "mode" in case:
    from torch.utils._python_dispatch import TorchDispatchMode
    class Record(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))
    mode = Record
    if case.endswith("warm"):
        def warm():
            with mode():
                torch.ones(2, device="cuda").add(1)
        timed("warm_up_small", warm)
x = timed("rand_6GiB", lambda: torch.rand(4096, 393216, device="cuda"))
def under_mode(f):
    with mode():
        return f()
y = timed("sigmoid_first", lambda: under_mode(lambda: torch.sigmoid(x)))
del y
y = timed("sigmoid_second", lambda: under_mode(lambda: torch.sigmoid(x)))
del y
s = torch.rand(1024, device="cuda")
timed("tanh_small_first", lambda: torch.tanh(s))
print(json.dumps(out), flush=True)
"""

lib = sys.argv[1] if len(sys.argv) > 1 else "build/device/lib/libheadroom_poison_alloc.so"
for case in ("caching", "pluggable", "pluggable-mode", "pluggable-mode-warm"):
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", CASE, lib, case], capture_output=True, text=True, timeout=120)
    line = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else json.dumps({"case": case, "error": r.stderr[-400:]})
    print(line, f"(process {time.perf_counter() - t:.1f} s)", flush=True)
