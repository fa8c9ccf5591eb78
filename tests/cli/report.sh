#!/usr/bin/env bash
# `headroom project --speedups` and `headroom report` on the bundled traces and the bundled published
# figures: the join's arithmetic against the analysis, the report's files, and clear errors.
# $1 binary, $2 source dir.
set -euo pipefail
bin=$1
src=$2
dlrm=$src/tests/data/h200-dlrm-train.json.gz
gpt=$src/tests/data/h200-gpt-train.json.gz
published=$src/data/results/published-figures.csv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The published formula over the workload's categories: sum f_c * 0.417 * (1 - 1/1.552).
"$bin" project "$dlrm" --speedups "$published" --json -o "$tmp/join.json"
"$bin" analyze "$dlrm" --json -o "$tmp/dlrm.json"
python3 - "$tmp/join.json" "$tmp/dlrm.json" <<'PY' || fail "the join disagrees with the published formula"
import json, sys
j = json.load(open(sys.argv[1])); a = json.load(open(sys.argv[2]))
f = a["total"]["addressable_fraction"]
fc = sum(j["category_fractions"].values())
assert abs(j["addressable_fraction"] - f) < 1e-12
# Categories overlap in time only where addressable kernels of two categories run at once.
assert f - 1e-9 <= fc <= f * 1.02, (fc, f)
rec = next(s for s in j["sources"] if s["source"] == "recommender")
assert abs(rec["published"]["time_saved"] - fc * 0.417 * (1 - 1 / 1.552)) < 1e-9, rec["published"]
assert rec["published"]["low"] is None, "no interval without a problem count"
assert rec["expectation"] is None and rec["best"] is None
tr = next(s for s in j["sources"] if s["source"] == "transformer")
t = tr["published"]
assert abs(t["time_saved"] - fc * 22 / 56 * (1 - 1 / 1.235)) < 1e-9, t
assert t["low"] < t["time_saved"] < t["high"], t
assert abs(t["end_to_end"] - 1 / (1 - t["time_saved"])) < 1e-12
PY
"$bin" project "$dlrm" --speedups "$published" >"$tmp/join.txt"
grep -q "published: f_c \* win rate \* (1 - 1/median win)" "$tmp/join.txt" || fail "console lacks the published estimate"
grep -q "Source 'transformer'" "$tmp/join.txt" || fail "console lacks a source"
"$bin" project "$dlrm" --speedups "$published" --source transformer --uncovered none --json -o "$tmp/none.json"
[[ $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(len(d['sources']), d['sources'][0]['published']['time_saved'])" "$tmp/none.json") == "1 0" ]] \
  || fail "--uncovered none with only an 'all' row should save nothing"

# The report: one HTML file under 1 MB naming both workloads; Markdown with its plots beside it.
"$bin" report "$gpt" "$dlrm" "$published" -o "$tmp/report.html" 2>"$tmp/report.err"
grep -q "wrote $tmp/report.html" "$tmp/report.err" || fail "report does not say where it is"
size=$(stat -c %s "$tmp/report.html")
((size < 1048576)) || fail "report is $size bytes"
grep -q 'id="workload-h200-gpt-train"' "$tmp/report.html" || fail "GPT workload missing"
grep -q 'id="workload-h200-dlrm-train"' "$tmp/report.html" || fail "DLRM workload missing"
[[ ! -e $tmp/report.html.partial ]] || fail "partial file left behind"
"$bin" report "$dlrm" "$published" --markdown -o "$tmp/report.md" 2>/dev/null
grep -q '^## h200-dlrm-train' "$tmp/report.md" || fail "Markdown lacks the workload"
[[ -s $tmp/report-plots/h200-dlrm-train-wall-clock.svg ]] || fail "Markdown plot file missing"
grep -q '](report-plots/h200-dlrm-train-wall-clock.svg)' "$tmp/report.md" || fail "Markdown does not link its plot"
python3 -c "import sys, xml.dom.minidom as m; m.parse(sys.argv[1])" "$tmp/report-plots/h200-dlrm-train-amdahl.svg" \
  || fail "a plot file is not well-formed XML"

# Bad input: a message and exit status 2.
expect2() {  # expect2 WHAT NEEDLE COMMAND...
  local what=$1 needle=$2; shift 2
  set +e; "$@" >/dev/null 2>"$tmp/err.txt"; local rc=$?; set -e
  [[ $rc -eq 2 ]] || fail "$what: exit status $rc, expected 2 ($(cat "$tmp/err.txt"))"
  grep -q -- "$needle" "$tmp/err.txt" || fail "$what: message lacks '$needle': $(cat "$tmp/err.txt")"
}
printf 'source,category,problems,wins,win_rate,median_speedup\nx,all,56,22,0.5,1.2\n' >"$tmp/bad.csv"
expect2 "inconsistent figures" "bad.csv:2" "$bin" project "$dlrm" --speedups "$tmp/bad.csv"
expect2 "missing store" "no such file" "$bin" project "$dlrm" --results "$tmp/none.sqlite"
expect2 "unknown policy" "--uncovered" "$bin" project "$dlrm" --speedups "$published" --uncovered maybe
expect2 "both kinds of speedup" "one or the other" "$bin" project "$dlrm" --speedups "$published" --speedup 2
expect2 "unknown source" "no source 'nobody'" "$bin" project "$dlrm" --speedups "$published" --source nobody
expect2 "report without -o" "-o FILE" "$bin" report "$dlrm"
expect2 "report of a missing file" "no such file" "$bin" report "$tmp/missing.json.gz" -o "$tmp/r.html"
echo OK
