#include "trace_options.hpp"

#include <fmt/format.h>

#include "headroom/util/error.hpp"

namespace headroom::cli {

void add_inputs_options(CLI::App* sub, inputs_args& a) {
  // Existence is checked by the readers, so a missing file is an input error (exit 2) with the
  // reader's message rather than CLI11's.
  sub->add_option("traces", a.traces,
                  "Kineto JSON (.json, .json.gz), Nsight Systems SQLite or headroom store files, or pipes of them")
      ->required();
  sub->add_flag("--allow-partial", a.allow_partial,
                "use what can be read of a trace cut short or partly damaged; every output then says what was lost "
                "(without it, such a trace is an error: docs/method.md, \"Partial input\")");
}

void add_trace_options(CLI::App* sub, trace_args& a) {
  add_inputs_options(sub, a);
  sub->add_option("--window", a.window, "steady (default), whole, or START:END from the first activity (12.5ms:40ms)");
  sub->add_option("--step-marker", a.step_marker,
                  "regex (RE2) over range names that mark one step (default: ProfilerStep#N, step N, iteration N)");
  sub->add_option("--warmup", a.warmup,
                  "steps or repeating units skipped at the start, when at least two remain (default 1)")
      ->check(CLI::NonNegativeNumber);
  // One file per --rules, so that a trace after it is not taken for a rule file.
  sub->add_option("--rules", a.rules,
                  "extra classification rules (TOML, as data/rules/*.toml); repeatable; they take precedence")
      ->allow_extra_args(false);
  sub->add_option("-o,--output", a.output,
                  "write to FILE instead of standard output (replaced whole or not at all; never one of the inputs)");
}

trace::trace read_inputs(const inputs_args& a, trace::read_options options) {
  trace::inputs_options o;
  o.read = std::move(options);
  o.allow_partial = a.allow_partial;
  auto t = trace::read_traces(a.traces, o);
  for (const auto& w : t.warnings) {
    if (w.lost) fmt::print(stderr, "headroom: warning: partial input: {}\n", w.what);
  }
  return t;
}

analyze::analyze_options to_analyze_options(const trace_args& a) {
  analyze::analyze_options o;
  analyze::parse_window_spec(a.window, o);
  if (!a.step_marker.empty()) o.step_marker = a.step_marker;
  o.warmup_steps = a.warmup;
  return o;
}

}  // namespace headroom::cli
