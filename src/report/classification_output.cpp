#include "headroom/report/classification_output.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "headroom/util/json.hpp"

namespace headroom::report {
namespace {

// TSV fields cannot hold tabs or newlines; kernel names have none, but stdin might.
std::string tsv_field(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

}  // namespace

void write_classifications(std::ostream& out, const std::vector<std::string>& names, const classify::classifier& c,
                           listing_format format) {
  if (format == listing_format::json) fmt::print(out, "[");
  if (format == listing_format::tsv) fmt::print(out, "category\tprovenance\taddressable\trule\tlibrary\tname\n");
  if (format == listing_format::console) {
    fmt::print(out, "{:<13} {:<18} {:<11} {:<28} {}\n", "category", "provenance", "addressable", "rule", "name");
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto& name = names[i];
    const auto k = c.classify(name);
    const std::string_view yes_no = k.addressable() ? "yes" : "no";
    const std::string_view rule = k.rule.empty() ? "-" : k.rule;
    switch (format) {
      case listing_format::json:
        fmt::print(out,
                   "{}\n  {{\"name\": {}, \"category\": \"{}\", \"provenance\": \"{}\", \"addressable\": {}, "
                   "\"rule\": {}, \"library\": {}}}",
                   i ? "," : "", util::json_string(name), to_string(k.cat), to_string(k.prov),
                   k.addressable() ? "true" : "false", k.rule.empty() ? "null" : util::json_string(k.rule),
                   util::json_string(k.library));
        break;
      case listing_format::tsv:
        fmt::print(out, "{}\t{}\t{}\t{}\t{}\t{}\n", to_string(k.cat), to_string(k.prov), yes_no, rule, k.library,
                   tsv_field(name));
        break;
      case listing_format::console:
        fmt::print(out, "{:<13} {:<18} {:<11} {:<28} {}\n", to_string(k.cat), to_string(k.prov), yes_no, rule, name);
        break;
    }
  }
  if (format == listing_format::json) fmt::print(out, "{}]\n", names.empty() ? "" : "\n");
}

void write_rules(std::ostream& out, const std::vector<classify::rule_summary>& rules, listing_format format) {
  if (format == listing_format::json) {
    fmt::print(out, "[");
    for (std::size_t i = 0; i < rules.size(); ++i) {
      const auto& r = rules[i];
      fmt::print(out,
                 "{}\n  {{\"order\": {}, \"id\": {}, \"origin\": {}, \"category\": \"{}\", \"provenance\": \"{}\", "
                 "\"library\": {}, \"matchers\": {}}}",
                 i ? "," : "", i + 1, util::json_string(r.id), util::json_string(r.origin), to_string(r.cat),
                 to_string(r.prov), util::json_string(r.library), util::json_string(r.matchers));
    }
    fmt::print(out, "{}]\n", rules.empty() ? "" : "\n");
    return;
  }
  if (format == listing_format::tsv) {
    fmt::print(out, "order\tid\torigin\tcategory\tprovenance\tlibrary\tmatchers\n");
  } else {
    fmt::print(out, "{:>3}  {:<28} {:<28} {:<13} {:<18} {:<24} {}\n", "#", "id", "origin", "category", "provenance",
               "library", "matchers");
  }
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const auto& r = rules[i];
    if (format == listing_format::tsv) {
      fmt::print(out, "{}\t{}\t{}\t{}\t{}\t{}\t{}\n", i + 1, r.id, r.origin, to_string(r.cat), to_string(r.prov),
                 r.library, tsv_field(r.matchers));
    } else {
      fmt::print(out, "{:>3}  {:<28} {:<28} {:<13} {:<18} {:<24} {}\n", i + 1, r.id, r.origin, to_string(r.cat),
                 to_string(r.prov), r.library, r.matchers);
    }
  }
}

}  // namespace headroom::report
