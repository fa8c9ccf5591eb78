#pragma once
// Files compiled into the binary by cmake/embed.cmake (the default classification rules, the
// problem categories of the join).
#include <span>
#include <string_view>

namespace headroom::util {

struct embedded_file {
  std::string_view name;
  std::string_view contents;
};

// Defined in a generated source: data/rules/*.toml, in file-name order.
std::span<const embedded_file> default_rule_files();
// data/problems/categories.toml.
std::span<const embedded_file> default_problem_category_files();

}  // namespace headroom::util
