"""Is a KernelBench problem's host time per call its own, or the worker's allocator's (device machine)?

KernelBench's 71_conv_transposed_2D__asymmetric_input__square_kernel spends 10.3 ms of host time
in each forward call inside an evaluation worker, against 8.1 ms on the device (session 10): the
host sets its cost ("launch-bound"), so its speedups follow the host's speed. The worker runs
PyTorch on a pluggable allocator (build/*/lib/libheadroom_poison_alloc.so: cudaMallocAsync from a
kept pool, every allocation filled with the poison byte while poisoning is on), which PyTorch
calls for every allocation, workspaces included, with no caching of its own. If the host time is
the allocator's, every problem that allocates big workspaces is made launch-bound by the harness,
and a candidate that allocates nothing would look faster than it is.

In one fresh process per case this times CALLS forward calls of the problem's Model on its own
inputs (after WARM calls), each from an idle device: the host time from the call to its return and
the device time between CUDA events around it. Cases: PyTorch's caching allocator; the pluggable
allocator without poison (how the worker times); with poison byte 0xFF (how its trials run).

Usage: python3 bench/host_time_probe.py LIB PROBLEM.py [PROBLEM.py ...]   (env CALLS=20 WARM=3)
One JSON line per problem and case: host and device medians in ms.
"""
import json
import os
import subprocess
import sys

CASE = r"""
import ctypes, importlib.util, json, statistics, sys, time, torch
lib, path, case, calls, warm = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
if case != "caching":
    alloc = torch.cuda.memory.CUDAPluggableAllocator(lib, "headroom_alloc", "headroom_free")
    torch.cuda.memory.change_current_allocator(alloc)
    if case == "pluggable-poison":
        ctypes.CDLL(lib).headroom_set_poison(0xFF)
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.set_grad_enabled(False)
spec = importlib.util.spec_from_file_location("problem", path)
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
torch.manual_seed(0)
model = m.Model(*m.get_init_inputs()).cuda()
inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in m.get_inputs()]
host, device = [], []
for i in range(warm + calls):
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    t = time.perf_counter()
    out = model(*inputs)
    h = (time.perf_counter() - t) * 1e3
    b.record()
    torch.cuda.synchronize()
    del out
    if i >= warm:
        host.append(h)
        device.append(a.elapsed_time(b))
print(json.dumps({"case": case, "host_ms": round(statistics.median(host), 4),
                  "device_ms": round(statistics.median(device), 4)}), flush=True)
"""

if len(sys.argv) < 3:
    sys.exit(__doc__)
lib = sys.argv[1]
calls, warm = os.environ.get("CALLS", "20"), os.environ.get("WARM", "3")
for problem in sys.argv[2:]:
    for case in ("caching", "pluggable", "pluggable-poison"):
        r = subprocess.run([sys.executable, "-c", CASE, lib, problem, case, calls, warm], capture_output=True,
                           text=True, timeout=600)
        line = r.stdout.strip().splitlines()[-1] if r.returncode == 0 and r.stdout.strip() else None
        row = json.loads(line) if line else {"case": case, "error": r.stderr[-400:]}
        row["problem"] = os.path.basename(problem)
        print(json.dumps(row), flush=True)
