// `headroom stats` renderings. The fast_p columns come from the summaries themselves, so `--p`
// changes the columns without another code path.
#include "headroom/report/stats_output.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "headroom/util/json.hpp"

namespace headroom::report {

using eval::default_fast_p;
using eval::source_stats;
using record::verdict;
using record::verdict_name;

namespace {

std::vector<double> p_values(const std::vector<source_stats>& s) {
  std::vector<double> ps;
  for (const auto& x : s) {
    for (const auto& [p, share] : x.fast_p) {
      if (std::find(ps.begin(), ps.end(), p) == ps.end()) ps.push_back(p);
    }
  }
  if (ps.empty()) ps = default_fast_p();
  std::sort(ps.begin(), ps.end());
  return ps;
}

double share(const source_stats& s, double p) {
  const auto it = s.fast_p.find(p);
  return it == s.fast_p.end() ? 0 : it->second;
}

int count(const source_stats& s, verdict v) {
  const auto it = s.verdicts.find(std::string(verdict_name(v)));
  return it == s.verdicts.end() ? 0 : it->second;
}

// Every verdict a row can be counted under, in the enum's order (reference_error is `skipped`).
std::vector<verdict> counted_verdicts() {
  std::vector<verdict> out;
  for (int i = 0; i < static_cast<int>(verdict::reference_error); ++i) out.push_back(static_cast<verdict>(i));
  return out;
}

std::string label(double p) { return fmt::format("fast_{}", p); }

std::string json_number(double v) { return std::isfinite(v) ? fmt::format("{}", v) : "null"; }
std::string json_number(const std::optional<double>& v) { return v ? json_number(*v) : "null"; }

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string csv_number(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? fmt::format("{:.6f}", *v) : std::string();
}

std::string percent(double v) { return fmt::format("{:.1f}%", 100 * v); }
std::string times(const std::optional<double>& v) { return v ? fmt::format("{:.2f}x", *v) : std::string("-"); }

}  // namespace

void write_stats_console(std::ostream& out, const std::vector<source_stats>& s) {
  const auto ps = p_values(s);
  std::size_t name_width = 6;
  for (const auto& x : s) name_width = std::max(name_width, x.source.size());
  std::vector<std::size_t> p_width;
  for (double p : ps) p_width.push_back(std::max<std::size_t>(label(p).size(), 6));

  fmt::print(out, "{:<{}}  {:>6}  {:>9}", "source", name_width, "evals", "correct %");
  for (std::size_t i = 0; i < ps.size(); ++i) fmt::print(out, "  {:>{}}", label(ps[i]), p_width[i]);
  fmt::print(out, "  {:>8}  {:>7}  {:>7}  {:>7}\n", "verified", "median", "geomean", "sol gap");
  for (const auto& x : s) {
    // A source whose every row is a reference_error has no rates, not rates of zero.
    const auto rate = [&](double v) { return x.evaluations > 0 ? percent(v) : std::string("-"); };
    fmt::print(out, "{:<{}}  {:>6}  {:>9}", x.source, name_width, x.evaluations, rate(x.correctness_rate));
    for (std::size_t i = 0; i < ps.size(); ++i) fmt::print(out, "  {:>{}}", rate(share(x, ps[i])), p_width[i]);
    fmt::print(out, "  {:>8}  {:>7}  {:>7}  {:>7}\n", x.verified, times(x.median_speedup), times(x.geomean_speedup),
               x.sol_gap_closed ? percent(*x.sol_gap_closed) : std::string("-"));
  }
  if (s.empty()) fmt::print(out, "(no evaluations)\n");

  fmt::print(out,
             "\nVerdicts (reference_error: the problem failed; on degenerate problems: the output does not depend "
             "on the inputs or a trivial output passes; neither is counted above)\n");
  for (const auto& x : s) {
    std::string line;
    for (verdict v : counted_verdicts()) {
      if (const int n = count(x, v); n > 0)
        line += fmt::format("{}{} {}", line.empty() ? "" : ", ", verdict_name(v), n);
    }
    if (x.skipped > 0)
      line += fmt::format("{}{} {}", line.empty() ? "" : "; ", verdict_name(verdict::reference_error), x.skipped);
    if (x.degenerate > 0) line += fmt::format("{}on degenerate problems {}", line.empty() ? "" : "; ", x.degenerate);
    fmt::print(out, "  {:<{}}  {}\n", x.source, name_width, line.empty() ? "-" : line);
  }
  fmt::print(out,
             "fast_p: share of all evaluations that are correct, verified and faster than p times eager PyTorch.\n"
             "sol gap: mean share of the gap from eager PyTorch to the speed-of-light floor closed, over verified "
             "evaluations with a floor.\n");
}

void write_stats_json(std::ostream& out, const std::vector<source_stats>& s) {
  const auto ps = p_values(s);
  fmt::print(out, "{{\n  \"schema_version\": {},\n  \"kind\": \"eval-stats\",\n  \"fast_p\": [",
             stats_json_schema_version);
  for (std::size_t i = 0; i < ps.size(); ++i) fmt::print(out, "{}{}", i ? ", " : "", json_number(ps[i]));
  fmt::print(out, "],\n  \"sources\": [");
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto& x = s[i];
    fmt::print(out,
               "{}\n    {{\"source\": {}, \"evaluations\": {}, \"skipped\": {}, \"degenerate\": {}, \"correct\": {}, "
               "\"correctness_rate\": {}, ",
               i ? "," : "", util::json_string(x.source), x.evaluations, x.skipped, x.degenerate, x.correct,
               json_number(x.correctness_rate));
    fmt::print(out, "\"fast_p\": {{");
    for (std::size_t k = 0; k < ps.size(); ++k) {
      fmt::print(out, "{}\"{}\": {}", k ? ", " : "", ps[k], json_number(share(x, ps[k])));
    }
    fmt::print(out,
               "}}, \"verified\": {}, \"median_speedup\": {}, \"geomean_speedup\": {}, \"sol_scored\": {}, "
               "\"sol_gap_closed\": {}, \"verdicts\": {{",
               x.verified, json_number(x.median_speedup), json_number(x.geomean_speedup), x.sol_scored,
               json_number(x.sol_gap_closed));
    const auto vs = counted_verdicts();
    for (std::size_t k = 0; k < vs.size(); ++k)
      fmt::print(out, "{}\"{}\": {}", k ? ", " : "", verdict_name(vs[k]), count(x, vs[k]));
    fmt::print(out, "}}}}");
  }
  fmt::print(out, "{}]\n}}\n", s.empty() ? "" : "\n  ");
}

void write_stats_csv(std::ostream& out, const std::vector<source_stats>& s) {
  const auto ps = p_values(s);
  fmt::print(out, "source,evaluations,skipped,degenerate,correct,correctness_rate");
  for (double p : ps) fmt::print(out, ",{}", label(p));
  fmt::print(out, ",verified,median_speedup,geomean_speedup,sol_scored,sol_gap_closed");
  for (verdict v : counted_verdicts()) {
    if (v != verdict::correct) fmt::print(out, ",{}", verdict_name(v));
  }
  fmt::print(out, "\n");
  for (const auto& x : s) {
    fmt::print(out, "{},{},{},{},{},{:.6f}", csv_field(x.source), x.evaluations, x.skipped, x.degenerate, x.correct,
               x.correctness_rate);
    for (double p : ps) fmt::print(out, ",{:.6f}", share(x, p));
    fmt::print(out, ",{},{},{},{},{}", x.verified, csv_number(x.median_speedup), csv_number(x.geomean_speedup),
               x.sol_scored, csv_number(x.sol_gap_closed));
    for (verdict v : counted_verdicts()) {
      if (v != verdict::correct) fmt::print(out, ",{}", count(x, v));
    }
    fmt::print(out, "\n");
  }
}

}  // namespace headroom::report
