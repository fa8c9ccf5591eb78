"""Does a small memory-bound problem's time depend on where its tensors sit (device machine)?

KernelBench's 12_Matmul_with_diagonal_matrices_ (A.unsqueeze(1) * B, 4096 x 4096 float32: 64 MiB in,
64 MiB out, 0.058 ms) evaluated against itself in five fresh processes on one H200 gave speedups
0.9686-1.2453 (session 7): one eager worker measured 0.0722 ms against 0.0573-0.0577 in the others,
each with a spread under 0.5% inside its process. If the time depends on the physical placement
of the inputs and the output, a process keeps one placement for all its samples and the spread
between processes is the placement's.

This times the forward the way the worker does (L2 flushed by a 120 MiB memset before each sample,
CUDA events), in PROCESSES fresh processes, and in each one under PLACEMENTS placements: a spacer of
random size (0-1 GiB) allocated before inputs and output, all through PyTorch's caching allocator.
One JSON line per process: its placements' medians. Compare the spread between placements inside a
process with the spread between processes' first placements.

Usage: python3 bench/placement_probe.py [PROCESSES=6] [PLACEMENTS=6] [SAMPLES=100]
"""
import json
import statistics
import subprocess
import sys

CASE = r"""
import json, random, statistics, sys, torch
placements, samples, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
random.seed(seed)
torch.cuda.init()
flush = torch.empty(120 << 20, dtype=torch.uint8, device="cuda")
medians = []
kept = []
for p in range(placements):
    spacer = torch.empty(random.randrange(0, 1 << 30, 2 << 20), dtype=torch.uint8, device="cuda") if p else None
    A = torch.rand(4096, device="cuda")
    B = torch.rand(4096, 4096, device="cuda")
    out = torch.empty(4096, 4096, device="cuda")
    times = []
    for s in range(samples + 5):
        flush.fill_(s & 0xFF)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        torch.mul(A.unsqueeze(1), B, out=out)
        end.record()
        end.synchronize()
        if s >= 5:
            times.append(start.elapsed_time(end))
    medians.append(round(statistics.median(times), 5))
    kept.append((spacer, A, B, out))  # the next placement's tensors land elsewhere
print(json.dumps({"medians_ms": medians}), flush=True)
"""

processes = int(sys.argv[1]) if len(sys.argv) > 1 else 6
placements = int(sys.argv[2]) if len(sys.argv) > 2 else 6
samples = int(sys.argv[3]) if len(sys.argv) > 3 else 100
firsts, inside = [], []
for k in range(processes):
    r = subprocess.run([sys.executable, "-c", CASE, str(placements), str(samples), str(k)], capture_output=True,
                       text=True, timeout=300)
    if r.returncode != 0:
        print(json.dumps({"process": k, "error": r.stderr[-400:]}), flush=True)
        continue
    medians = json.loads(r.stdout.strip().splitlines()[-1])["medians_ms"]
    print(json.dumps({"process": k, "medians_ms": medians}), flush=True)
    firsts.append(medians[0])
    inside.append((max(medians) - min(medians)) / statistics.median(medians))
if firsts:
    between = (max(firsts) - min(firsts)) / statistics.median(firsts)
    print(f"between processes (first placement): {100 * between:.1f}%; inside a process, between placements: "
          f"median {100 * statistics.median(inside):.1f}%, largest {100 * max(inside):.1f}%")
