// headroom classify: which rule claims a kernel name, and is the kernel addressable?
#include <iostream>
#include <string>
#include <vector>

#include "command.hpp"
#include "headroom/classify/classifier.hpp"
#include "headroom/report/classification_output.hpp"

namespace headroom::cli {
namespace {

struct options {
  std::vector<std::string> rule_files;
  std::vector<std::string> names;
  bool json = false;
  bool tsv = false;
  bool list_rules = false;
};

int run(const options& o) {
  const auto c = classify::classifier::with_user_rules({o.rule_files.begin(), o.rule_files.end()});
  const auto format = o.json  ? report::listing_format::json
                      : o.tsv ? report::listing_format::tsv
                              : report::listing_format::console;
  if (o.list_rules) {
    report::write_rules(std::cout, c.rules(), format);
    return 0;
  }
  std::vector<std::string> names = o.names;
  if (names.empty()) {
    for (std::string line; std::getline(std::cin, line);) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!line.empty()) names.push_back(std::move(line));
    }
  }
  report::write_classifications(std::cout, names, c, format);
  return 0;
}

const command_registration registration{command{
    "classify", 30, [](CLI::App& app) -> std::function<int()> {
      auto o = std::make_shared<options>();
      auto* sub = app.add_subcommand(
          "classify",
          "Classify kernel names: category, provenance, and whether a new kernel could replace them.\n\n"
          "Provenance is vendor library, framework, compiler-generated, custom or communication; the\n"
          "last rule file given with --rules is tried last, the built-in rules after every user file.");
      sub->add_option("names", o->names,
                      "kernel names (mangled or demangled); read one per line from stdin when none are given");
      sub->add_option(
             "--rules", o->rule_files,
             "a rule file (TOML, see docs/rules.md) tried before the built-in rules; repeatable, the first file given is tried first")
          ->allow_extra_args(false);  // one file per --rules, so names can follow
      auto* json = sub->add_flag("--json", o->json, "print a JSON array instead of a table (of names, or of rules)");
      sub->add_flag("--tsv", o->tsv, "print tab-separated values with a header line")->excludes(json);
      sub->add_flag("--list-rules", o->list_rules,
                    "print every rule in the order it is tried, with the file it came from");
      sub->footer(
          "Examples:\n"
          "  headroom classify 'ampere_sgemm_128x64_nn' 'triton_poi_fused_add_0'\n"
          "  headroom classify --tsv < kernel_names.txt\n"
          "  headroom classify --rules my_rules.toml --list-rules\n"
          "The first matching rule wins; a name no rule matches is other/custom, and addressable.");
      return [o] { return run(*o); };
    }}};

}  // namespace
}  // namespace headroom::cli
