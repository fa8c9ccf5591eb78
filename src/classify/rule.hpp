#pragma once
// One classification rule as loaded from a rule file, and how it matches a name. Private to
// src/classify: users see rules through rule files and classifier::rules().
#include <bitset>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "headroom/classify/classifier.hpp"
#include "headroom/util/regex.hpp"

namespace headroom::classify {

// Which spelling of a name a rule looks at.
enum class match_on : std::uint8_t { either, demangled, mangled };

// The byte pairs present in a name (6 bits of each byte, so 4096 slots). A needle with a pair the
// name lacks cannot occur in it; this skips almost every substring search, which otherwise
// dominates classification time on names hundreds of characters long.
struct indexed_text {
  explicit indexed_text(std::string_view t);
  static std::size_t slot(unsigned char a, unsigned char b) { return ((a & 63u) << 6) | (b & 63u); }
  std::string_view text;
  std::bitset<4096> pairs;
};

// A `contains` or `not_contains` string with its byte-pair slots.
struct needle {
  explicit needle(std::string s);
  bool found_in(const indexed_text& t) const;
  std::string text;
  std::vector<std::uint16_t> slots;
};

struct rule {
  std::string id;
  std::string origin;
  // Matchers: every kind that is present must match (within a kind, any entry may match).
  std::vector<std::string> prefix;
  std::vector<needle> contains;
  std::vector<needle> not_contains;
  std::optional<util::regex> regex;
  match_on on = match_on::either;
  category cat = category::other;
  provenance prov = provenance::custom;
  std::string library;
  std::string note;

  // `text` is one spelling of the kernel name.
  bool matches(const indexed_text& text) const;
  std::string describe_matchers() const;
};

// Parses a rule file; throws input_error naming `origin`, the rule and the problem.
std::vector<rule> parse_rules(std::string_view toml, std::string_view origin);

}  // namespace headroom::classify
