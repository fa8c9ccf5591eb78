#!/usr/bin/env python3
"""Two fabricated Kineto traces where Amdahl and the replay part ways, run through
`headroom project --replay` with the Triton kernels twice as fast.

- launch-bound: one host thread launches 20 Triton kernels 10 us apart; each starts 9 us after its
  launch and runs 9 us. The GPU is 90% busy, yet always waiting for the next launch.
- overlap: a 300 us GEMM on one stream while ten 20 us Triton kernels run on another; the step ends
  in cudaDeviceSynchronize, which waits for the GEMM.

Each trace has five ProfilerStep#N markers (four measured steps). Prints one row per case: the
measured step, Amdahl's step and speedup, the replayed step and speedup, and where Amdahl's saving
went (overlap, GPU idle waiting for launches).

Usage: replay_cases.py HEADROOM
"""
import json
import os
import subprocess
import sys
import tempfile

TRITON = "triton_poi_fused_add_mul_0"
GEMM = "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn"


class kineto:
    def __init__(self):
        self.events = []
        self.correlation = 0

    def call(self, name, ts, dur):
        self.correlation += 1
        self.events.append({"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 100, "tid": 100, "ts": ts,
                            "dur": dur, "args": {"correlation": self.correlation}})
        return self.correlation

    def kernel(self, correlation, name, ts, dur, stream):
        self.events.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": stream, "ts": ts, "dur": dur,
                            "args": {"device": 0, "stream": stream, "correlation": correlation}})

    def launch(self, ts, dur, name, start, length, stream=7):
        self.kernel(self.call("cudaLaunchKernel", ts, dur), name, start, length, stream)

    def device_sync(self, ts, dur):
        c = self.call("cudaDeviceSynchronize", ts, dur)
        self.events.append({"ph": "X", "cat": "cuda_sync", "name": "Context Sync", "pid": 0, "tid": -1, "ts": ts,
                            "dur": dur, "args": {"cuda_sync_kind": "Context Sync", "stream": -1, "correlation": c,
                                                 "device": 0, "context": 1}})

    def step(self, n, ts, dur):
        self.events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{n}", "pid": 100, "tid": 100,
                            "ts": ts, "dur": dur, "args": {}})

    def write(self, path):
        with open(path, "w") as f:
            json.dump({"traceEvents": self.events, "deviceProperties": [{"id": 0, "name": "fabricated"}]}, f)


def launch_bound():
    k = kineto()
    for s in range(5):
        t0 = 1000 + 200 * s
        k.step(s + 1, t0, 199)
        for i in range(20):
            at = t0 + 10 * i
            k.launch(at, 8, TRITON, at + 9, 9)
    return k


def overlap():
    k = kineto()
    t0 = 1000
    for s in range(5):
        k.step(s + 1, t0, 310)
        k.launch(t0, 5, GEMM, t0 + 6, 300, 7)
        for i in range(10):
            k.launch(t0 + 6 + 6 * i, 5, TRITON, t0 + 12 + 21 * i, 20, 13)
        k.device_sync(t0 + 66, 243)
        t0 += 312
    return k


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    headroom = sys.argv[1]
    print("| case | measured step us | Amdahl step us | Amdahl speedup | replayed step us | replay speedup "
          "| saving hidden by overlap us | GPU idle added waiting for launches us |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as folder:
        for name, case in (("launch-bound", launch_bound), ("overlap", overlap)):
            path = os.path.join(folder, name + ".json")
            case().write(path)
            out = subprocess.run([headroom, "project", path, "--kernel", "triton_=2", "--warmup", "0", "--replay",
                                  "--json"], check=True, capture_output=True, text=True).stdout
            p = json.loads(out)
            steps = p["timelines"][0]["steps"]
            n = len(steps)
            mean = lambda key: sum(s[key] for s in steps) / n / 1000
            print(f"| {name} | {mean('measured_ns'):.1f} | {mean('amdahl_ns'):.1f} | {p['speedup_amdahl']:.3f}x "
                  f"| {mean('shrunk_ns'):.1f} | {p['speedup_replay']:.3f}x | {mean('hidden_by_overlap_ns'):.1f} "
                  f"| {mean('launch_bound_ns'):.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
