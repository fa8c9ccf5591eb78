#pragma once
// The report's tables, built once from the document and rendered as HTML or Markdown (private to
// src/report).
#include <string>
#include <vector>

#include "headroom/report/document.hpp"

namespace headroom::report::detail {

struct cell {
  std::string text;
  std::string title;  // the full text when `text` is shortened (HTML shows it on hover)
  std::string swatch;  // a category colour shown beside the text
  bool numeric = false;
  bool code = false;  // a kernel name: set in a fixed-width font, broken anywhere
};

struct table {
  std::string id;  // a CSS/test hook: "top-kernels"
  std::string caption;
  std::vector<std::string> columns;
  std::vector<std::vector<cell>> rows;
};

// "8.63% [6.10%, 11.02%]" (no interval: just the figure); "n/a" when unavailable.
std::string estimate_text(const project::estimate& e);

table workloads_table(const document& d);
table estimates_table(const document& d);
table shares_table(const workload& w);
table reference_table(const workload& w);
table top_kernels_table(const workload& w);
table join_categories_table(const project::source_join& j);
table join_estimates_table(const project::source_join& j);
table source_figures_table(const project::measured_source& s);
table published_rows_table(const project::measured_source& s);
table extra_table(const section_table& t, std::size_t index);

}  // namespace headroom::report::detail
