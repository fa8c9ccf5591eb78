#!/usr/bin/env bash
# Live test of `headroom profile` on a GPU: $1 headroom, $2 profile_target, $3 normal|signal|multi|
# capture|capture-stop (multi: two processes started by one that makes no CUDA call, as torchrun
# starts ranks, one store; capture: --capture-range cudaProfilerApi; capture-stop: the same with
# --capture-range-end stop, CUPTI detached while the program still runs).
# Exits 77 (skipped) when no GPU is usable. Prints every check, so a failure says what was found.
set -uo pipefail
bin=$1 target=$2 mode=${3:-normal}
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

capture=() target_mode=$mode flush=()
[[ $mode == capture ]] && capture=(--capture-range cudaProfilerApi)
if [[ $mode == capture-stop ]]; then
  capture=(--capture-range cudaProfilerApi --capture-range-end stop) target_mode=capture
  flush=(HEADROOM_PROFILE_FLUSH_MS=50)  # the detach comes inside the target's 300 ms wait after its first stop
fi
env ${flush[@]+"${flush[@]}"} "$bin" profile "${capture[@]}" -o "$tmp/t.sqlite" -- "$target" "$target_mode" 2>"$tmp/stderr"
status=$?
cat "$tmp/stderr"
[[ $status -eq 77 ]] && { echo "profile_target found no usable GPU: skipped"; exit 77; }
expected=0
[[ $mode == signal ]] && expected=143
if [[ $status -ne $expected ]]; then echo "FAIL: exit status $status, expected $expected"; exit 1; fi
echo "ok: exit status $status"
# Detaching CUPTI (cuptiUnsubscribe, cuptiFinalize) logs "... failed: ..." when a call fails.
if [[ $mode == capture-stop ]] && grep -q "failed" "$tmp/stderr"; then echo "FAIL: a CUPTI call failed (above)"; exit 1; fi
summary='headroom: 1 process, '
[[ $mode == multi ]] && summary='headroom: 2 processes, '
grep -q "$summary" "$tmp/stderr" || { echo "FAIL: no summary line '$summary'"; exit 1; }
[[ -f $tmp/t.sqlite ]] || { echo "FAIL: no store written"; exit 1; }
# What both checks below share: the store (argv[1]), a query helper and a check that prints itself.
cat >"$tmp/store_checks.py" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
failures = []
def check(ok, what, found):
    print(("ok:   " if ok else "FAIL: ") + what + f" (found {found})")
    if not ok:
        failures.append(what)
q = lambda sql, *a: db.execute(sql, a).fetchall()
PY

if [[ $mode == multi ]]; then
  gpus=$(nvidia-smi -L | grep -c '^GPU')
  PYTHONPATH=$tmp python3 - "$tmp/t.sqlite" "$gpus" <<'PY' || exit 1
from store_checks import check, q, failures
import sys
gpus = int(sys.argv[2])
procs = q("SELECT id, pid FROM processes")
check(len(procs) == 2 and len({p[1] for p in procs}) == 2, "two processes with distinct pids", procs)
for pid_index, pid in procs:
    counts = {kind: q("""SELECT count(*) FROM kernels k JOIN strings s ON s.id = k.name
                         WHERE k.process = ? AND s.value LIKE ?""", pid_index, f"%headroom_test_{kind}%")[0][0]
              for kind in ("a_kernel", "b_kernel", "graph_kernel")}
    check(counts.get("a_kernel") == 10 and counts.get("b_kernel") == 5 and counts.get("graph_kernel") == 6,
          f"process {pid}: 10 a, 5 b and 6 graph kernels", counts)
    launches = q("""SELECT count(*) FROM kernels k JOIN strings s ON s.id = k.name
                    JOIN api_calls c ON c.process = k.process AND c.correlation = k.correlation
                    WHERE k.process = ? AND s.value LIKE '%headroom_test_%' AND k.graph_node = 0""", pid_index)[0][0]
    check(launches == 15, f"process {pid}: 15 launches joined to their API calls in the same process", launches)
used = q("SELECT DISTINCT k.process, k.device FROM kernels k")
check({p for p, _ in used} == {p for p, _ in procs}, "kernels of both processes", used)
if gpus >= 2:
    check(len({d for _, d in used}) == 2, "the second rank on the second GPU", used)
sys.exit(1 if failures else 0)
PY
  "$bin" analyze "$tmp/t.sqlite" --json -o "$tmp/a.json" || { echo "FAIL: analyze could not read the store"; exit 1; }
  echo "ok: analyze reads the store"
  echo "PASS ($mode)"
  exit 0
fi

PYTHONPATH=$tmp python3 - "$tmp/t.sqlite" "$mode" <<'PY'
from store_checks import check, q, failures
import sys
mode = sys.argv[2]
kernels = q("SELECT k.start, k.end, k.stream, k.correlation, k.graph_node, s.value FROM kernels k JOIN strings s ON s.id = k.name")
def named(part):
    return [k for k in kernels if part in k[5]]
a, b = named("headroom_test_a_kernel"), named("headroom_test_b_kernel")
if mode in ("capture", "capture-stop"):
    # The b kernels ran in the first cudaProfilerStart/Stop range, one a kernel in the second.
    g = named("headroom_test_graph_kernel")
    second = 1 if mode == "capture" else 0
    check(len(a) == second and len(g) == 0, f"{second} a kernel (the second range) and no other kernel from outside the ranges",
          f"{len(a)} a, {len(g)} graph")
    check(len(b) == 5, "the 5 headroom_test_b_kernel records of the first range", len(b))
    gemm = [k[5] for k in kernels if any(p in k[5].lower() for p in ("gemm", "nvjet", "cutlass"))]
    check(not gemm, "no cuBLAS kernel (launched between the ranges)", gemm[:3])
    warnings = [w for (w,) in q("SELECT what FROM warnings")]
    ranges = 2 if mode == "capture" else 1
    check(any(f"{ranges} cudaProfilerStart/Stop range" in w for w in warnings), f"the trace says it holds {ranges} capture range(s)", warnings)
    if mode == "capture-stop":
        check(any("recording ended at the program's first cudaProfilerStop" in w for w in warnings),
              "the trace says the first stop ended the recording", warnings)
    check(len(q("SELECT * FROM devices")) >= 1, "device described", "")
    sys.exit(1 if failures else 0)
check(len(a) == 10, "10 headroom_test_a_kernel records", len(a))
check(len(b) == 5, "5 headroom_test_b_kernel records", len(b))
durs = [(k[1] - k[0]) / 1e3 for k in a + b]
check(bool(durs) and min(durs) >= 40, "a and b kernels last >= 40 us", f"min {min(durs) if durs else None} us")
sa, sb = {k[2] for k in a}, {k[2] for k in b}
check(len(sa) == 1 and len(sb) == 1 and sa != sb, "a on one stream, b on another", f"a {sa}, b {sb}")
if mode == "normal":
    gemm = [k[5] for k in kernels if any(p in k[5].lower() for p in ("gemm", "nvjet", "cutlass"))]
    check(len(gemm) >= 1, "a cuBLAS kernel (gemm/nvjet/cutlass)", gemm[:3])
    g = named("headroom_test_graph_kernel")
    check(len(g) == 6, "6 headroom_test_graph_kernel records", len(g))
    check(all(k[4] != 0 for k in g), "graph kernels carry graph node ids", [k[4] for k in g])
    check(len({k[4] for k in g}) == 3, "3 distinct graph nodes", sorted({k[4] for k in g}))
    r = {n: (s, e) for s, e, n, kind in q("SELECT r.start, r.end, s.value, r.kind FROM ranges r JOIN strings s ON s.id = r.name WHERE r.kind = 'nvtx'")}
    check("outer" in r and "inner" in r, "NVTX ranges outer and inner", sorted(r))
    if "outer" in r and "inner" in r:
        (os_, oe), (is_, ie) = r["outer"], r["inner"]
        check(os_ <= is_ <= ie <= oe, "inner nested in outer", f"outer {r['outer']}, inner {r['inner']}")
    marks = q("SELECT s.value FROM ranges r JOIN strings s ON s.id = r.name WHERE r.kind = 'mark' AND r.start = r.end")
    check(("headroom_test_mark",) in marks, "NVTX mark headroom_test_mark", marks[:5])
    htod = q("SELECT count(*) FROM copies WHERE copy_kind = 'HtoD' AND bytes = 64")[0][0]
    check(htod == 1, "one 64-byte HtoD copy", htod)
    ms = q("SELECT count(*) FROM memsets WHERE bytes = 64")[0][0]
    check(ms == 1, "one 64-byte memset", ms)
    # Every test kernel's launch is an API call of the same process with its correlation id.
    launches = q("""SELECT count(*) FROM kernels k JOIN strings s ON s.id = k.name
                    JOIN api_calls c ON c.process = k.process AND c.correlation = k.correlation
                    JOIN strings cs ON cs.id = c.name
                    WHERE s.value LIKE '%headroom_test_%' AND k.graph_node = 0 AND cs.value LIKE '%Launch%'""")[0][0]
    check(launches == 15, "15 stream launches matched to launch API calls by correlation id", launches)
    graph_launches = q("""SELECT count(DISTINCT k.correlation) FROM kernels k JOIN strings s ON s.id = k.name
                          JOIN api_calls c ON c.process = k.process AND c.correlation = k.correlation
                          WHERE s.value LIKE '%headroom_test_graph_kernel%'""")[0][0]
    check(graph_launches == 2, "graph kernels matched to 2 graph launch calls", graph_launches)
    # CUDA synchronisation records (kind `sync`): the program's cudaDeviceSynchronize, its stream
    # synchronisations of a and b, b waiting for an event recorded on a, and the host waiting for it.
    syncs = q("SELECT kind, stream, event, device, correlation FROM synchronizations")
    check(any(s[0] == "context_synchronize" for s in syncs), "a context synchronisation (cudaDeviceSynchronize)", syncs[:4])
    synced = {s[1] for s in syncs if s[0] == "stream_synchronize"}
    check(sa <= synced and sb <= synced, "stream synchronisations of streams a and b", f"{sorted(synced)} vs a {sa}, b {sb}")
    waits = [s for s in syncs if s[0] == "stream_wait_event"]
    check(any(s[1] in sb and s[2] >= 0 for s in waits), "stream b waits for an event", waits[:4])
    check(any(s[0] == "event_synchronize" and s[2] >= 0 for s in syncs), "the host waits for an event", syncs[:6])
    check(bool(syncs) and all(s[3] >= 0 for s in syncs), "every synchronisation on a known device", [s[3] for s in syncs][:8])
    joined = q("""SELECT count(*) FROM synchronizations y JOIN api_calls c
                  ON c.process = y.process AND c.correlation = y.correlation""")[0][0]
    check(joined == len(syncs), "every synchronisation joins its API call by correlation id", f"{joined} of {len(syncs)}")
dev = q("SELECT name, compute_major FROM devices")
check(len(dev) >= 1, "device described", dev)
print("dropped records:", q("SELECT value FROM headroom_meta WHERE key = 'dropped_records'"))
print("warnings:", q("SELECT what, count FROM warnings"))
sys.exit(1 if failures else 0)
PY
rc=$?
[[ $rc -eq 0 ]] || exit 1
# analyze reads what profile wrote.
"$bin" analyze "$tmp/t.sqlite" --json -o "$tmp/a.json" || { echo "FAIL: analyze could not read the store"; exit 1; }
echo "ok: analyze reads the store"
echo "PASS ($mode)"
