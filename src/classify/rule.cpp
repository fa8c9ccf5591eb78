// Matching one rule against one spelling of a kernel name.
#include "rule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <type_traits>

namespace headroom::classify {
namespace {

// CUPTI and Kineto print a kernel's return type ("void ", or a long std::enable_if<...>::type for
// SFINAE'd templates); a prefix names the kernel itself, so it is also tried after the first
// space that lies outside template brackets.
std::string_view without_return_type(std::string_view text) {
  if (text.starts_with("void ")) return text.substr(5);
  int depth = 0;
  const std::size_t limit = std::min<std::size_t>(text.size(), 4096);
  for (std::size_t i = 0; i < limit; ++i) {
    const char c = text[i];
    if (c == '<') ++depth;
    else if (c == '>') --depth;
    else if (c == '(' && depth == 0) return text;  // the parameter list: no return type
    else if (c == ' ' && depth == 0) return text.substr(i + 1);
  }
  return text;
}

bool any_prefix(const std::vector<std::string>& prefixes, std::string_view text) {
  const std::string_view bare = without_return_type(text);
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](const std::string& p) { return text.starts_with(p) || bare.starts_with(p); });
}

bool any_found(const std::vector<needle>& needles, const indexed_text& text) {
  return std::any_of(needles.begin(), needles.end(), [&](const needle& n) { return n.found_in(text); });
}

template <class T>
void append_list(std::string& out, std::string_view key, const std::vector<T>& values) {
  if (values.empty()) return;
  if (!out.empty()) out += ' ';
  out += key;
  out += '=';
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += '|';
    if constexpr (std::is_same_v<T, needle>) out += values[i].text;
    else out += values[i];
  }
}

}  // namespace

indexed_text::indexed_text(std::string_view t) : text(t) {
  for (std::size_t i = 1; i < t.size(); ++i) {
    pairs.set(slot(static_cast<unsigned char>(t[i - 1]), static_cast<unsigned char>(t[i])));
  }
}

needle::needle(std::string s) : text(std::move(s)) {
  for (std::size_t i = 1; i < text.size(); ++i) {
    slots.push_back(static_cast<std::uint16_t>(
        indexed_text::slot(static_cast<unsigned char>(text[i - 1]), static_cast<unsigned char>(text[i]))));
  }
}

bool needle::found_in(const indexed_text& t) const {
  for (const auto s : slots) {
    if (!t.pairs.test(s)) return false;
  }
  return t.text.find(text) != std::string_view::npos;
}

bool rule::matches(const indexed_text& indexed) const {
  const std::string_view text = indexed.text;
  // Cheap literal tests first, so a regex only runs on names that already look right.
  if (!prefix.empty() && !any_prefix(prefix, text)) return false;
  if (!contains.empty() && !any_found(contains, indexed)) return false;
  if (!not_contains.empty() && any_found(not_contains, indexed)) return false;
  if (regex && !regex->search(text)) return false;
  return true;
}

std::string rule::describe_matchers() const {
  std::string out;
  append_list(out, "prefix", prefix);
  append_list(out, "contains", contains);
  if (regex) append_list(out, "regex", std::vector<std::string>{regex->pattern()});
  append_list(out, "not_contains", not_contains);
  if (on == match_on::demangled) out += " on=demangled";
  if (on == match_on::mangled) out += " on=mangled";
  return out;
}

}  // namespace headroom::classify
