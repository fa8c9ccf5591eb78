#include "headroom/project/problem_categories.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include "headroom/util/embedded.hpp"
#include "headroom/util/error.hpp"
#include "headroom/util/read_file.hpp"

namespace headroom::project {

problem_categories problem_categories::with_defaults() {
  problem_categories c;
  for (const auto& f : util::default_problem_category_files()) c.add_text(f.contents, f.name);
  return c;
}

void problem_categories::add_file(const std::filesystem::path& path) {
  const auto text = util::read_file(path);
  if (!text) throw input_error(fmt::format("cannot read problem categories '{}'", path.string()));
  add_text(*text, path.string());
}

void problem_categories::add_text(std::string_view toml_text, std::string_view origin) {
  toml::table doc;
  try {
    doc = toml::parse(toml_text, origin);
  } catch (const toml::parse_error& e) {
    throw input_error(
        fmt::format("{}:{}:{}: {}", origin, e.source().begin.line, e.source().begin.column, e.description()));
  }
  for (const auto& [key, node] : doc) {
    if (key != "kernel_categories" && key != "problems") {
      throw input_error(
          fmt::format("{}: unknown table [{}] (expected [kernel_categories] and [problems])", origin, key.str()));
    }
    if (!node.is_table()) throw input_error(fmt::format("{}: '{}' must be a table", origin, key.str()));
  }
  // Kernel categories first: [problems] below may use a name defined in the same file.
  if (const auto* kc = doc["kernel_categories"].as_table()) {
    for (const auto& [name, value] : *kc) {
      const auto* text = value.as_string();
      const auto cat = text ? classify::parse_category(text->get()) : std::nullopt;
      if (!cat) {
        throw input_error(fmt::format(
            "{}: [kernel_categories] {}: expected the name of a kernel category (docs/rules.md)", origin, name.str()));
      }
      kernel_categories_[std::string(name.str())] = *cat;
    }
  }
  if (const auto* ps = doc["problems"].as_table()) {
    for (const auto& [id, value] : *ps) {
      const auto* text = value.as_string();
      if (!text || !category(text->get())) {
        throw input_error(
            fmt::format("{}: [problems] '{}': expected a kernel category or one listed under "
                        "[kernel_categories]",
                        origin, id.str()));
      }
      problems_[std::string(id.str())] = text->get();
    }
  }
}

std::optional<problem_category> problem_categories::of_problem(std::string_view problem) const {
  const auto it = problems_.find(problem);
  if (it == problems_.end()) return std::nullopt;
  return category(it->second);
}

std::optional<problem_category> problem_categories::category(std::string_view name) const {
  if (const auto it = kernel_categories_.find(name); it != kernel_categories_.end()) {
    return problem_category{std::string(name), it->second};
  }
  if (const auto cat = classify::parse_category(name)) return problem_category{std::string(name), *cat};
  return std::nullopt;
}

}  // namespace headroom::project
