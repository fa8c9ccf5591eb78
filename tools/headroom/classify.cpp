// headroom classify: which rule claims a kernel name, and is the kernel addressable?
#include <fmt/core.h>

#include <iostream>
#include <string>
#include <vector>

#include "command.hpp"
#include "headroom/util/json.hpp"
#include "headroom/classify/classifier.hpp"

namespace headroom::cli {
namespace {


// TSV fields cannot hold tabs or newlines; kernel names have none, but stdin might.
std::string tsv_field(std::string_view s) {
  std::string out(s);
  for (char& c : out) if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  return out;
}

struct options {
  std::vector<std::string> rule_files;
  std::vector<std::string> names;
  bool json = false;
  bool tsv = false;
  bool list_rules = false;
};

int list_rules(const classify::classifier& c, const options& o) {
  const auto rules = c.rules();
  if (o.tsv) fmt::print("order\tid\torigin\tcategory\tprovenance\tlibrary\tmatchers\n");
  else fmt::print("{:>3}  {:<28} {:<28} {:<13} {:<18} {:<24} {}\n", "#", "id", "origin", "category", "provenance", "library", "matchers");
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const auto& r = rules[i];
    if (o.tsv) {
      fmt::print("{}\t{}\t{}\t{}\t{}\t{}\t{}\n", i + 1, r.id, r.origin, to_string(r.cat), to_string(r.prov),
                 r.library, tsv_field(r.matchers));
    } else {
      fmt::print("{:>3}  {:<28} {:<28} {:<13} {:<18} {:<24} {}\n", i + 1, r.id, r.origin, to_string(r.cat),
                 to_string(r.prov), r.library, r.matchers);
    }
  }
  return 0;
}

int run(const options& o) {
  const auto c = classify::classifier::with_user_rules({o.rule_files.begin(), o.rule_files.end()});
  if (o.list_rules) return list_rules(c, o);

  std::vector<std::string> names = o.names;
  if (names.empty()) {
    for (std::string line; std::getline(std::cin, line);) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!line.empty()) names.push_back(std::move(line));
    }
  }
  if (o.json) fmt::print("[");
  if (o.tsv) fmt::print("category\tprovenance\taddressable\trule\tlibrary\tname\n");
  if (!o.json && !o.tsv) fmt::print("{:<13} {:<18} {:<11} {:<28} {}\n", "category", "provenance", "addressable", "rule", "name");
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto& name = names[i];
    const auto k = c.classify(name);
    const std::string_view yes_no = k.addressable() ? "yes" : "no";
    const std::string_view rule = k.rule.empty() ? "-" : k.rule;
    if (o.json) {
      fmt::print("{}\n  {{\"name\": {}, \"category\": \"{}\", \"provenance\": \"{}\", \"addressable\": {}, "
                 "\"rule\": {}, \"library\": {}}}",
                 i ? "," : "", util::json_string(name), to_string(k.cat), to_string(k.prov),
                 k.addressable() ? "true" : "false", k.rule.empty() ? "null" : util::json_string(k.rule),
                 util::json_string(k.library));
    } else if (o.tsv) {
      fmt::print("{}\t{}\t{}\t{}\t{}\t{}\n", to_string(k.cat), to_string(k.prov), yes_no, rule, k.library,
                 tsv_field(name));
    } else {
      fmt::print("{:<13} {:<18} {:<11} {:<28} {}\n", to_string(k.cat), to_string(k.prov), yes_no, rule, name);
    }
  }
  if (o.json) fmt::print("{}]\n", names.empty() ? "" : "\n");
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
      sub->add_option("names", o->names, "kernel names (mangled or demangled); read one per line from stdin when none are given");
      sub->add_option("--rules", o->rule_files,
                      "a rule file (TOML, see docs/rules.md) tried before the built-in rules; repeatable, the first file given is tried first")
          ->allow_extra_args(false);  // one file per --rules, so names can follow
      auto* json = sub->add_flag("--json", o->json, "print a JSON array instead of a table");
      sub->add_flag("--tsv", o->tsv, "print tab-separated values with a header line")->excludes(json);
      sub->add_flag("--list-rules", o->list_rules, "print every rule in the order it is tried, with the file it came from");
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
