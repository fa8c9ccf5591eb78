#pragma once
// Which kernels a benchmark problem's candidates would replace: each problem has a category
// (data/problems/categories.toml), and each category names the classifier's kernel category
// (docs/rules.md) whose addressable kernels its measured speedups apply to.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "headroom/classify/classifier.hpp"

namespace headroom::project {

struct problem_category {
  std::string name;  // as the data file says: "pooling", "gemm"
  classify::category kernels = classify::category::other;  // what it applies to: reduction, gemm
};

class problem_categories {
 public:
  // The file compiled into the binary (KernelBench levels 1-3, DLRM-Bench).
  static problem_categories with_defaults();
  // Entries of a file of the same format; they replace any earlier entry of the same problem or
  // category. Throws input_error naming the file and the entry.
  void add_file(const std::filesystem::path& path);
  void add_text(std::string_view toml, std::string_view origin);

  // A problem's category by its id as `headroom eval` stores it ("level1/19_ReLU"); nullopt when
  // no file names it.
  std::optional<problem_category> of_problem(std::string_view problem) const;
  // A category's name ("pooling", or a kernel category such as "gemm") resolved; nullopt when it is
  // neither a kernel category nor listed under [kernel_categories].
  std::optional<problem_category> category(std::string_view name) const;
  std::size_t problem_count() const { return problems_.size(); }

 private:
  std::map<std::string, std::string, std::less<>> problems_;
  std::map<std::string, classify::category, std::less<>> kernel_categories_;
};

}  // namespace headroom::project
