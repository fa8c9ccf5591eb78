#!/usr/bin/env bash
# The C++ sources follow .clang-format: clang-format 14 (Debian's, which scripts/install-deps
# installs) would change none of the tracked .cpp, .hpp, .h and .cu files. To format a change:
#   git ls-files '*.cpp' '*.hpp' '*.h' '*.cu' | xargs clang-format-14 -i
set -uo pipefail
src=$2
format=$(command -v clang-format-14 || true)
[[ -n $format ]] || { echo "FAIL: clang-format-14 is not installed (scripts/install-deps installs it)"; exit 1; }
cd "$src" || exit 1
git rev-parse --git-dir >/dev/null 2>&1 || { echo "skipped: $src is not a git checkout"; exit 77; }
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.cu')
((${#files[@]} > 0)) || { echo "FAIL: no C++ files found in $src"; exit 1; }
if ! out=$("$format" --dry-run -Werror "${files[@]}" 2>&1); then
  echo "$out" | grep -E '^[^ ].*: error:' | cut -d: -f1 | sort -u | sed 's/^/not formatted: /'
  echo "FAIL: these files differ from clang-format-14's output (.clang-format); format them as the header says"
  exit 1
fi
echo "ok: ${#files[@]} files as clang-format-14 formats them"
