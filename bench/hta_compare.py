#!/usr/bin/env python3
"""Holistic Trace Analysis's critical-path length beside headroom's replay, on HTA's own fixtures.

For each region HTA's tests analyse (an annotation instance, or the whole trace), four lengths:
the region as measured (the annotation's span on its host thread, extended to the end of the device
work launched inside it, which HTA's graph also holds), HTA's critical-path length, and headroom's
replay of the same region with nothing shrunk; then the same with every
addressable kernel (headroom's classification) twice as fast: HTA with those kernels' edge weights
halved and the path recomputed, headroom's replay with them shrunk, and Amdahl (the region minus
half the union of those kernels' time in it).

HTA is not a dependency of headroom: this needs HTA's source (a checkout of
facebookresearch/HolisticTraceAnalysis, given as HTA_DIR) and its Python packages (pandas, numpy,
networkx, plotly; on Debian: python3-pandas python3-networkx python3-plotly python3-yaml).
Set CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE=1 to run HTA with its zero-weight launch edges.

Usage: hta_compare.py HEADROOM HTA_DIR FIXTURES_DIR
"""
import gzip
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile

# (fixture file, annotation, instances): the regions HTA's tests analyse.
REGIONS = [
    ("critical_path_alexnet_benchmark_result_2869224_1695835535_trace.json.gz",
     "[param|pytorch.model.alex_net|0|0|0|measure|forward]", [0, 1]),
    ("critical_path_simple_add_benchmark_result_493459_1694039959_trace.json.gz",
     "[param|pytorch.model.alex_net|0|0|0|measure|forward]", [0, 1]),
    ("critical_path_cuda_event_sync_event_sync_trace.json.gz", "ProfilerStep", [0]),
    ("critical_path_cuda_event_sync_multi_stream_event_sync_trace.json.gz", "", [None]),
    ("ns_resolution_trace_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", "ProfilerStep", [0, 1, 2, 3, 4]),
]

DEVICE_CATS = {"kernel", "gpu_memcpy", "gpu_memset"}
HOST_CATS = {"cuda_runtime", "cuda_driver"}


def export(headroom, trace, out, speedup):
    """headroom's replayed timeline (addressable kernels `speedup` times faster) beside the measured one."""
    subprocess.run([headroom, "project", trace, "--speedup", speedup, "--replay", "--replay-trace", out],
                   check=True, capture_output=True)
    with open(out) as f:
        events = json.load(f)["traceEvents"]
    side = {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            side[e["pid"]] = "measured" if e["args"]["name"].startswith("measured: ") else "replayed"
    timelines = {"measured": [], "replayed": []}
    for e in events:
        if e.get("ph") == "X" and e["pid"] in side:
            timelines[side[e["pid"]]].append(e)
    return timelines


def region_span(events, annotation, instance):
    """(start, end, device work) of a region, in us: the annotation's span on its host thread, extended
    to the end of the device work launched by calls inside it; the whole trace without annotation."""
    if annotation:
        marks = sorted((e for e in events if e.get("cat") == "user_annotation" and e["name"].startswith(annotation)),
                       key=lambda e: e["ts"])
        lo, hi = marks[instance]["ts"], marks[instance]["ts"] + marks[instance]["dur"]
    else:
        lo = min(e["ts"] for e in events)
        hi = max(e["ts"] + e["dur"] for e in events)
    calls = [e for e in events if e.get("cat") in HOST_CATS and lo <= e["ts"] <= hi]
    launched = {e["args"]["correlation"] for e in calls}
    work = [e for e in events if e.get("cat") in DEVICE_CATS and e["args"].get("correlation") in launched]
    return lo, max([hi] + [e["ts"] + e["dur"] for e in work]), work


def union_length(spans):
    total, end = 0.0, float("-inf")
    for s, e in sorted(spans):
        if e <= end:
            continue
        total += e - max(s, end)
        end = e
    return total


def hta_lengths(hta_dir, trace, annotation, instance, shrunk_correlations):
    """HTA's critical-path length as is, and with the given kernels' edges halved (us)."""
    sys.path.insert(0, hta_dir)
    logging.disable(logging.WARNING)
    import networkx as nx
    from hta.analyzers.critical_path_analysis import CPEdgeType
    from hta.trace_analysis import TraceAnalysis

    folder = tempfile.mkdtemp()
    try:
        shutil.copy(trace, os.path.join(folder, "trace.json.gz"))
        analysis = TraceAnalysis(trace_dir=folder)
        graph, ok = analysis.critical_path_analysis(rank=0, annotation=annotation, instance_id=instance)
        if not ok:
            return None, None
        df = analysis.t.get_trace(0)
        before = nx.dag_longest_path_length(graph, weight="weight")
        for u, v, data in graph.edges(data=True):
            edge = data["object"]
            if edge.type != CPEdgeType.OPERATOR_KERNEL:
                continue
            row = df.loc[graph.node_list[u].ev_idx]
            if row["stream"] >= 0 and int(row["correlation"]) in shrunk_correlations:
                data["weight"] = data["weight"] / 2
        after = nx.dag_longest_path_length(graph, weight="weight")
        return before, after
    finally:
        shutil.rmtree(folder)


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    headroom, hta_dir, fixtures = sys.argv[1:]
    print("| trace | region | measured us | HTA CP | replay | addressable x2: HTA CP | replay | Amdahl |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    out = tempfile.mktemp(suffix=".json")
    for name, annotation, instances in REGIONS:
        trace = os.path.join(fixtures, "kineto-hta", name)
        if not os.path.exists(trace):
            continue
        timelines = export(headroom, trace, out, "2")
        unshrunk = export(headroom, trace, out, "1")["replayed"]
        for instance in instances:
            m0, m1, work = region_span(timelines["measured"], annotation, instance)
            u0, u1, _ = region_span(unshrunk, annotation, instance)
            r0, r1, _ = region_span(timelines["replayed"], annotation, instance)
            shrunk = [e for e in work if e["args"].get("class", "unchanged") != "unchanged"]
            correlations = {e["args"]["correlation"] for e in shrunk}
            saving = union_length([(e["ts"], e["ts"] + e["dur"]) for e in shrunk]) / 2
            try:
                before, after = hta_lengths(hta_dir, trace, annotation, instance, correlations)
            except Exception as error:  # HTA's own failure is a row of the table, not the end of it
                before = after = None
                print(f"HTA failed on {name} {annotation} {instance}: {type(error).__name__} {error}", file=sys.stderr)
            measured = m1 - m0
            region = annotation or "whole trace"
            region = f"{region} #{instance}" if instance is not None else region
            hta0 = f"{before:.0f}" if before is not None else "failed"
            hta1 = f"{after:.0f}" if after is not None else "failed"
            print(f"| {name.removesuffix('.json.gz')} | {region} | {measured:.0f} | {hta0} | {u1 - u0:.0f} | {hta1} "
                  f"| {r1 - r0:.0f} | {measured - saving:.0f} |")
    if os.path.exists(out):
        os.remove(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
