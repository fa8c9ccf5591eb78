// Reading rule files (TOML, format in docs/rules.md) into rules, with errors a user can act on.
#include <toml++/toml.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>

#include "headroom/util/error.hpp"
#include "rule.hpp"

namespace headroom::classify {
namespace {

constexpr std::array known_keys{"id", "prefix",   "contains",   "not_contains", "regex",
                                "on", "category", "provenance", "library",      "note"};

class rule_reader {
 public:
  rule_reader(std::string_view origin, const toml::table& entry, std::size_t index)
      : origin_(origin), entry_(entry), index_(index) {}

  rule read() {
    rule r;
    r.origin = std::string(origin_);
    if (auto id = entry_["id"]; !id) {
      fail("has no `id`");
    } else if (!id.is_string() || id.as_string()->get().empty()) {
      fail("`id` must be a non-empty string");
    } else {
      r.id = id.as_string()->get();
    }
    for (auto&& [key, value] : entry_) {
      if (std::find(known_keys.begin(), known_keys.end(), key.str()) == known_keys.end()) {
        fail(fmt::format("has an unknown key `{}` (line {})", key.str(), value.source().begin.line), r.id);
      }
    }
    r.prefix = strings("prefix", r.id);
    for (auto& s : strings("contains", r.id)) r.contains.emplace_back(std::move(s));
    for (auto& s : strings("not_contains", r.id)) r.not_contains.emplace_back(std::move(s));
    if (auto text = optional_string("regex", r.id)) {
      try {
        r.regex.emplace(*text, "`regex`");
      } catch (const input_error& e) {
        fail(fmt::format("has a bad {}", e.what()), r.id);
      }
    }
    if (r.prefix.empty() && r.contains.empty() && !r.regex) {
      fail("has no matcher (`prefix`, `contains` or `regex`)", r.id);
    }

    const std::string on = optional_string("on", r.id).value_or("either");
    if (on == "either") r.on = match_on::either;
    else if (on == "demangled") r.on = match_on::demangled;
    else if (on == "mangled") r.on = match_on::mangled;
    else fail(fmt::format("has `on = \"{}\"`; expected \"demangled\", \"mangled\" or \"either\"", on), r.id);

    const auto cat_text = optional_string("category", r.id);
    if (!cat_text) fail("has no `category`", r.id);
    const auto cat = parse_category(*cat_text);
    if (!cat) {
      fail(fmt::format("has an unknown category \"{}\" (known: gemm, attention, convolution, "
                       "normalization, softmax, elementwise, reduction, embedding, sort_scan, "
                       "optimizer, communication, memory, other)",
                       *cat_text),
           r.id);
    }
    r.cat = *cat;

    const auto prov_text = optional_string("provenance", r.id);
    if (!prov_text) fail("has no `provenance`", r.id);
    const auto prov = parse_provenance(*prov_text);
    if (!prov) {
      fail(fmt::format("has an unknown provenance \"{}\" (known: vendor_library, framework, "
                       "compiler_generated, custom, communication, runtime)",
                       *prov_text),
           r.id);
    }
    r.prov = *prov;
    r.library = optional_string("library", r.id).value_or("");
    r.note = optional_string("note", r.id).value_or("");
    return r;
  }

 private:
  [[noreturn]] void fail(std::string_view problem, std::string_view id = {}) const {
    const auto line = entry_.source().begin.line;
    if (id.empty()) {
      throw input_error(fmt::format("{}: rule #{} (line {}) {}", origin_, index_ + 1, line, problem));
    }
    throw input_error(fmt::format("{}: rule \"{}\" (#{}, line {}) {}", origin_, id, index_ + 1, line, problem));
  }

  std::optional<std::string> optional_string(std::string_view key, std::string_view id) const {
    auto node = entry_[key];
    if (!node) return std::nullopt;
    if (!node.is_string()) fail(fmt::format("`{}` must be a string", key), id);
    return node.as_string()->get();
  }

  // A matcher is a string or an array of strings ("any of").
  std::vector<std::string> strings(std::string_view key, std::string_view id) const {
    std::vector<std::string> out;
    auto node = entry_[key];
    if (!node) return out;
    auto take = [&](const toml::node& n) {
      if (!n.is_string()) fail(fmt::format("`{}` must be a string or an array of strings", key), id);
      const std::string& s = n.as_string()->get();
      if (s.empty()) fail(fmt::format("`{}` holds an empty string, which would match every name", key), id);
      out.push_back(s);
    };
    if (const toml::array* array = node.as_array()) {
      if (array->empty()) fail(fmt::format("`{}` is an empty array", key), id);
      for (const toml::node& n : *array) take(n);
    } else {
      take(*node.node());
    }
    return out;
  }

  std::string_view origin_;
  const toml::table& entry_;
  std::size_t index_;
};

}  // namespace

std::vector<rule> parse_rules(std::string_view text, std::string_view origin) {
  toml::table doc;
  try {
    doc = toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    throw input_error(fmt::format("{}:{}:{}: not valid TOML: {}", origin, e.source().begin.line,
                                  e.source().begin.column, e.description()));
  }
  for (auto&& [key, value] : doc) {
    if (key.str() != "rule") {
      throw input_error(
          fmt::format("{}: unknown top-level key `{}` (line {}); a rule file holds only "
                      "[[rule]] entries",
                      origin, key.str(), value.source().begin.line));
    }
  }
  std::vector<rule> rules;
  auto entries = doc["rule"];
  if (!entries) return rules;  // an empty file (or one of comments) adds nothing
  const toml::array* array = entries.as_array();
  if (!array || !array->is_array_of_tables()) {
    throw input_error(fmt::format("{}: `rule` must be written as [[rule]] tables", origin));
  }
  std::set<std::string, std::less<>> ids;
  for (std::size_t i = 0; i < array->size(); ++i) {
    rule r = rule_reader(origin, *array->get(i)->as_table(), i).read();
    if (!ids.insert(r.id).second) {
      throw input_error(
          fmt::format("{}: rule \"{}\" (#{}) repeats an id used earlier in the file", origin, r.id, i + 1));
    }
    rules.push_back(std::move(r));
  }
  return rules;
}

}  // namespace headroom::classify
