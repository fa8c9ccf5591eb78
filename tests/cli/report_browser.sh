#!/usr/bin/env bash
# The report of the bundled traces as a reader sees it, in Debian's headless Chromium (report_browser.py
# says what is checked). $1 binary, $2 source dir. The screenshot and the PDF print stay in
# build/<preset>/report-browser/ for a person to look at.
set -euo pipefail
bin=$1
src=$2
if ! command -v chromium >/dev/null || ! [[ -x /usr/bin/chromedriver ]] || ! /usr/bin/python3 -c 'import selenium' 2>/dev/null; then
  echo "SKIP: needs chromium, chromium-driver and python3-selenium (scripts/install-deps installs them)"
  exit 77
fi
out=$(cd "$(dirname "$bin")/.." && pwd)/report-browser
rm -rf "$out"
mkdir -p "$out/figures"
traces=("$src/tests/data/h200-gpt-train.json.gz" "$src/tests/data/h200-dlrm-train.json.gz")
speedups=$src/data/results/published-figures.csv
"$bin" report "${traces[@]}" "$speedups" -o "$out/report.html"
for t in "${traces[@]}"; do
  name=$(basename "$t" .json.gz)
  "$bin" analyze --json "$t" -o "$out/figures/$name.analysis.json"
  "$bin" project --json "$t" --speedups "$speedups" -o "$out/figures/$name.projection.json"
done
/usr/bin/python3 "$src/tests/cli/report_browser.py" "$out/report.html" "$out/figures" "$out"
