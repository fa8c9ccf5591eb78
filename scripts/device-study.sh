#!/usr/bin/env bash
# The study on the GPU machine in one command (nvidia-h200, through the device tool, carrying .deps):
#   1. builds (REBUILD=0 on a warm machine that already has build/device skips it);
#   2. `headroom study` of every reference workload, eager and torch.compile, each recorded by
#      `headroom profile` and again by torch.profiler (--compare-torch), into $STUDY, bounded so
#      that the call ends inside CALL_SECONDS; the study resumes where it stopped, so a second call
#      on the warm machine (REBUILD=0, within 30 s of the first) finishes what the first left;
#   3. the report (`headroom study --from`), printed and kept with the study;
#   4. with what is left (AB_SECONDS at least), the profiler's overhead inside one process
#      (bench/profile_overhead_ab.sh: headroom against torch.profiler) on AB_WORKLOADS;
#   5. packs into $OUT: study.tgz (the study without its traces: records, logs, run.json,
#      analyses, summary; small), logs.tgz (build, study, A/B), and the traces (stores gzip'd) in
#      traces-N.tar archives of at most 15 MiB each (TRACE_PARTS of them at most, none with
#      KEEP_TRACES=0; what does not fit is listed in logs.tgz's left-out.txt). The device tool
#      returns files of at most 16 MiB.
#
#   OUT=$OUT bash scripts/device-study.sh
#   REBUILD=0 OUT=$OUT bash scripts/device-study.sh                       # continue on a warm machine
#   WORKLOADS=gpt_train,dlrm_infer COMPILE=0 OUT=$OUT bash scripts/device-study.sh
#
# Variables: CALL_SECONDS (540), STUDY (/tmp/headroom-study), PRESET (h200), WORKLOADS (all), COMPILE (1),
# COMPARE_TORCH (1), AB_WORKLOADS (dlrm_infer llama_decode gpt_train; empty: no A/B), AB_SECONDS (90),
# AB_REPS (1), TRACE_PARTS (5), KEEP_TRACES (1).
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/headroom-out}
STUDY=${STUDY:-/tmp/headroom-study}
LOGS=/tmp/device-study-logs
mkdir -p "$OUT" "$LOGS"
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
left() { echo $(( ${CALL_SECONDS:-540} - $(elapsed) )); }
B=build/device/bin/headroom

if [[ ${REBUILD:-1} == 1 || ! -x $B ]]; then
  scripts/device-build build/device >"$LOGS/build.log" 2>&1 || { tail -40 "$LOGS/build.log"; exit 1; }
fi
echo "build done at $(elapsed) s"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader >"$LOGS/gpu.txt" 2>&1
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)" >>"$LOGS/gpu.txt" 2>&1
cat "$LOGS/gpu.txt"

# 2. The study, ended (SIGTERM: the run under way stops and stays undone) in time for the rest.
args=(-o "$STUDY" --preset "${PRESET:-h200}")
[[ -n ${WORKLOADS:-} ]] && args+=(--workloads "$WORKLOADS")
[[ ${COMPILE:-1} == 1 ]] && args+=(--compile)
[[ ${COMPARE_TORCH:-1} == 1 ]] && args+=(--compare-torch)
# 60 s stay for packing and, when the study is cut short, its report; the study's own report
# (every trace analysed) falls inside its budget.
budget=$(( $(left) - 60 ))
study_rc=none
if (( budget > 30 )); then
  timeout -k 30 "$budget" "$B" study "${args[@]}" >"$LOGS/summary.md" 2>"$LOGS/study.log"
  study_rc=$?
  echo "study rc $study_rc at $(elapsed) s"
  grep -E '^\[ *[0-9]+/[0-9]+\]' "$LOGS/study.log" | grep -v ': running' | tail -40
fi
pkill -f "[w]orkloads/[a-z0-9_]+\.py" && sleep 1

# 3. The report of whatever is done, when the study did not get to write it (0: every run done,
#    1: some failed; both wrote it).
if [[ $study_rc != 0 && $study_rc != 1 ]]; then
  timeout $(( $(left) > 40 ? $(left) - 30 : 10 )) "$B" study --from "$STUDY" >"$LOGS/summary.md" 2>"$LOGS/report.log"
  echo "report rc $? at $(elapsed) s"
fi
cat "$LOGS/summary.md"

# 4. The profiler's overhead inside one process, with the time left.
if [[ -n ${AB_WORKLOADS-dlrm_infer llama_decode gpt_train} ]] && (( $(left) > ${AB_SECONDS:-90} )); then
  REPS=${AB_REPS:-1} WORKLOADS=${AB_WORKLOADS-dlrm_infer llama_decode gpt_train} PROFILERS="headroom torch" OUT=$LOGS \
    timeout $(( $(left) - 35 )) bench/profile_overhead_ab.sh "$B" >"$LOGS/ab.md" 2>"$LOGS/ab.err"
  pkill -f "[w]orkloads/[a-z0-9_]+\.py" && sleep 1
  TABLE_ONLY=1 WORKLOADS=${AB_WORKLOADS-dlrm_infer llama_decode gpt_train} OUT=$LOGS bench/profile_overhead_ab.sh | tee "$LOGS/ab.md"
  echo "A/B done at $(elapsed) s"
fi

# 5. Packing: each archive at most 15 MiB. The traces are the files each run's result.json lists.
python3 - "$STUDY" "$OUT" "${TRACE_PARTS:-5}" "${KEEP_TRACES:-1}" "$LOGS/left-out.txt" <<'PY'
import glob, gzip, io, json, os, shutil, sys, tarfile
study, out, parts, keep, left_out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1", sys.argv[5]
limit = 15 * 1024 * 1024
top = os.path.dirname(os.path.abspath(study))
traces = set()
for record in glob.glob(f"{study}/runs/*/result.json"):
    try:
        listed = json.load(open(record)).get("traces", [])
    except (OSError, ValueError):
        continue
    traces.update(os.path.join(os.path.dirname(record), t) for t in listed)
rel = lambda p: os.path.relpath(p, top)
with tarfile.open(f"{out}/study.tgz", "w:gz") as tar:
    tar.add(study, arcname=rel(study), filter=lambda info: None if os.path.join(top, info.name) in traces else info)
items = []
for path in sorted(t for t in traces if os.path.exists(t)) if keep else []:
    # Stores gzip'd one by one (Kineto traces already are).
    if path.endswith(".sqlite"):
        data = io.BytesIO()
        with open(path, "rb") as f, gzip.GzipFile(fileobj=data, mode="wb", compresslevel=6) as z:
            shutil.copyfileobj(f, z)
        items.append((len(data.getvalue()), rel(path) + ".gz", data.getvalue()))
    else:
        items.append((os.path.getsize(path), rel(path), open(path, "rb").read()))
items.sort()  # smallest first, so that most runs come back
bins, skipped = [], []
for size, name, data in items:
    target = next((b for b in bins if b[0] + size + 4096 <= limit), None)
    if target is None and len(bins) < parts and size + 4096 <= limit:
        target = [0, []]
        bins.append(target)
    if target is None:
        skipped.append(f"{name} ({size} bytes)")
        continue
    target[0] += size + 4096
    target[1].append((name, data))
for i, (_, members) in enumerate(bins):
    with tarfile.open(f"{out}/traces-{i + 1}.tar", "w") as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
with open(left_out, "w") as f:
    f.write("".join(s + "\n" for s in skipped))
print(f"study.tgz {os.path.getsize(out + '/study.tgz')} bytes; traces: {sum(len(b[1]) for b in bins)} in "
      f"{len(bins)} archive(s), {len(skipped)} left out")
PY
(cd "$LOGS" && tar czf "$OUT/logs.tgz" --exclude='*.sqlite' --exclude='*.json.gz' .)
ls -la "$OUT"
echo "total $(elapsed) s"
