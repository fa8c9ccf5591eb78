#!/usr/bin/env bash
# The module graph check (cmake/check_module_graph.cmake) on a small tree of its own: an include of
# a module not listed, an include of another module's private header and <Python.h> outside the
# worker's Python gateway each fail it, naming the file and the rule; the same tree without them
# passes. $2 source folder.
set -uo pipefail
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir -p "$tmp/src/base" "$tmp/src/top" "$tmp/include/headroom/base" "$tmp/include/headroom/top" "$tmp/tools"
echo '#pragma once' >"$tmp/include/headroom/base/api.hpp"
echo '#pragma once' >"$tmp/include/headroom/top/api.hpp"
echo '#pragma once' >"$tmp/src/base/private.hpp"
printf '#include "headroom/base/api.hpp"\n#include "private.hpp"\n' >"$tmp/src/base/a.cpp"
printf '#include "headroom/base/api.hpp"\n#include "headroom/top/api.hpp"\n' >"$tmp/src/top/b.cpp"
printf '#include "headroom/top/api.hpp"\n#include <vector>\n' >"$tmp/tools/main.cpp"
check() { cmake -DSOURCE_DIR="$tmp" -DMODULES=base,top,tools -DDEPS_base= -DDEPS_top=base -DDEPS_tools=base,top \
  -P "$src/cmake/check_module_graph.cmake" >"$tmp/out" 2>&1; }
check || { cat "$tmp/out"; fail "a tree that keeps the graph failed the check"; }

printf '#include "headroom/top/api.hpp"\n' >>"$tmp/src/base/a.cpp"  # base may not include top
printf '#include "private.hpp"\n' >>"$tmp/tools/main.cpp"           # nor anyone base's private header
check && fail "two violations passed the check"
tr -s '\n ' '  ' <"$tmp/out" >"$tmp/flat"  # CMake wraps its messages
grep -q 'src/base/a.cpp: #include "headroom/top/api.hpp": module base may not include module top' "$tmp/flat" ||
  { cat "$tmp/out"; fail "the unlisted module is not named"; }
grep -q 'tools/main.cpp: #include "private.hpp": src/base/private.hpp is private to module base' "$tmp/flat" ||
  { cat "$tmp/out"; fail "the private header is not named"; }
grep -q '2 include(s) break the module graph' "$tmp/flat" || fail "the count is wrong"

printf '#include <Python.h>\n' >"$tmp/src/base/c.cpp"  # CPython outside the worker's Python gateway
check && fail "three violations passed the check"
tr -s '\n ' '  ' <"$tmp/out" >"$tmp/flat"
grep -q "src/base/c.cpp: #include <Python.h>: only the worker's Python gateway" "$tmp/flat" ||
  { cat "$tmp/out"; fail "CPython outside the gateway is not named"; }
grep -q '3 include(s) break the module graph' "$tmp/flat" || fail "the count is wrong"
echo OK
