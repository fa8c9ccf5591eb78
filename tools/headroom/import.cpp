// headroom import TRACE... -o STORE.sqlite
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "command.hpp"
#include "headroom/report/trace_output.hpp"
#include "headroom/trace/reader.hpp"
#include "headroom/trace/store.hpp"
#include "headroom/util/output_file.hpp"
#include "trace_options.hpp"

namespace headroom::cli {
namespace {

struct import_args : inputs_args {
  std::filesystem::path output;
  bool no_api_calls = false;
  bool no_ranges = false;
  bool no_geometry = false;
};

int run_import(const import_args& args) {
  trace::read_options options;
  options.api_calls = !args.no_api_calls;
  options.ranges = !args.no_ranges;
  options.launch_geometry = !args.no_geometry;
  util::output_file file(args.output, args.traces);
  const auto merged = read_inputs(args, options);
  trace::write_store(merged, file.stream());
  file.commit();
  report::write_store_summary(std::cout, merged, args.output, args.traces.size());
  report::write_reader_warnings(std::cerr, merged);
  return 0;
}

const command_registration registration{command{
    "import", 50, [](CLI::App& app) -> std::function<int()> {
      auto args = std::make_shared<import_args>();
      auto* sub = app.add_subcommand("import", "Read traces (Kineto JSON, nsys SQLite, stores) into one trace store");
      sub->description(
          "Read traces (Kineto JSON, nsys SQLite, stores) into one trace store.\n\n"
          "Reads one or more traces and writes them, merged, into a headroom trace store: a SQLite file\n"
          "with a documented, versioned schema (docs/trace-store.md) that every other command reads\n"
          "faster than the original. Several files (one per rank, say) become one store with one\n"
          "process entry per traced process.");
      add_inputs_options(sub, *args);
      sub->add_option("-o,--output", args->output,
                      "Store to write (replaced whole or not at all; never one of the inputs)")
          ->required();
      sub->add_flag("--no-api-calls", args->no_api_calls, "Leave out CUDA runtime and driver calls");
      sub->add_flag("--no-ranges", args->no_ranges, "Leave out annotations, NVTX ranges and marks");
      sub->add_flag("--no-geometry", args->no_geometry, "Leave out kernel launch geometry (grid, block, registers)");
      sub->footer(
          "Examples:\n"
          "  headroom import rank0.pt.trace.json.gz -o run.sqlite\n"
          "  headroom import trace_rank*.json.gz -o job.sqlite          # one store for all ranks\n"
          "  nsys export --type sqlite report.nsys-rep && headroom import report.sqlite -o run.sqlite");
      return [args] { return run_import(*args); };
    }}};

}  // namespace
}  // namespace headroom::cli
