#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cmath>

#include "headroom/project/amdahl.hpp"
#include "headroom/report/analysis_output.hpp"
#include "headroom/util/json.hpp"

namespace headroom::report {
namespace {

using analyze::timeline_report;

std::string quote(std::string_view s) { return util::json_string(s); }

// Infinite speedups and ceilings are null: JSON has no infinity.
std::string number(double v) { return std::isfinite(v) ? fmt::format("{}", v) : "null"; }

template <class Enum, std::size_t N>
void shares(std::ostream& out, const std::array<analyze::busy_share, N>& s, const timeline_report& t,
            std::string_view indent) {
  out << "{";
  bool first = true;
  for (std::size_t i = 0; i < N; ++i) {
    if (s[i].count == 0) continue;
    fmt::print(out, "{}\n{}  {}: {{\"busy_ns\": {}, \"sum_ns\": {}, \"count\": {}, \"share\": {}}}", first ? "" : ",",
               indent, quote(classify::to_string(static_cast<Enum>(i))), s[i].busy, s[i].sum, s[i].count,
               number(t.share(s[i].busy)));
    first = false;
  }
  fmt::print(out, "{}}}", first ? "" : fmt::format("\n{}", indent));
}

void timeline(std::ostream& out, const timeline_report& t, trace::time_ns origin, std::string_view in) {
  const std::string in2 = std::string(in) + "  ";
  fmt::print(out, "{{\n{}\"label\": {},\n", in2, quote(t.label));
  fmt::print(out, "{}\"process\": {}, \"rank\": {}, \"device\": {},\n", in2, t.process, t.rank, t.device);
  fmt::print(out,
             "{}\"window\": {{\"source\": {}, \"start_ns\": {}, \"end_ns\": {}, \"start_offset_ns\": {}, "
             "\"length_ns\": {}, \"steps\": {}, \"skipped_warmup\": {}, \"description\": {}}},\n",
             in2, quote(analyze::to_string(t.win.source)), t.win.start, t.win.end, t.win.start - origin, t.win.length(),
             t.win.steps, t.win.skipped_warmup, quote(t.win.description));
  fmt::print(out,
             "{}\"wall_ns\": {}, \"busy_ns\": {}, \"kernel_busy_ns\": {}, \"addressable_busy_ns\": {}, "
             "\"addressable_exclusive_busy_ns\": {},\n",
             in2, t.wall, t.busy_all, t.busy_kernels, t.busy_addressable, t.busy_addressable_exclusive);
  fmt::print(out,
             "{}\"busy_fraction\": {}, \"idle_fraction\": {}, \"kernel_fraction\": {}, \"addressable_fraction\": {}, "
             "\"addressable_exclusive_fraction\": {},\n",
             in2, number(t.busy_fraction()), number(t.idle_fraction()), number(t.share(t.busy_kernels)),
             number(t.addressable_fraction()), number(t.addressable_exclusive_fraction()));
  fmt::print(out, "{}\"by_category\": ", in2);
  shares<classify::category>(out, t.by_category, t, in2);
  fmt::print(out, ",\n{}\"by_provenance\": ", in2);
  shares<classify::provenance>(out, t.by_provenance, t, in2);
  fmt::print(out, ",\n{}\"top_kernels\": [", in2);
  for (std::size_t i = 0; i < t.top_kernels.size(); ++i) {
    const auto& k = t.top_kernels[i];
    fmt::print(out,
               "{}\n{}  {{\"name\": {}, \"category\": {}, \"provenance\": {}, \"rule\": {}, \"total_ns\": {}, "
               "\"count\": {}, \"share_of_wall\": {}}}",
               i ? "," : "", in2, quote(k.name), quote(classify::to_string(k.cat)), quote(classify::to_string(k.prov)),
               quote(k.rule), k.total, k.count, number(k.share_of_wall));
  }
  fmt::print(out, "{}]\n{}}}", t.top_kernels.empty() ? "" : fmt::format("\n{}", in2), in);
}

void amdahl(std::ostream& out, const timeline_report& tot) {
  const double f = tot.addressable_fraction();
  const double fx = tot.addressable_exclusive_fraction();
  fmt::print(
      out,
      "  \"amdahl\": {{\n    \"fraction\": {}, \"exclusive_fraction\": {},\n    \"ceiling\": {}, \"exclusive_ceiling\": {},\n"
      "    \"projections\": [",
      number(f), number(fx), number(project::ceiling(f)), number(project::ceiling(fx)));
  bool first = true;
  for (double s : project::reference_speedups()) {
    fmt::print(out, "{}\n      {{\"kernel_speedup\": {}, \"end_to_end\": {}, \"end_to_end_exclusive\": {}}}",
               first ? "" : ",", number(s), number(project::amdahl(f, s)), number(project::amdahl(fx, s)));
    first = false;
  }
  fmt::print(out, "\n    ]\n  }},\n");
}

void notes(std::ostream& out, const std::vector<std::string>& n) {
  fmt::print(out, "  \"notes\": [");
  for (std::size_t i = 0; i < n.size(); ++i) fmt::print(out, "{}\n    {}", i ? "," : "", quote(n[i]));
  fmt::print(out, "{}]\n", n.empty() ? "" : "\n  ");
}

}  // namespace

void write_json(std::ostream& out, const analyze::analysis_report& r) {
  fmt::print(out,
             "{{\n  \"schema_version\": {},\n  \"kind\": \"analysis\",\n  \"platform\": {},\n  \"origin_ns\": {},\n",
             analysis_json_schema_version, quote(r.platform), r.origin);
  fmt::print(out, "  \"total\": ");
  timeline(out, r.total, r.origin, "  ");
  fmt::print(out, ",\n  \"timelines\": [");
  for (std::size_t i = 0; i < r.timelines.size(); ++i) {
    fmt::print(out, "{}\n    ", i ? "," : "");
    timeline(out, r.timelines[i], r.origin, "    ");
  }
  fmt::print(out, "{}],\n", r.timelines.empty() ? "" : "\n  ");
  amdahl(out, r.total);
  notes(out, r.notes);
  fmt::print(out, "}}\n");
}

void write_json(std::ostream& out, const project::projection& p) {
  fmt::print(out, "{{\n  \"schema_version\": {},\n  \"kind\": \"projection\",\n  \"wall_ns\": {},\n  \"parts\": [",
             analysis_json_schema_version, p.analysis.total.wall);
  for (std::size_t i = 0; i < p.parts.size(); ++i) {
    const auto& part = p.parts[i];
    fmt::print(out, "{}\n    {{\"label\": {}, \"busy_ns\": {}, \"fraction\": {}, \"speedup\": {}}}", i ? "," : "",
               quote(part.label), part.busy, number(part.fraction), number(part.speedup));
  }
  fmt::print(out, "{}],\n  \"speedup\": {},\n  \"ceiling\": {},\n  \"at_reference\": [", p.parts.empty() ? "" : "\n  ",
             number(p.speedup), number(p.ceiling));
  const auto refs = project::reference_speedups();
  for (std::size_t i = 0; i < p.at_reference.size(); ++i) {
    fmt::print(out, "{}{{\"kernel_speedup\": {}, \"end_to_end\": {}}}", i ? ", " : "", number(refs[i]),
               number(p.at_reference[i]));
  }
  fmt::print(out, "],\n  \"windows\": [");
  for (std::size_t i = 0; i < p.analysis.timelines.size(); ++i) {
    const auto& t = p.analysis.timelines[i];
    fmt::print(out, "{}\n    {{\"label\": {}, \"length_ns\": {}, \"description\": {}}}", i ? "," : "", quote(t.label),
               t.win.length(), quote(t.win.description));
  }
  fmt::print(out, "{}],\n", p.analysis.timelines.empty() ? "" : "\n  ");
  notes(out, p.analysis.notes);
  fmt::print(out, "}}\n");
}

}  // namespace headroom::report
