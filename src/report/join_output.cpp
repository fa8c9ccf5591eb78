#include "headroom/report/join_output.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>

#include "headroom/project/amdahl.hpp"
#include "headroom/report/units.hpp"
#include "headroom/util/json.hpp"
#include "report_tables.hpp"

namespace headroom::report {
namespace {

std::string quote(std::string_view s) { return util::json_string(s); }
std::string number(double v) { return std::isfinite(v) ? fmt::format("{}", v) : "null"; }
std::string optional_number(const std::optional<double>& v) { return v ? number(*v) : "null"; }

// A table as aligned columns: text left, figures right.
void console_table(std::ostream& out, const detail::table& t) {
  std::vector<std::size_t> w(t.columns.size());
  for (std::size_t i = 0; i < t.columns.size(); ++i) w[i] = t.columns[i].size();
  for (const auto& r : t.rows) {
    for (std::size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], r[i].text.size());
  }
  const auto line = [&](const auto& cells, auto text_of, auto numeric) {
    std::string s;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      s += numeric(i) ? fmt::format("  {:>{}}", text_of(cells[i]), w[i])
                      : fmt::format("  {:<{}}", text_of(cells[i]), w[i]);
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    fmt::print(out, "{}\n", s);
  };
  const auto numeric = [&](std::size_t i) { return !t.rows.empty() && t.rows.front()[i].numeric; };
  line(
      t.columns, [](const std::string& s) { return s; }, numeric);
  for (const auto& r : t.rows)
    line(
        r, [](const detail::cell& c) { return c.text; }, numeric);
}

std::string estimate_json(const project::estimate& e) {
  if (!e.available) return "null";
  return fmt::format("{{\"time_saved\": {}, \"low\": {}, \"high\": {}, \"end_to_end\": {}}}", number(e.time_saved),
                     optional_number(e.low), optional_number(e.high), number(e.speedup()));
}

}  // namespace

void write_console(std::ostream& out, const project::measured_projection& p) {
  const auto& a = p.analysis;
  const auto& tot = a.total;
  fmt::print(out, "headroom project: measured speedups joined to {} timeline{}, device-time weighted wall clock {}\n",
             a.timelines.size(), a.timelines.size() == 1 ? "" : "s", format_duration(tot.wall));
  for (const auto& t : a.timelines) fmt::print(out, "  window {}: {}\n", t.label, t.win.description);
  fmt::print(out, "  addressable f = {} (exclusive {}), ceiling 1/(1-f) = {:.3f}x\n",
             format_percent(tot.addressable_fraction()), format_percent(tot.addressable_exclusive_fraction()),
             project::ceiling(tot.addressable_fraction()));
  fmt::print(out, "  categories without a problem of the source: {}\n",
             p.options.uncovered == project::uncovered_policy::pooled
                 ? "the source's pooled distribution (--uncovered pooled)"
                 : "1x (--uncovered none)");
  for (const auto& j : p.sources) {
    fmt::print(out, "\nSource '{}' ({}{})\n", j.source, j.published_only ? "published figures, " : "", j.origin);
    console_table(out, detail::join_categories_table(j));
    fmt::print(out, "\n");
    console_table(out, detail::join_estimates_table(j));
    for (const auto& n : j.notes) fmt::print(out, "  - {}\n", n);
  }
  if (!a.notes.empty()) {
    fmt::print(out, "\nNotes\n");
    for (const auto& n : a.notes) fmt::print(out, "  - {}\n", n);
  }
}

void write_json(std::ostream& out, const project::measured_projection& p) {
  const auto& tot = p.analysis.total;
  fmt::print(out, "{{\n  \"schema_version\": {},\n  \"kind\": \"measured_projection\",\n", join_json_schema_version);
  fmt::print(out, "  \"wall_ns\": {},\n  \"addressable_fraction\": {},\n  \"addressable_exclusive_fraction\": {},\n",
             tot.wall, number(tot.addressable_fraction()), number(tot.addressable_exclusive_fraction()));
  fmt::print(out, "  \"windows\": [");
  for (std::size_t i = 0; i < p.analysis.timelines.size(); ++i) {
    const auto& t = p.analysis.timelines[i];
    fmt::print(out, "{}{{\"label\": {}, \"length_ns\": {}, \"description\": {}}}", i ? ", " : "", quote(t.label),
               t.win.length(), quote(t.win.description));
  }
  fmt::print(out, "],\n  \"category_fractions\": {{");
  bool first = true;
  for (int i = 0; i < classify::category_count; ++i) {
    if (p.fractions[static_cast<std::size_t>(i)] <= 0) continue;
    fmt::print(out, "{}{}: {}", first ? "" : ", ", quote(classify::to_string(static_cast<classify::category>(i))),
               number(p.fractions[static_cast<std::size_t>(i)]));
    first = false;
  }
  fmt::print(out, "}},\n  \"options\": {{\"uncovered\": {}, \"resamples\": {}, \"confidence\": {}, \"seed\": {}}},\n",
             quote(project::to_string(p.options.uncovered)), p.options.resamples, number(p.options.confidence),
             p.options.seed);
  fmt::print(out, "  \"sources\": [");
  for (std::size_t s = 0; s < p.sources.size(); ++s) {
    const auto& j = p.sources[s];
    fmt::print(out, "{}\n    {{\"source\": {}, \"origin\": {}, \"published_only\": {},\n", s ? "," : "",
               quote(j.source), quote(j.origin), j.published_only ? "true" : "false");
    fmt::print(out, "     \"published\": {},\n     \"expectation\": {},\n     \"best\": {},\n",
               estimate_json(j.published), estimate_json(j.expectation), estimate_json(j.best));
    fmt::print(out, "     \"categories\": [");
    for (std::size_t i = 0; i < j.categories.size(); ++i) {
      const auto& c = j.categories[i];
      fmt::print(
          out,
          "{}\n       {{\"category\": {}, \"fraction\": {}, \"basis\": {}, \"basis_text\": {}, \"problems\": {}, "
          "\"evaluations\": {}, \"wins\": {}, \"win_rate\": {}, \"median_win\": {}, \"saved_published\": {}, "
          "\"saved_expectation\": {}, \"saved_best\": {}}}",
          i ? "," : "", quote(classify::to_string(c.cat)), number(c.fraction), quote(project::to_string(c.applied)),
          quote(c.basis_text), c.problems, c.evaluations, c.wins, number(c.win_rate), optional_number(c.median_win),
          number(c.saved_published), optional_number(c.saved_expectation), optional_number(c.saved_best));
    }
    fmt::print(out, "],\n     \"notes\": [");
    for (std::size_t i = 0; i < j.notes.size(); ++i) fmt::print(out, "{}{}", i ? ", " : "", quote(j.notes[i]));
    fmt::print(out, "]}}");
  }
  fmt::print(out, "\n  ],\n  \"notes\": [");
  for (std::size_t i = 0; i < p.analysis.notes.size(); ++i)
    fmt::print(out, "{}{}", i ? ", " : "", quote(p.analysis.notes[i]));
  fmt::print(out, "]\n}}\n");
}

}  // namespace headroom::report
