#include "headroom/report/trace_output.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "headroom/analyze/activity_classes.hpp"
#include "headroom/trace/chrome_writer.hpp"
#include "headroom/trace/store.hpp"

namespace headroom::report {

void write_store_summary(std::ostream& out, const trace::trace& t, const std::filesystem::path& store,
                         std::size_t files) {
  std::size_t kernels = 0, copies = 0, memsets = 0;
  for (const auto& a : t.activities) {
    if (a.kind == trace::activity_kind::kernel) ++kernels;
    if (a.kind == trace::activity_kind::memcpy) ++copies;
    if (a.kind == trace::activity_kind::memset) ++memsets;
  }
  fmt::print(out, "wrote {} (trace store v{}) from {} file{}\n", store.string(), trace::store_schema_version, files,
             files == 1 ? "" : "s");
  fmt::print(out, "  {} kernels, {} copies, {} memsets, {} API calls, {} ranges, {} synchronizations\n", kernels,
             copies, memsets, t.api_calls.size(), t.ranges.size(), t.synchronizations.size());
  fmt::print(out, "  {} processes, {} devices, {} distinct names\n", t.processes.size(), t.devices.size(),
             t.strings.size() - 1);
  if (t.dropped_records > 0) fmt::print(out, "  the profiler dropped {} records\n", t.dropped_records);
}

void write_reader_warnings(std::ostream& out, const trace::trace& t) {
  for (const auto& w : t.warnings) {
    if (w.lost) continue;
    fmt::print(out, "headroom: warning: {}{}\n", w.what, w.count > 1 ? fmt::format(" ({} times)", w.count) : "");
  }
}

void write_classified_chrome_trace(std::ostream& out, const trace::trace& t, const classify::classifier& c) {
  analyze::activity_classes classes(t, c);
  trace::chrome_options chrome;
  chrome.label = [&](std::size_t i) { return classify::to_string(classes.of(t.activities[i]).prov); };
  chrome.args = [&](std::size_t i) {
    const auto& k = classes.of(t.activities[i]);
    std::vector<std::pair<std::string_view, std::string_view>> args = {
        {"category", classify::to_string(k.cat)},
        {"provenance", classify::to_string(k.prov)},
        {"addressable", k.addressable() ? "yes" : "no"},
    };
    if (!k.rule.empty()) args.emplace_back("rule", k.rule);
    if (!k.library.empty()) args.emplace_back("library", k.library);
    return args;
  };
  trace::write_chrome_trace(t, out, chrome);
}

void write_export_summary(std::ostream& out, const trace::trace& t, const std::filesystem::path& file) {
  fmt::print(out, "wrote {}: {} device activities, {} API calls, {} ranges, coloured by provenance\n", file.string(),
             t.activities.size(), t.api_calls.size(), t.ranges.size());
  fmt::print(out, "open it in https://ui.perfetto.dev or chrome://tracing\n");
}

}  // namespace headroom::report
