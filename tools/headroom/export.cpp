// headroom export TRACE... -o OUT.json [--rules FILE]
#include <filesystem>
#include <iostream>
#include <vector>

#include "command.hpp"
#include "headroom/classify/classifier.hpp"
#include "headroom/report/trace_output.hpp"
#include "headroom/util/output_file.hpp"
#include "trace_options.hpp"

namespace headroom::cli {
namespace {

struct export_args : inputs_args {
  std::filesystem::path output;
  std::vector<std::filesystem::path> rules;
};

int run_export(const export_args& args) {
  const auto classifier = classify::classifier::with_user_rules(args.rules);
  util::output_file file(args.output, args.traces);
  const auto merged = read_inputs(args, {});
  report::write_classified_chrome_trace(file.stream(), merged, classifier);
  file.commit();
  report::write_export_summary(std::cout, merged, args.output);
  return 0;
}

const command_registration registration{command{
    "export", 70, [](CLI::App& app) -> std::function<int()> {
      auto args = std::make_shared<export_args>();
      auto* sub = app.add_subcommand("export", "Write traces as Chrome/Perfetto JSON, kernels coloured by class");
      sub->description(
          "Write traces as Chrome/Perfetto JSON, kernels coloured by class.\n\n"
          "Reads one or more traces and writes one Chrome trace-event JSON file that Perfetto and\n"
          "chrome://tracing open. Device work is shown per process and GPU, one row per stream;\n"
          "each kernel carries its classification (category, provenance, whether it is addressable,\n"
          "the rule that matched) and is coloured by provenance.");
      add_inputs_options(sub, *args);
      sub->add_option("-o,--output", args->output,
                      "JSON file to write (replaced whole or not at all; never one of the inputs)")
          ->required();
      sub->add_option("--rules", args->rules, "Extra classification rules (TOML); tried before the built-in ones")
          ->expected(1)
          ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
      sub->footer(
          "Examples:\n"
          "  headroom export run.sqlite -o run.json\n"
          "  headroom export rank0.pt.trace.json.gz rank1.pt.trace.json.gz -o job.json --rules my_kernels.toml");
      return [args] { return run_export(*args); };
    }}};

}  // namespace
}  // namespace headroom::cli
