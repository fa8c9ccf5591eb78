// Names of categories and provenances as they appear in rule files, tables and JSON.
#include <array>

#include "headroom/classify/classifier.hpp"

namespace headroom::classify {
namespace {
constexpr std::array<std::string_view, category_count> category_names{
    "gemm",      "attention", "convolution", "normalization", "softmax", "elementwise", "reduction",
    "embedding", "sort_scan", "optimizer",   "communication", "memory",  "other"};
constexpr std::array<std::string_view, provenance_count> provenance_names{
    "vendor_library", "framework", "compiler_generated", "custom", "communication", "runtime"};
}  // namespace

bool is_addressable(provenance p) {
  return p == provenance::framework || p == provenance::compiler_generated || p == provenance::custom;
}

std::string_view to_string(category c) { return category_names[static_cast<std::size_t>(c)]; }
std::string_view to_string(provenance p) { return provenance_names[static_cast<std::size_t>(p)]; }

std::optional<category> parse_category(std::string_view s) {
  for (std::size_t i = 0; i < category_names.size(); ++i) {
    if (category_names[i] == s) return static_cast<category>(i);
  }
  return std::nullopt;
}

std::optional<provenance> parse_provenance(std::string_view s) {
  for (std::size_t i = 0; i < provenance_names.size(); ++i) {
    if (provenance_names[i] == s) return static_cast<provenance>(i);
  }
  return std::nullopt;
}

}  // namespace headroom::classify
