"""Where does moving gigabytes through host memory go on this machine? (issue 4: KernelBench's
multi-GiB tensors spend most of an evaluation in host copies.) Times, for SIZE_GIB of host memory:
filling fresh memory twice (the second time from pages the process already returned: if a VM's
first touch of guest memory is the cost, the second round is much faster), with 1 and 16 threads;
and a device-to-host copy into fresh and into reused pageable memory, and into pinned memory.

    python3 bench/host_memory_probe.py [SIZE_GIB]
"""
import os
import sys
import time

import torch

size = int(float(sys.argv[1] if len(sys.argv) > 1 else 8) * (1 << 30))


def timed(what, f):
    t0 = time.perf_counter()
    f()
    torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    print(f"{what:<44} {dt:7.3f} s  {size / dt / 1e9:6.2f} GB/s", flush=True)


for name in ("enabled", "defrag"):
    try:
        print(f"transparent_hugepage/{name}:", open(f"/sys/kernel/mm/transparent_hugepage/{name}").read().strip())
    except OSError:
        pass
print(f"{size / (1 << 30):.1f} GiB, {os.cpu_count()} CPUs")
for threads in (1, 16):
    torch.set_num_threads(threads)
    for r in (1, 2, 3):
        x = torch.empty(size, dtype=torch.uint8)
        timed(f"fill fresh host memory, {threads} thread(s), round {r}", lambda: x.fill_(1))
        timed(f"fill it again (pages mapped), {threads} thread(s)", lambda: x.fill_(2))
        del x
torch.set_num_threads(16)
g = torch.empty(size, dtype=torch.uint8, device="cuda").fill_(3)
for r in (1, 2):
    h = torch.empty(size, dtype=torch.uint8)
    timed(f"device to fresh pageable memory, round {r}", lambda: h.copy_(g))
    timed("device to the same pageable memory again", lambda: h.copy_(g))
    timed("pageable host to device", lambda: g.copy_(h))
    del h
p = torch.empty(size, dtype=torch.uint8, pin_memory=True)
timed("device to pinned memory", lambda: p.copy_(g))
timed("pinned memory to device", lambda: g.copy_(p))

# Transparent huge pages asked for with madvise (what src/eval/channel.cpp's prefault does), one
# thread: anonymous memory, populated by a fill.
import mmap
torch.set_num_threads(1)
for r in (1, 2, 3):
    m = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    m.madvise(mmap.MADV_HUGEPAGE)
    x = torch.frombuffer(m, dtype=torch.uint8)
    timed(f"fill fresh MADV_HUGEPAGE memory, 1 thread, round {r}", lambda: x.fill_(1))
    timed("fill it again", lambda: x.fill_(2))
    del x
    m.close()
try:
    print("thp_fault_alloc / fallback:", [l.strip() for l in open("/proc/vmstat") if l.startswith("thp_fault")])
except OSError:
    pass
