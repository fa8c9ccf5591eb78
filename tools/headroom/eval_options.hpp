#pragma once
// Options shared by eval, audit and reverify: where the worker and Python are, the device, the
// checks' and the timing loop's settings.
#include <CLI/CLI.hpp>

#include "headroom/eval/options.hpp"
#include "headroom/eval/orchestrator.hpp"

namespace headroom::cli {

struct eval_cli {
  eval::eval_options options;
  std::string db = "results.sqlite";
  int compile_timeout = 600, load_timeout = 120, run_timeout = 120;
  double memory_budget_gib = 0;  // 0: from the memory available (memory_budget.hpp)
};

// Adds --device, --python, --cache, --trials and the timing and timeout options to `sub`.
void add_eval_options(CLI::App* sub, eval_cli& e, bool timing);
// Fills what the options leave: the worker and allocator paths next to this executable, the
// default Python, timeouts. Throws input_error when the worker is missing.
void finish_eval_options(eval_cli& e);
// The progress line of each finished evaluation on stderr, with the run's pace from now on
// (report/eval_pace.hpp).
eval::eval_callback print_progress();

}  // namespace headroom::cli
