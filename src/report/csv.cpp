#include <fmt/format.h>
#include <fmt/ostream.h>

#include "headroom/report/analysis_output.hpp"

namespace headroom::report {
namespace {

std::string field(std::string_view s) {
  if (s.find_first_of(",\"\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void rows(std::ostream& out, const analyze::timeline_report& t) {
  const auto row = [&](std::string_view group, std::string_view cls, trace::time_ns busy, trace::time_ns sum,
                       std::uint64_t count) {
    fmt::print(out, "{},{},{},{},{},{},{},{},{},{:.6f}\n", field(t.label), t.rank, t.device, t.wall, group, cls, busy,
               sum, count, t.share(busy));
  };
  row("measure", "busy", t.busy_all, t.busy_all, 0);
  row("measure", "kernels", t.busy_kernels, t.busy_kernels, 0);
  row("measure", "addressable", t.busy_addressable, t.busy_addressable, 0);
  row("measure", "addressable_exclusive", t.busy_addressable_exclusive, t.busy_addressable_exclusive, 0);
  for (std::size_t i = 0; i < t.by_category.size(); ++i) {
    const auto& s = t.by_category[i];
    if (s.count > 0) row("category", classify::to_string(static_cast<classify::category>(i)), s.busy, s.sum, s.count);
  }
  for (std::size_t i = 0; i < t.by_provenance.size(); ++i) {
    const auto& s = t.by_provenance[i];
    if (s.count > 0)
      row("provenance", classify::to_string(static_cast<classify::provenance>(i)), s.busy, s.sum, s.count);
  }
}

}  // namespace

void write_csv(std::ostream& out, const analyze::analysis_report& r) {
  fmt::print(out, "timeline,rank,device,wall_ns,group,class,busy_ns,sum_ns,count,share_of_wall\n");
  for (const auto& t : r.timelines) rows(out, t);
  rows(out, r.total);
  // The notes travel with the figures (a partial input's first of all), one row each.
  for (const auto& n : r.notes) {
    fmt::print(out, "{},{},{},{},note,{},0,0,0,0.000000\n", field(r.total.label), r.total.rank, r.total.device,
               r.total.wall, field(n));
  }
}

}  // namespace headroom::report
