#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>

#include "headroom/project/amdahl.hpp"
#include "headroom/report/analysis_output.hpp"
#include "headroom/report/units.hpp"

namespace headroom::report {
namespace {

using analyze::analysis_report;
using analyze::timeline_report;

std::string speedup_text(double s) {
  if (std::isinf(s)) return "inf";
  return fmt::format("{:.3f}x", s);
}

std::string reference_text(double s) {
  if (std::isinf(s)) return "inf";
  return fmt::format("{:g}x", s);
}

std::string shorten(std::string_view name, std::size_t width) {
  if (name.size() <= width) return std::string(name);
  return std::string(name.substr(0, width - 3)) + "...";
}

void timeline_row(std::ostream& out, const timeline_report& t, std::size_t label_width) {
  fmt::print(out, "  {:<{}}  {:>10}  {:>6}  {:>6}  {:>7}  {:>11}  {:>9}\n", t.label, label_width,
             format_duration(t.wall), format_percent(t.busy_fraction()), format_percent(t.idle_fraction()),
             format_percent(t.share(t.busy_kernels)), format_percent(t.addressable_fraction()),
             format_percent(t.addressable_exclusive_fraction()));
}

template <class Enum, std::size_t N>
void breakdown(std::ostream& out, std::string_view title, std::string_view column,
               const std::array<analyze::busy_share, N>& shares, const timeline_report& t, bool with_addressable) {
  fmt::print(out, "\n{}\n  {:<20}  {:>10}  {:>7}  {:>10}  {:>8}{}\n", title, column, "busy", "share", "sum", "count",
             with_addressable ? "  addressable" : "");
  for (std::size_t i = 0; i < N; ++i) {
    const auto& s = shares[i];
    if (s.count == 0) continue;
    const auto e = static_cast<Enum>(i);
    std::string extra;
    if constexpr (std::is_same_v<Enum, classify::provenance>) extra = classify::is_addressable(e) ? "  yes" : "  no";
    fmt::print(out, "  {:<20}  {:>10}  {:>7}  {:>10}  {:>8}{}\n", classify::to_string(e), format_duration(s.busy),
               format_percent(t.share(s.busy)), format_duration(s.sum), s.count, extra);
  }
}

void amdahl_table(std::ostream& out, const std::vector<std::pair<std::string, double>>& rows_fraction) {
  fmt::print(out, "  {:<26}", "kernel speedup");
  for (double s : project::reference_speedups()) fmt::print(out, "  {:>8}", reference_text(s));
  fmt::print(out, "\n");
  for (const auto& [label, f] : rows_fraction) {
    fmt::print(out, "  {:<26}", label);
    for (double s : project::reference_speedups()) fmt::print(out, "  {:>8}", speedup_text(project::amdahl(f, s)));
    fmt::print(out, "\n");
  }
}

}  // namespace

void write_console(std::ostream& out, const analysis_report& r) {
  const auto& tot = r.total;
  fmt::print(out, "headroom analyze: {} timeline{}{}\n", r.timelines.size(), r.timelines.size() == 1 ? "" : "s",
             r.platform.empty() ? "" : fmt::format(", platform {}", r.platform));

  std::size_t width = 8;
  for (const auto& t : r.timelines) width = std::max(width, t.label.size());
  if (r.timelines.size() > 1) width = std::max(width, tot.label.size());

  fmt::print(out, "\nWindow (offsets from the trace's first activity)\n");
  for (const auto& t : r.timelines) {
    fmt::print(out, "  {:<{}}  +{} .. +{}  {}\n", t.label, width, format_duration(t.win.start - r.origin),
               format_duration(t.win.end - r.origin), t.win.description);
  }

  fmt::print(out, "\nShares of the window's wall clock\n  {:<{}}  {:>10}  {:>6}  {:>6}  {:>7}  {:>11}  {:>9}\n",
             "timeline", width, "wall", "busy", "idle", "kernels", "addressable", "exclusive");
  for (const auto& t : r.timelines) timeline_row(out, t, width);
  if (r.timelines.size() > 1) timeline_row(out, tot, width);

  const std::string scope = r.timelines.size() > 1 ? " (all timelines)" : "";
  breakdown<classify::category>(out, "By category" + scope, "category", tot.by_category, tot, false);
  breakdown<classify::provenance>(out, "By provenance" + scope, "provenance", tot.by_provenance, tot, true);

  std::size_t rule_width = 16;
  for (const auto& k : tot.top_kernels) rule_width = std::max(rule_width, k.rule.size());
  fmt::print(out, "\nTop kernels by time in the window{}\n  {:>10}  {:>6}  {:>7}  {:<13}  {:<18}  {:<{}}  {}\n", scope,
             "total", "share", "count", "category", "provenance", "rule", rule_width, "name");
  for (const auto& k : tot.top_kernels) {
    fmt::print(out, "  {:>10}  {:>6}  {:>7}  {:<13}  {:<18}  {:<{}}  {}\n", format_duration(k.total),
               format_percent(k.share_of_wall), k.count, classify::to_string(k.cat), classify::to_string(k.prov),
               k.rule.empty() ? "-" : k.rule, rule_width, shorten(k.name, 100));
  }

  const double f = tot.addressable_fraction();
  const double fx = tot.addressable_exclusive_fraction();
  fmt::print(out, "\nAmdahl projection: end-to-end speedup when the addressable kernels get faster\n");
  amdahl_table(out, {{fmt::format("addressable f = {}", format_percent(f)), f},
                     {fmt::format("exclusive   f = {}", format_percent(fx)), fx}});
  fmt::print(out, "  ceiling 1/(1-f) = {} (exclusive: {})\n", speedup_text(project::ceiling(f)),
             speedup_text(project::ceiling(fx)));

  if (!r.notes.empty()) {
    fmt::print(out, "\nNotes\n");
    for (const auto& n : r.notes) fmt::print(out, "  - {}\n", n);
  }
}

void write_console(std::ostream& out, const project::projection& p) {
  const auto& tot = p.analysis.total;
  fmt::print(out, "headroom project: {} timeline{}, device-time weighted wall clock {}\n", p.analysis.timelines.size(),
             p.analysis.timelines.size() == 1 ? "" : "s", format_duration(tot.wall));
  for (const auto& t : p.analysis.timelines) fmt::print(out, "  window {}: {}\n", t.label, t.win.description);
  fmt::print(out, "\n  {:<40}  {:>10}  {:>7}  {:>8}\n", "part", "busy", "share", "speedup");
  for (const auto& part : p.parts) {
    fmt::print(out, "  {:<40}  {:>10}  {:>7}  {:>8}\n", shorten(part.label, 40), format_duration(part.busy),
               format_percent(part.fraction), speedup_text(part.speedup));
  }
  fmt::print(out, "\nProjected end-to-end speedup: {}   (ceiling with these parts infinitely fast: {})\n",
             speedup_text(p.speedup), speedup_text(p.ceiling));
  fmt::print(out, "\nEvery part at the same speedup\n  {:<26}", "kernel speedup");
  for (double s : project::reference_speedups()) fmt::print(out, "  {:>8}", reference_text(s));
  fmt::print(out, "\n  {:<26}", "end to end");
  for (double s : p.at_reference) fmt::print(out, "  {:>8}", speedup_text(s));
  fmt::print(out, "\n");
  if (!p.analysis.notes.empty()) {
    fmt::print(out, "\nNotes\n");
    for (const auto& n : p.analysis.notes) fmt::print(out, "  - {}\n", n);
  }
}

}  // namespace headroom::report
