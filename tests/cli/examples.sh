#!/usr/bin/env bash
# End to end on the H200 torch.profiler traces (tests/data/h200-*.json.gz, recorded by us): analyze, project, classify,
# import and export. $1 binary, $2 source dir. Needs no fixtures.
set -euo pipefail
bin=$1
src=$2
gpt=$src/tests/data/h200-gpt-train.json.gz
dlrm=$src/tests/data/h200-dlrm-train.json.gz
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
json() {  # json FILE EXPR: evaluates a Python expression over the parsed file as d
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

# The transformer step is dominated by vendor GEMM and attention; the recommender by embeddings.
"$bin" analyze --json "$gpt" -o "$tmp/gpt.json"
"$bin" analyze --json "$dlrm" -o "$tmp/dlrm.json"
[[ $(json "$tmp/gpt.json" 'd["timelines"][0]["window"]["source"]') == repeating_unit ]] || fail "GPT window source"
[[ $(json "$tmp/gpt.json" 'd["timelines"][0]["window"]["steps"] >= 2') == True ]] || fail "GPT window holds whole steps"
[[ $(json "$tmp/gpt.json" '0.15 < d["total"]["addressable_fraction"] < 0.40') == True ]] || fail "GPT addressable fraction"
[[ $(json "$tmp/gpt.json" '(d["total"]["by_category"]["gemm"]["busy_ns"] + d["total"]["by_category"]["attention"]["busy_ns"]) / d["total"]["kernel_busy_ns"] > 0.65') == True ]] \
  || fail "GPT GEMM plus attention share"
[[ $(json "$tmp/dlrm.json" 'd["total"]["addressable_fraction"] > 0.6') == True ]] || fail "DLRM addressable fraction"
[[ $(json "$tmp/dlrm.json" 'max(d["total"]["by_category"], key=lambda k: d["total"]["by_category"][k]["busy_ns"])') == embedding ]] \
  || fail "DLRM: embedding is not the largest category"

# The store is a faithful copy: analysing it gives the same figures as analysing the JSON.
"$bin" import "$gpt" -o "$tmp/gpt.sqlite" >/dev/null
"$bin" analyze --json "$tmp/gpt.sqlite" -o "$tmp/gpt-store.json"
[[ $(json "$tmp/gpt-store.json" 'd["total"]["addressable_busy_ns"]') == $(json "$tmp/gpt.json" 'd["total"]["addressable_busy_ns"]') ]] \
  || fail "store and JSON disagree on addressable busy time"

# Export: Chrome trace JSON that parses and carries the classes.
"$bin" export "$dlrm" -o "$tmp/dlrm.chrome.json" >/dev/null
[[ $(json "$tmp/dlrm.chrome.json" 'sum(1 for e in d["traceEvents"] if e.get("args", {}).get("category") == "embedding") > 0') == True ]] \
  || fail "export lacks classified kernels"

# Projection: the Amdahl figure for a global speedup matches 1/((1-f)+f/s).
"$bin" project "$dlrm" --speedup 2 --json >"$tmp/proj.json"
python3 - "$tmp/proj.json" "$tmp/dlrm.json" <<'PY' || fail "projection disagrees with the analysis"
import json, sys
p = json.load(open(sys.argv[1])); a = json.load(open(sys.argv[2]))
f = a["total"]["addressable_fraction"]
assert abs(p["speedup"] - 1 / ((1 - f) + f / 2)) < 1e-9, (p["speedup"], f)
PY

# Classify: a cuBLAS Hopper kernel is vendor library and not addressable; an ATen one is addressable.
"$bin" classify --tsv nvjet_sm90_tst_128x256_64x4_2x1_v_bz_coopA_NTN >"$tmp/c1.tsv"
grep -q 'vendor_library' "$tmp/c1.tsv" || fail "nvjet not vendor library"
echo 'void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)' |
  "$bin" classify --tsv >"$tmp/c2.tsv"
grep -q 'framework' "$tmp/c2.tsv" || fail "ATen kernel from stdin not framework"

# A user's rule overrides the defaults.
cat >"$tmp/rules.toml" <<'TOML'
[[rule]]
id = "my-embedding"
contains = "EmbeddingBag_updateOutputKernel"
category = "embedding"
provenance = "vendor_library"
library = "pretend-vendor"
TOML
"$bin" analyze --json --rules "$tmp/rules.toml" "$dlrm" -o "$tmp/dlrm-rules.json"
[[ $(json "$tmp/dlrm-rules.json" 'd["total"]["addressable_fraction"] < '"$(json "$tmp/dlrm.json" 'd["total"]["addressable_fraction"]')") == True ]] \
  || fail "--rules did not override the default"

# Bad input: clear message, exit status 2, never a crash.
expect2() {  # expect2 WHAT COMMAND...
  local what=$1; shift
  set +e; "$@" >/dev/null 2>"$tmp/err.txt"; local rc=$?; set -e
  [[ $rc -eq 2 ]] || fail "$what: exit status $rc, expected 2 ($(cat "$tmp/err.txt"))"
  [[ -s $tmp/err.txt ]] || fail "$what: no message"
}
expect2 "missing file" "$bin" analyze "$tmp/does-not-exist.json"
head -c 20000 "$gpt" >"$tmp/cut.json.gz"
"$bin" analyze "$tmp/cut.json.gz" >"$tmp/cut.txt" 2>&1 || true  # a cut gzip keeps what decoded, warns
grep -qi 'truncat\|corrupt\|no GPU' "$tmp/cut.txt" || fail "cut gzip: no warning"
echo 'not json at all' >"$tmp/bad.json"
expect2 "not a trace" "$bin" analyze "$tmp/bad.json"
printf '[[rule]]\nid = "x"\ncategory = "gemmm"\nprovenance = "framework"\ncontains = "a"\n' >"$tmp/bad.toml"
expect2 "bad rule file" "$bin" analyze --rules "$tmp/bad.toml" "$gpt"
grep -q 'gemmm' "$tmp/err.txt" || fail "bad rule message does not name the category"
expect2 "unknown option" "$bin" analyze --no-such-option "$gpt"
echo OK
