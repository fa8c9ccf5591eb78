// headroom export TRACE... -o OUT.json [--rules FILE]
#include <fmt/core.h>

#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

#include "command.hpp"
#include "headroom/classify/classifier.hpp"
#include "headroom/trace/chrome_writer.hpp"
#include "headroom/trace/reader.hpp"
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

  // One classification per distinct name: a trace repeats a few hundred names millions of times.
  std::unordered_map<trace::string_id, classify::classification> by_name;
  std::vector<const classify::classification*> classes(merged.activities.size());
  const classify::classification memory{classify::category::memory, classify::provenance::runtime, "", ""};
  for (std::size_t i = 0; i < merged.activities.size(); ++i) {
    const auto& a = merged.activities[i];
    if (a.kind != trace::activity_kind::kernel) {
      classes[i] = &memory;
      continue;
    }
    auto it = by_name.find(a.name);
    if (it == by_name.end()) it = by_name.emplace(a.name, classifier.classify(merged.strings[a.name])).first;
    classes[i] = &it->second;
  }

  trace::chrome_options chrome;
  chrome.label = [&](std::size_t i) { return classify::to_string(classes[i]->prov); };
  chrome.args = [&](std::size_t i) {
    const auto& c = *classes[i];
    std::vector<std::pair<std::string_view, std::string_view>> out = {
        {"category", classify::to_string(c.cat)},
        {"provenance", classify::to_string(c.prov)},
        {"addressable", c.addressable() ? "yes" : "no"},
    };
    if (!c.rule.empty()) out.emplace_back("rule", c.rule);
    if (!c.library.empty()) out.emplace_back("library", c.library);
    return out;
  };
  trace::write_chrome_trace(merged, file.stream(), chrome);
  file.commit();
  fmt::print("wrote {}: {} device activities, {} API calls, {} ranges, coloured by provenance\n",
             args.output.string(), merged.activities.size(), merged.api_calls.size(), merged.ranges.size());
  fmt::print("open it in https://ui.perfetto.dev or chrome://tracing\n");
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
      sub->add_option("-o,--output", args->output, "JSON file to write (replaced whole or not at all; never one of the inputs)")
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
