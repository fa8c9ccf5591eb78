#include "figures.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include "headroom/util/error.hpp"

namespace headroom::study {
namespace {

using simdjson::dom::element;

element load(simdjson::dom::parser& parser, const std::filesystem::path& path) {
  element doc;
  if (auto error = parser.load(path.string()).get(doc); error != simdjson::SUCCESS) {
    throw input_error(fmt::format("{}: {}", path.string(), simdjson::error_message(error)));
  }
  return doc;
}

std::int64_t integer(element e, std::string_view key) {
  std::int64_t v = 0;
  return e[key].get(v) == simdjson::SUCCESS ? v : 0;
}

std::string text(element e, std::string_view key) {
  std::string_view v;
  return e[key].get(v) == simdjson::SUCCESS ? std::string(v) : std::string();
}

std::optional<double> number(element e, std::string_view key) {
  double v = 0;
  if (e[key].get(v) == simdjson::SUCCESS) return v;
  return std::nullopt;
}

}  // namespace

run_figures figures_of(const analyze::analysis_report& r) {
  run_figures f;
  const auto& t = r.total;
  f.wall = t.wall;
  f.busy = t.busy_all;
  f.kernel_busy = t.busy_kernels;
  f.addressable = t.busy_addressable;
  f.addressable_exclusive = t.busy_addressable_exclusive;
  f.gemm = t.by_category[static_cast<int>(classify::category::gemm)].busy;
  f.attention = t.by_category[static_cast<int>(classify::category::attention)].busy;
  f.timelines = static_cast<int>(r.timelines.size());
  if (!r.timelines.empty()) {
    const auto& first = r.timelines.front();
    f.window_source = std::string(analyze::to_string(first.win.source));
    f.window_description = first.win.description;
    f.steps = first.win.steps;
    f.device = first.label;
  }
  return f;
}

run_figures read_analysis_figures(const std::filesystem::path& analysis_json) {
  simdjson::dom::parser parser;
  const auto doc = load(parser, analysis_json);
  if (text(doc, "kind") != "analysis") {
    throw input_error(fmt::format("{}: not `headroom analyze --json` output", analysis_json.string()));
  }
  element total;
  simdjson::dom::array timelines;
  if (doc["total"].get(total) != simdjson::SUCCESS || doc["timelines"].get(timelines) != simdjson::SUCCESS) {
    throw input_error(fmt::format("{}: no \"total\" or \"timelines\"", analysis_json.string()));
  }
  run_figures f;
  f.wall = integer(total, "wall_ns");
  f.busy = integer(total, "busy_ns");
  f.kernel_busy = integer(total, "kernel_busy_ns");
  f.addressable = integer(total, "addressable_busy_ns");
  f.addressable_exclusive = integer(total, "addressable_exclusive_busy_ns");
  element category;
  if (total["by_category"]["gemm"].get(category) == simdjson::SUCCESS) f.gemm = integer(category, "busy_ns");
  if (total["by_category"]["attention"].get(category) == simdjson::SUCCESS) f.attention = integer(category, "busy_ns");
  f.timelines = static_cast<int>(timelines.size());
  if (f.timelines > 0) {
    const element first = timelines.at(0);
    element window;
    if (first["window"].get(window) == simdjson::SUCCESS) {
      f.window_source = text(window, "source");
      f.window_description = text(window, "description");
      f.steps = static_cast<int>(integer(window, "steps"));
    }
    f.device = text(first, "label");
  }
  return f;
}

harness_figures read_harness(const std::filesystem::path& run_json) {
  simdjson::dom::parser parser;
  const auto doc = load(parser, run_json);
  harness_figures h;
  h.median_step_s = number(doc, "median_seconds");
  h.warmup_s = number(doc, "warmup_seconds");
  simdjson::dom::array steps;
  if (doc["step_seconds"].get(steps) == simdjson::SUCCESS) h.steps = static_cast<int>(steps.size());
  h.device = text(doc, "device");
  h.torch_version = text(doc, "torch");
  h.step_marker_api = text(doc, "step_marker_api");
  h.description = text(doc, "workload");
  return h;
}

}  // namespace headroom::study
