#!/usr/bin/env bash
# End to end: `headroom study` without a GPU. A study folder built from recorded traces (the bundled
# H200 traces, and the fixtures when present) is reported with --from; resuming skips what is done;
# a run that records nothing, one past its timeout and one interrupted are handled as docs/study.md
# says. $1 binary, $2 source dir, $3 fixtures.
set -euo pipefail
bin=$1
src=$2
fixtures=$3/kineto-hta
gpt=$src/tests/data/h200-gpt-train.json.gz
dlrm=$src/tests/data/h200-dlrm-train.json.gz
tmp=$(mktemp -d)
trap '[[ -n ${KEEP_TMP:-} ]] || rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
json() {  # json FILE EXPR: evaluates a Python expression over the parsed file as d
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}
expect() {  # expect STATUS WHAT COMMAND...: the exit status and a message on stderr
  local want=$1 what=$2; shift 2
  set +e; "$@" >"$tmp/out.txt" 2>"$tmp/err.txt"; local rc=$?; set -e
  [[ $rc -eq $want ]] || fail "$what: exit status $rc, expected $want ($(tail -3 "$tmp/err.txt"))"
}

# add_run STUDY WORKLOAD VARIANT RECORDER DOMAIN STATUS TRACE...: a run folder as docs/study.md
# describes it, assembled by hand from recorded traces.
add_run() {
  local study=$1 workload=$2 variant=$3 recorder=$4 domain=$5 status=$6; shift 6
  local dir=$study/runs/$workload.$variant.$recorder names=() i=0
  mkdir -p "$dir"
  for t in "$@"; do
    local name=trace$i.json.gz
    [[ $t == *.sqlite ]] && name=trace$i.sqlite
    cp "$t" "$dir/$name"; names+=("\"$name\""); i=$((i + 1))
  done
  local reason=""
  [[ $status == ok ]] || reason="exit status 1; last line of the log: RuntimeError: CUDA out of memory"
  cat >"$dir/result.json" <<JSON
{"schema_version": 1, "kind": "headroom-study-run", "workload": "$workload", "variant": "$variant",
 "recorder": "$recorder", "domain": "$domain", "status": "$status", "reason": "$reason",
 "traces": [$(IFS=,; echo "${names[*]}")], "harness": ""}
JSON
}

study=$tmp/study
mkdir -p "$study"
echo '{"schema_version": 1, "kind": "headroom-study", "preset": "large", "created": "2026-11-30T00:00:00Z"}' >"$study/study.json"
# The bundled traces were recorded by torch.profiler (CUDA activity). A store imported from the GPT
# trace stands in for headroom's recording of the same run.
"$bin" import "$gpt" -o "$tmp/gpt.sqlite" >/dev/null
add_run "$study" gpt_train eager headroom transformer ok "$tmp/gpt.sqlite"
add_run "$study" gpt_train eager torch transformer ok "$gpt"
add_run "$study" dlrm_train eager torch recommender ok "$dlrm"
add_run "$study" dlrm_infer eager headroom recommender failed
if [[ -d $fixtures ]]; then
  # A V100 ResNet trace with ProfilerStep markers, and two ranks of one job merged into one run.
  add_run "$study" hta_resnet eager torch vision ok "$fixtures/ns_resolution_trace_rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"
  add_run "$study" hta_two_ranks eager torch other ok "$fixtures/trace_filter_sampled_rank-0.json.gz" \
    "$fixtures/trace_filter_sampled_rank-1.json.gz"
  # A trace of CPU activity only: no row of zeros, but a run without figures that says why.
  add_run "$study" hta_cpu_only eager torch other ok "$fixtures/cpu_only_rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"
fi

# The report of the folder, written elsewhere.
expect 0 "study --from" "$bin" study --from "$study" -o "$tmp/report" --results "$src/data/results/published-figures.csv"
report=$tmp/report/summary.json
[[ -f $tmp/report/summary.md && -f $report ]] || fail "no summary.md and summary.json in -o"
# report.html: a workload per row from its headline run's traces, joined to the results given, the
# study's tables at its end.
html=$tmp/report/report.html
[[ -f $html ]] || fail "no report.html in -o"
for w in "gpt_train (eager)" "dlrm_train (eager)"; do grep -qF "$w" "$html" || fail "report.html lacks the workload $w"; done
grep -q "published" "$html" || fail "report.html does not join the published figures"
grep -q "80-86%" "$html" || fail "report.html lacks the study table"
# It opens with the study's figure: every row's f by domain over the published range's band, the
# gains at 1.235x and 1.552x, before the summary and the workloads.
lead=$(grep -n 'The study: what a faster kernel buys each workload' "$html" | head -1 | cut -d: -f1)
summary=$(grep -n '<section id="summary">' "$html" | head -1 | cut -d: -f1)
[[ -n $lead && -n $summary && $lead -lt $summary ]] || fail "report.html does not open with the study's figure ($lead, $summary)"
grep -q 'class="band"' "$html" || fail "the study's figure lacks the published range"
grep -q 'published: 8.9% to 58.2%' "$html" || fail "the band is not labelled"
grep -q 'S at 1.552x' "$html" || fail "the study's figure lacks the gain at 1.552x"
[[ ! -f $study/summary.md ]] || fail "--from -o wrote into the study folder"
grep -q '^| workload | domain | variant | recorded by' "$tmp/out.txt" || fail "the table is not printed"
grep -q 'analysing runs/gpt_train.eager.headroom' "$tmp/err.txt" || fail "no progress line per run"
# The study's figures are analyze's: each row from its trace's steady window; for the comparison,
# torch.profiler's whole trace (it records exactly the recorded steps).
"$bin" analyze --json "$tmp/gpt.sqlite" -o "$tmp/gpt-steady.json"
"$bin" analyze --json "$dlrm" -o "$tmp/dlrm-steady.json"
"$bin" analyze --json --window whole "$gpt" -o "$tmp/gpt-whole.json"
python3 - "$report" "$tmp/gpt-steady.json" "$tmp/dlrm-steady.json" "$tmp/gpt-whole.json" <<'PY' || fail "the summary's figures"
import json, sys
s = json.load(open(sys.argv[1]))
gpt, dlrm, gpt_whole = (json.load(open(p))["total"] for p in sys.argv[2:])
assert s["kind"] == "study-summary" and s["schema_version"] == 1 and s["preset"] == "large"
rows = {(r["workload"], r["variant"]): r for r in s["rows"]}
g, d = rows[("gpt_train", "eager")], rows[("dlrm_train", "eager")]
assert g["projection"]["recorded_by"] == "headroom" and d["projection"]["recorded_by"] == "torch"
assert abs(g["projection"]["addressable_fraction"] - gpt["addressable_fraction"]) < 1e-12
assert abs(d["projection"]["addressable_fraction"] - dlrm["addressable_fraction"]) < 1e-12
f = g["projection"]["addressable_fraction"]
assert abs(g["projection"]["ceiling"] - 1 / (1 - f)) < 1e-9
assert abs(g["projection"]["end_to_end"] - 1 / ((1 - f) + f / 1.235)) < 1e-9
share = g["headroom"]["figures"]["gemm_attention_share_of_kernels"]
assert 0.65 < share < 0.9, share                         # the GPT step is vendor GEMM and attention
assert d["projection"]["addressable_fraction"] > 0.6      # the DLRM step is embeddings
assert abs(g["torch"]["all_steps_figures"]["addressable_fraction"] - gpt_whole["addressable_fraction"]) < 1e-12
assert g["headroom"]["all_steps_figures"]["window_source"] == "repeating_unit"
assert rows[("dlrm_infer", "eager")]["headroom"]["status"].startswith("failed: exit status 1")
assert [r["domain"] for r in s["rows"]][:3] == ["transformer", "recommender", "recommender"]
PY
grep -q '| gpt_train | transformer | eager | headroom | .* | 80-86% |' "$tmp/report/summary.md" \
  || fail "the transformer row lacks the published GEMM+attention share"
grep -q 'published: 8.9% to 58.2%' "$tmp/report/summary.md" || fail "no published range beside ours"
grep -q '### headroom against torch.profiler' "$tmp/report/summary.md" || fail "no agreement table"
grep -q '| runs/dlrm_infer.eager.headroom | failed: exit status 1' "$tmp/report/summary.md" || fail "the failed run is not listed"
[[ -f $study/runs/gpt_train.eager.headroom/analysis.json && -f $study/runs/gpt_train.eager.headroom/analysis.all-steps.json ]] \
  || fail "no analyses written beside the trace"
if [[ -d $fixtures ]]; then
  [[ $(json "$report" '[r for r in d["rows"] if r["workload"] == "hta_two_ranks"][0]["torch"]["figures"]["timelines"]') == 2 ]] \
    || fail "two traces of one run are not merged as two ranks"
  grep -q '| hta_resnet | vision | eager | torch.profiler | step_markers' "$tmp/report/summary.md" || fail "fixture row"
  grep -q '| runs/hta_cpu_only.eager.torch | not read: the trace holds no GPU kernel in its window |' "$tmp/report/summary.md" \
    || fail "a trace without GPU kernels is not listed as such"
  if grep -q '| hta_cpu_only |' "$tmp/report/summary.md"; then fail "a trace without GPU kernels made a row"; fi
fi

# Copied without its traces, the folder still reports, from each run's analysis.json, and says so.
mkdir "$tmp/copy"
(cd "$tmp" && tar cf - --exclude='trace*' study) | tar xf - -C "$tmp/copy"
expect 0 "study --from a copy without traces" "$bin" study --from "$tmp/copy/study"
python3 - "$report" "$tmp/copy/study/summary.json" <<'PY' || fail "figures from analysis.json differ from the traces'"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
pa = [(r["workload"], r["projection"]) for r in a["rows"]]
pb = [(r["workload"], r["projection"]) for r in b["rows"]]
assert pa == pb, (pa, pb)
assert all(r["headroom"]["figures_from"] in ("", "analysis.json") for r in b["rows"])
PY
grep -q 'read from analysis.json (the trace was not copied' "$tmp/copy/study/summary.md" || fail "no note on analysis.json"
grep -q 'Runs reported from their analysis only' "$tmp/copy/study/report.html" || fail "report.html does not name the runs without traces"

# Resuming: what is done is skipped, what is not would run (a dry run runs and writes nothing).
expect 0 "dry run" "$bin" study -o "$study" --workloads gpt_train,dlrm_train --compare-torch --dry-run --python python3
[[ $(grep -c 'done earlier, skipped' "$tmp/err.txt") -eq 3 ]] || fail "expected three runs skipped: $(cat "$tmp/err.txt")"
grep -q '\[2/4\] dlrm_train eager, headroom profile: would run: .* profile -o .*/runs/dlrm_train.eager.headroom/trace.sqlite -- python3 .*/dlrm.py --mode train --preset large --summary' \
  "$tmp/err.txt" || fail "the dry run does not show the command: $(cat "$tmp/err.txt")"
[[ ! -d $study/runs/dlrm_train.eager.headroom ]] || fail "the dry run created a run folder"
# A rerun with every run done runs nothing and writes the report into the folder.
expect 0 "rerun of a done study" "$bin" study -o "$study" --workloads gpt_train --compare-torch --python python3
[[ $(grep -c 'done earlier, skipped' "$tmp/err.txt") -eq 2 ]] || fail "a rerun did not skip: $(cat "$tmp/err.txt")"
grep -q '2 runs planned: 2 done earlier, 0 recorded now, 0 failed' "$tmp/err.txt" || fail "no count of the runs"
[[ -f $study/summary.md && -f $study/summary.json ]] || fail "the rerun wrote no report into the study folder"

# Bad input: exit status 2 with the reason.
expect 2 "another preset" "$bin" study -o "$study" --preset tiny --dry-run
grep -q 'holds a study of the large preset' "$tmp/err.txt" || fail "preset mismatch message"
expect 2 "unknown workload" "$bin" study -o "$tmp/x" --workloads gpt_train,nope --dry-run
grep -q "unknown workload 'nope'; the study knows gpt_train, llama_decode" "$tmp/err.txt" || fail "unknown workload message"
expect 2 "a folder that is not a study" "$bin" study -o "$tmp/report" --dry-run
grep -q 'is not empty and holds no study.json' "$tmp/err.txt" || fail "not-a-study -o message"
expect 2 "not a study folder" "$bin" study --from "$tmp/report"
grep -q 'is not a study folder' "$tmp/err.txt" || fail "not a study folder message"
echo '{"schema_version": 1, "kind": "headroom-study-run", "workload": "x"}' >"$study/runs/dlrm_infer.eager.headroom/result.json"
expect 2 "malformed record" "$bin" study --from "$study"
grep -q 'dlrm_infer.eager.headroom/result.json: "variant" must be' "$tmp/err.txt" || fail "malformed record message"
expect 2 "--results that does not exist" "$bin" study --from "$tmp/copy/study" --results "$tmp/kb.sqlite"
grep -q "kb.sqlite: no such file" "$tmp/err.txt" || fail "--results message: $(cat "$tmp/err.txt")"
expect 2 "--results that is a trace" "$bin" study --from "$tmp/copy/study" --results "$gpt"
grep -q "neither a results store" "$tmp/err.txt" || fail "--results of a trace: $(cat "$tmp/err.txt")"
# A section measured beside the study (a swap check's) goes into report.html after the study's tables;
# one that is not a section is refused before anything is written.
cat >"$tmp/swap-section.json" <<'JSON'
{"headroom_report_section": 1, "kind": "swap-check", "title": "Swap check: planted", "paragraphs": ["measured +1.00 points"]}
JSON
expect 0 "study --from with --section" "$bin" study --from "$tmp/copy/study" -o "$tmp/with-section" --section "$tmp/swap-section.json"
grep -q "Swap check: planted" "$tmp/with-section/report.html" || fail "the section is not in report.html"
expect 2 "--section that is not one" "$bin" study --from "$tmp/copy/study" -o "$tmp/bad-section" --section "$gpt"
[[ ! -e $tmp/bad-section/report.html ]] || fail "a bad --section still wrote report.html"

# Runs that go wrong, with stand-in workloads (plain Python, no PyTorch): a workload that exits
# without error under `headroom profile` but makes no CUDA call records nothing, which is a
# failure, not a row of zeros; one past its timeout is stopped; an interrupted one stays undone.
work=$tmp/workloads
mkdir -p "$work"
cat >"$work/study.toml" <<'TOML'
[[workload]]
name = "quiet"
script = "quiet.py"
domain = "other"

[[workload]]
name = "slow"
script = "slow.py"
args = ["--marker", "headroom-study-test-sleeper"]
domain = "other"
timeout = 2
TOML
printf 'print("no CUDA here")\n' >"$work/quiet.py"
# The stand-ins make no CUDA call, so the injection library is never loaded: an empty file stands in
# for it, and `headroom profile` runs them alike whether this build has CUDA or not.
export HEADROOM_INJECT_LIB=$tmp/stand-in-injection.so
: >"$HEADROOM_INJECT_LIB"
printf 'import time\ntime.sleep(60)\n' >"$work/slow.py"
# Whether a process of the slow stand-in is still there (its command line carries the marker; the
# bracket keeps grep's own command line from matching).
sleeper_left() { grep -qs 'headroom-study-test-sleepe[r]' /proc/[0-9]*/cmdline; }
expect 1 "a study whose runs fail" "$bin" study -o "$tmp/failing" --workloads-dir "$work" --python python3
grep -q '\[1/2\] quiet eager, headroom profile: failed after' "$tmp/err.txt" || fail "quiet: $(cat "$tmp/err.txt")"
grep -q '\[2/2\] slow eager, headroom profile: timed out after' "$tmp/err.txt" || fail "slow: $(cat "$tmp/err.txt")"
[[ $(json "$tmp/failing/runs/quiet.eager.headroom/result.json" 'd["status"]') == failed ]] || fail "quiet's record"
grep -q 'no trace.sqlite was written' "$tmp/failing/runs/quiet.eager.headroom/result.json" || fail "quiet's reason"
[[ $(json "$tmp/failing/runs/slow.eager.headroom/result.json" 'd["status"]') == timed_out ]] || fail "slow's record"
head -1 "$tmp/failing/runs/quiet.eager.headroom/log.txt" | grep -q '^\$ .* profile -o .* -- python3 .*/quiet.py --preset large' \
  || fail "the log does not start with the command"
grep -q 'Runs without figures' "$tmp/failing/summary.md" || fail "the failures are not in the report"
if sleeper_left; then fail "the timed-out run left a process behind"; fi
# A failed run is not done: the rerun runs it again.
expect 1 "rerun" "$bin" study -o "$tmp/failing" --workloads-dir "$work" --workloads quiet --python python3
grep -q 'quiet eager, headroom profile: running' "$tmp/err.txt" || fail "a failed run was skipped on rerun"

# Interrupted: SIGINT stops the run under way, which stays undone, and headroom exits 130.
"$bin" study -o "$tmp/interrupted" --workloads-dir "$work" --workloads slow --timeout 60 --python python3 \
  >/dev/null 2>"$tmp/int.txt" &
pid=$!
for _ in $(seq 100); do grep -q running "$tmp/int.txt" 2>/dev/null && break; sleep 0.1; done
sleep 1
kill -INT $pid
set +e; wait $pid; rc=$?; set -e
[[ $rc -eq 130 ]] || fail "interrupted study: exit status $rc ($(cat "$tmp/int.txt"))"
grep -q 'interrupted (signal 2); not recorded' "$tmp/int.txt" || fail "no interruption line: $(cat "$tmp/int.txt")"
[[ ! -f $tmp/interrupted/runs/slow.eager.headroom/result.json ]] || fail "the interrupted run was recorded"
if sleeper_left; then fail "the interrupted run left a process behind"; fi
echo OK
