#!/usr/bin/env bash
# How fast `headroom classify` classifies real kernel names, against a baseline build, in one run:
# the distinct names of tests/data (H200 traces and the hand-labelled set, some thousands of
# characters long), each made distinct again with a numeric suffix until there are N, classified
# by each binary in turn, R rounds interleaved. Prints each binary's median names per second of
# CPU time (user + system) and the ratio to the baseline.
#
#   bench/classify_throughput.sh HEADROOM [BASELINE_HEADROOM] [N] [R]   (default N 200000, R 5)
set -euo pipefail
cd "$(dirname "$0")/.."
new=${1:?usage: classify_throughput.sh HEADROOM [BASELINE_HEADROOM] [N] [R]}
old=${2:-} n=${3:-200000} rounds=${4:-5}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/headroom-classify-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
{ grep -v '^#' tests/data/h200_kernel_names.tsv | cut -f2; grep -v '^#' tests/data/kernel_names_expected.tsv | cut -f1; } |
  sort -u >"$tmp/base.txt"
awk -v n="$n" '{ names[NR] = $0 } END { for (i = 0; i < n; i++) print names[i % NR + 1] (i >= NR ? "_" i : "") }' \
  "$tmp/base.txt" >"$tmp/names.txt"
bins=("$new"); [[ -n $old ]] && bins+=("$old")
for ((r = 1; r <= rounds; r++)); do
  for i in "${!bins[@]}"; do
    /usr/bin/time -f "%U %S" -o "$tmp/time.$i.$r" "${bins[$i]}" classify --tsv <"$tmp/names.txt" >"$tmp/out.$i"
  done
done
[[ -z $old ]] || cmp -s "$tmp/out.0" "$tmp/out.1" || echo "note: the two builds classify some names differently" >&2
python3 - "$tmp" "$rounds" "$n" "$(wc -l <"$tmp/base.txt")" "$(awk '{ print length }' "$tmp/base.txt" | sort -n | tail -1)" "${bins[@]}" <<'PY'
import statistics, sys
tmp, rounds, n, distinct, longest, bins = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6:]
print(f"{n} names ({distinct} distinct real names, the longest {longest} characters, made unique); "
      f"medians of {rounds} rounds")
print("| build | CPU s | names per second | vs baseline |")
print("| --- | ---: | ---: | ---: |")
cpus = [statistics.median(sum(map(float, open(f"{tmp}/time.{i}.{r}").read().split())) for r in range(1, rounds + 1))
        for i in range(len(bins))]
for b, cpu in zip(bins, cpus):
    print(f"| {b} | {cpu:.2f} | {n / cpu:,.0f} | {cpus[-1] / cpu:.2f}x |")
PY
