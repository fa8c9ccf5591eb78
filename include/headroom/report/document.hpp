#pragma once
// `headroom report`: analysed workloads, measured speedups and their join, rendered as one
// self-contained HTML file (inline SVG, no script, no network) or as Markdown with the plots as SVG
// files. This is the library entry point; `headroom report` reads files into a document, and other
// callers (a study over many runs) build one from what they already hold.
#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "headroom/project/join.hpp"
#include "headroom/project/measured_speedups.hpp"

namespace headroom::report {

struct workload {
  std::string name;  // "h200-dlrm-train"
  std::vector<std::string> files;  // what it was read from
  project::measured_projection projection;  // its analysis (with attributed wall clock) and joins
};

// A section the report does not compute itself: profiler overhead, replay projections, anything a
// caller measured. Tables and an optional bar chart, placed under a workload or at the end.
struct section_table {
  std::string caption;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;  // each as wide as columns
};

struct section_bar {
  std::string label;
  double value = 0;
  std::optional<double> low;  // an interval, when known
  std::optional<double> high;
};

struct extra_section {
  std::string kind;  // "replay", "profiler-overhead", ...: a CSS class and an anchor
  std::string title;
  std::string workload;  // the workload it belongs under ("" or an unknown name: the end of the report)
  bool lead = false;  // opens the report, before its summary (the figure a reader came for)
  std::vector<std::string> paragraphs;
  std::vector<section_table> tables;
  std::string bar_label;  // the bar chart's axis label with its unit ("end-to-end speedup (x)")
  std::vector<section_bar> bars;
  // A range drawn across the bar chart as a shaded band (a published range beside measured bars).
  std::optional<section_bar> band;  // label, low and high; value unused
};

struct document {
  std::string title = "headroom report";
  std::string generator = "headroom";  // "headroom 0.1.0": printed in the footer
  std::vector<workload> workloads;
  std::vector<project::measured_source> sources;
  project::join_options join;  // as the workloads' joins were made (for the method text)
  std::vector<extra_section> sections;
};

void write_html(std::ostream& out, const document& d);

// Saves one plot (its name, such as "h200-dlrm-train-wall-clock", and its SVG text) and returns the
// link to write into the Markdown; returning "" leaves the plot out.
using plot_sink = std::function<std::string(std::string_view name, const std::string& svg)>;
void write_markdown(std::ostream& out, const document& d, const plot_sink& save_plot);

// Writes the document to `path` through util::output_file (whole or not at all, never through a link
// or over one of `inputs`), its folder created when missing: HTML, or Markdown with each plot as an
// SVG file in "<path without extension>-plots/".
// Throws input_error when a file cannot be written.
enum class report_format { html, markdown };
void write_report_file(const document& d, const std::filesystem::path& path, report_format format,
                       std::span<const std::filesystem::path> inputs = {});

// An extra section from a JSON file (docs/report.md, "Extra sections"). Throws input_error naming
// the file and the problem.
extra_section read_section_json(const std::filesystem::path& file);

}  // namespace headroom::report
