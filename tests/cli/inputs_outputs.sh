#!/usr/bin/env bash
# End to end: no silent wrong answer. A trace cut short is an error unless --allow-partial, and then
# every output says so; one trace given twice is refused; pipes read as files; patterns work on
# names of any length; every output is replaced whole or not at all, never through a link, never
# over an input, and a write that fails is an error. $1 headroom, $2 source folder.
set -uo pipefail
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
gpt=$src/tests/data/h200-gpt-train.json.gz
# expect STATUS CMD...: runs CMD with stdout in $tmp/out and stderr in $tmp/err, checks its status.
expect() {
  local want=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  [[ $got == "$want" ]] || { cat "$tmp/err" >&2; fail "exit status $got, expected $want: $*"; }
}
fraction() { python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["total"]["addressable_fraction"], 6))' "$1"; }

# A .json.gz cut at 40% of its bytes: refused, naming the file and what was lost.
size=$(stat -c %s "$gpt")
head -c $((size * 2 / 5)) "$gpt" >"$tmp/cut.json.gz"
expect 2 "$bin" analyze "$tmp/cut.json.gz"
grep -q 'cut.json.gz: gzip stream ends early' "$tmp/err" || fail "no message saying what was lost"
grep -q -- '--allow-partial' "$tmp/err" || fail "the message does not name --allow-partial"
[[ ! -s $tmp/out ]] || fail "figures printed for a partial trace"
expect 2 "$bin" project "$tmp/cut.json.gz" --speedup 2
# With --allow-partial every format carries the note, and standard error says it too.
for format in "" --json --csv; do
  expect 0 "$bin" analyze "$tmp/cut.json.gz" --allow-partial $format
  grep -q 'partial input, the figures cover only what was read' "$tmp/out" || fail "no partial note in '$format' output"
  grep -q 'warning: partial input' "$tmp/err" || fail "no partial warning on stderr ('$format')"
done
expect 0 "$bin" project "$tmp/cut.json.gz" --allow-partial --speedup 2 --json
grep -q 'partial input' "$tmp/out" || fail "no partial note in project --json"
expect 0 "$bin" export "$tmp/cut.json.gz" --allow-partial -o "$tmp/cut.chrome.json"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["otherData"]["partial_input"]' "$tmp/cut.chrome.json" ||
  fail "the exported trace does not say it is partial"
# A store imported from a partial trace stays partial.
expect 0 "$bin" import "$tmp/cut.json.gz" --allow-partial -o "$tmp/cut.sqlite"
expect 2 "$bin" analyze "$tmp/cut.sqlite"
grep -q 'gzip stream ends early' "$tmp/err" || fail "a partial store is not refused with its loss"
expect 0 "$bin" analyze "$tmp/cut.sqlite" --allow-partial

# One trace given twice would count two ranks.
expect 2 "$bin" analyze "$gpt" "$gpt"
grep -q 'are the same file' "$tmp/err" || fail "the same file twice is not named"
cp "$gpt" "$tmp/copy.json.gz"
expect 2 "$bin" analyze "$gpt" "$tmp/copy.json.gz"
grep -q 'hold the same bytes' "$tmp/err" || fail "a copy of a trace is not named"

# Pipes: process substitution and a FIFO read as the file does.
expect 0 "$bin" analyze "$gpt" --json -o "$tmp/file.json"
expect 0 "$bin" analyze <(zcat "$gpt") --json -o "$tmp/pipe.json"
[[ $(fraction "$tmp/file.json") == $(fraction "$tmp/pipe.json") ]] || fail "process substitution reads differently"
mkfifo "$tmp/fifo"
cat "$gpt" >"$tmp/fifo" &
expect 0 "$bin" analyze "$tmp/fifo" --json -o "$tmp/fifo.json"
wait
[[ $(fraction "$tmp/file.json") == $(fraction "$tmp/fifo.json") ]] || fail "a FIFO reads differently"

# Patterns on long names: a range named by 30,000 digits, a kernel name of 50 KB.
python3 - "$tmp/long.json" <<'PY'
import json, sys
events = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#" + "7" * 30000, "pid": 1, "tid": 1, "ts": 0, "dur": 100}]
for i in range(40):
    name = "gemm_" + "x" * 50000 if i % 2 else "void at::native::elementwise_kernel<128, 4>"
    events.append({"ph": "X", "cat": "kernel", "name": name, "pid": 1, "tid": 7, "ts": 2 * i, "dur": 1,
                   "args": {"device": 0, "stream": 7, "correlation": i + 1}})
json.dump({"traceEvents": events}, open(sys.argv[1], "w"))
PY
expect 0 "$bin" analyze "$tmp/long.json"
expect 0 "$bin" project "$tmp/long.json" --kernel '.*gemm.*=2'
grep -q 'Projected end-to-end speedup' "$tmp/out" || fail "no projection over a 50 KB name"

# Outputs: never through a link, never over an input; replaced whole.
echo keep >"$tmp/real.json"
ln -s "$tmp/real.json" "$tmp/link.json"
expect 2 "$bin" analyze "$gpt" --json -o "$tmp/link.json"
grep -q 'symbolic link' "$tmp/err" || fail "writing through a link is not refused"
[[ $(cat "$tmp/real.json") == keep ]] || fail "the link's target was written"
expect 2 "$bin" export "$gpt" -o "$tmp/link.json"
grep -q 'symbolic link' "$tmp/err" || fail "export writing through a link is not refused"
[[ $(cat "$tmp/real.json") == keep ]] || fail "export wrote the link's target"
cp "$gpt" "$tmp/x.json.gz"
expect 2 "$bin" export "$tmp/x.json.gz" -o "$tmp/x.json.gz"
grep -q 'is also an input' "$tmp/err" || fail "export X -o X is not refused"
cmp -s "$gpt" "$tmp/x.json.gz" || fail "export X -o X changed its input"
expect 2 "$bin" import "$tmp/cut.sqlite" -o "$tmp/cut.sqlite" --allow-partial
grep -q 'is also an input' "$tmp/err" || fail "import X -o X is not refused"

# Every write is checked: a full device, a file size limit, a full filesystem.
expect 2 "$bin" analyze "$gpt" -o /dev/full
grep -q 'No space left on device' "$tmp/err" || fail "-o /dev/full: no reason given"
"$bin" analyze "$gpt" >/dev/full 2>"$tmp/err"
[[ $? == 2 ]] && grep -q 'standard output' "$tmp/err" || fail "analyze > /dev/full is not an error"
"$bin" classify --list-rules >/dev/full 2>"$tmp/err"
[[ $? == 2 ]] || fail "classify --list-rules > /dev/full did not exit 2"
grep -q '^headroom: cannot write standard output' "$tmp/err" || fail "classify --list-rules > /dev/full: $(cat "$tmp/err")"
expect 2 "$bin" project "$gpt" --speedup 2 -o /dev/full
grep -q 'No space left on device' "$tmp/err" || fail "project -o /dev/full: no reason given"
# stats over a results store made from the schema's golden file (it holds no evaluations, and
# --json still has a document to write).
sqlite3 "$tmp/results.sqlite" <"$src/tests/cpu/store/golden/results_schema.sql" &&
  sqlite3 "$tmp/results.sqlite" "INSERT INTO headroom_meta VALUES ('kind', 'eval-results'), ('schema_version', '4'), ('created_by', 'test')" ||
  fail "no results store to read"
expect 0 "$bin" stats "$tmp/results.sqlite" --json -o "$tmp/stats.json"
grep -q '"sources": \[\]' "$tmp/stats.json" || fail "stats of an empty store: $(cat "$tmp/stats.json")"
expect 2 "$bin" stats "$tmp/results.sqlite" --json -o /dev/full
grep -q 'No space left on device' "$tmp/err" || fail "stats -o /dev/full: no reason given"
"$bin" stats "$tmp/results.sqlite" --json >/dev/full 2>"$tmp/err"
[[ $? == 2 ]] && grep -q 'standard output' "$tmp/err" || fail "stats > /dev/full is not an error"
echo old >"$tmp/big.json"
(ulimit -f 8; trap '' XFSZ; exec "$bin" export "$gpt" -o "$tmp/big.json") 2>"$tmp/err" >/dev/null
[[ $? == 2 ]] && grep -q 'File too large' "$tmp/err" || fail "a write over the file size limit is not an error"
[[ $(cat "$tmp/big.json") == old ]] || fail "a failed write changed the old file"
mkdir -p "$tmp/small"
if mount -t tmpfs -o size=32k tmpfs "$tmp/small" 2>/dev/null; then
  for cmd in "analyze $gpt --json" "project $gpt --speedup 2 --json" "import $gpt" "export $gpt"; do
    echo old >"$tmp/small/out"
    cat /dev/zero >"$tmp/small/filler" 2>/dev/null  # the filesystem is full
    # shellcheck disable=SC2086
    "$bin" $cmd -o "$tmp/small/out" >/dev/null 2>"$tmp/err"
    rc=$?
    left=$(ls -A "$tmp/small" | wc -l)
    content=$(cat "$tmp/small/out")
    [[ $rc == 2 ]] && grep -q 'No space left on device' "$tmp/err" || { umount "$tmp/small"; fail "$cmd on a full disk: exit $rc"; }
    [[ $content == old && $left == 2 ]] || { umount "$tmp/small"; fail "$cmd on a full disk: $left files, content '$content'"; }
    rm -f "$tmp/small/filler"
  done
  umount "$tmp/small"
else
  echo "(no tmpfs could be mounted here: the full-filesystem case is covered by /dev/full and ulimit)"
fi

# No uncaught exception: a cache folder that cannot be made is a message and status 2.
if [[ -x "$(dirname "$bin")/headroom-worker" ]]; then
  expect 2 "$bin" audit "$src/suites/adversarial/problems/relu.py" --device cpu --cache /proc/headroom-cache
  grep -q '^headroom: error: .*/proc/headroom-cache' "$tmp/err" || fail "--cache on /proc: $(cat "$tmp/err")"
  grep -q 'terminate called' "$tmp/err" && fail "--cache on /proc: an uncaught exception"
  # The audit's table to a full device (it needs a Python that imports torch).
  python=${HEADROOM_PYTHON:-/usr/bin/python3}
  if "$python" -c "import torch" 2>/dev/null; then
    "$bin" audit "$src/suites/adversarial/problems/relu.py" --device cpu --python "$python" --cache "$tmp/cache" \
      >/dev/full 2>"$tmp/err"
    [[ $? == 2 ]] && grep -q 'standard output' "$tmp/err" || fail "audit > /dev/full is not an error: $(cat "$tmp/err")"
  fi
fi

# A killed import leaves nothing beside its target, whenever it is killed.
mkdir -p "$tmp/kill"
for delay in 0.05 0.2 0.5; do
  "$bin" import "$gpt" -o "$tmp/kill/run.sqlite" >/dev/null 2>&1 &
  pid=$!
  sleep $delay
  kill -9 $pid 2>/dev/null
  wait $pid 2>/dev/null
  extra=$(ls -A "$tmp/kill" | grep -vx run.sqlite)
  [[ -z $extra ]] || fail "a killed import left $extra"
done
echo OK
