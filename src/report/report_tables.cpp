#include "report_tables.hpp"

#include <fmt/format.h>

#include <cmath>

#include "headroom/project/amdahl.hpp"
#include "headroom/report/palette.hpp"
#include "headroom/report/units.hpp"

namespace headroom::report::detail {
namespace {

cell num(std::string text) { return {std::move(text), "", "", true}; }
cell txt(std::string text) { return {std::move(text), "", "", false}; }

cell category_cell(classify::category c) {
  return {std::string(classify::to_string(c)), "", std::string(category_colour(c)), false};
}

std::string speedup_text(double s) { return std::isfinite(s) ? fmt::format("{:.3f}x", s) : "inf"; }

std::string shortened(std::string_view s, std::size_t n) {
  return s.size() <= n ? std::string(s) : std::string(s.substr(0, n - 3)) + "...";
}

}  // namespace

std::string estimate_text(const project::estimate& e) {
  if (!e.available) return "n/a";
  if (!e.low) return format_percent(e.time_saved, 2);
  return fmt::format("{} [{}, {}]", format_percent(e.time_saved, 2), format_percent(*e.low, 2),
                     format_percent(*e.high, 2));
}

table workloads_table(const document& d) {
  table t{"workloads",
          "Each workload's window and the share of its wall clock that a new kernel could replace",
          {"workload", "window", "wall clock", "idle", "addressable f", "exclusive f", "ceiling 1/(1-f)"},
          {}};
  for (const auto& w : d.workloads) {
    const auto& tot = w.projection.analysis.total;
    const std::string window = w.projection.analysis.timelines.size() == 1
                                   ? w.projection.analysis.timelines.front().win.description
                                   : tot.win.description;
    t.rows.push_back({txt(w.name),
                      {shortened(window, 90), window, "", false},
                      num(format_duration(tot.wall)),
                      num(format_percent(tot.idle_fraction())),
                      num(format_percent(tot.addressable_fraction())),
                      num(format_percent(tot.addressable_exclusive_fraction())),
                      num(speedup_text(project::ceiling(tot.addressable_fraction())))});
  }
  return t;
}

table estimates_table(const document& d) {
  table t{
      "estimates",
      fmt::format("Wall clock saved when the measured speedups replace the addressable kernels, with {:g}% bootstrap "
                  "intervals over problems; end to end = 1/(1 - saved)",
                  100 * d.join.confidence),
      {"workload", "results source", "published f*w*(1-1/m)", "expectation", "best per problem",
       "end to end (published)"},
      {}};
  for (const auto& w : d.workloads) {
    for (const auto& j : w.projection.sources) {
      t.rows.push_back({txt(w.name), txt(j.source), num(estimate_text(j.published)), num(estimate_text(j.expectation)),
                        num(estimate_text(j.best)), num(speedup_text(j.published.speedup()))});
    }
  }
  return t;
}

table shares_table(const workload& w) {
  const auto& a = w.projection.analysis;
  table t{"shares",
          "Shares of the window's wall clock (busy time is the union of intervals; docs/method.md)",
          {"timeline", "wall clock", "busy", "idle", "kernels", "addressable f", "exclusive f"},
          {}};
  const auto row = [&](const analyze::timeline_report& r) {
    t.rows.push_back({txt(r.label), num(format_duration(r.wall)), num(format_percent(r.busy_fraction())),
                      num(format_percent(r.idle_fraction())), num(format_percent(r.share(r.busy_kernels))),
                      num(format_percent(r.addressable_fraction())),
                      num(format_percent(r.addressable_exclusive_fraction()))});
  };
  for (const auto& r : a.timelines) row(r);
  if (a.timelines.size() > 1) row(a.total);
  return t;
}

table reference_table(const workload& w) {
  const auto& tot = w.projection.analysis.total;
  table t{"amdahl", "End-to-end speedup when every addressable kernel gets the same speedup", {"kernel speedup"}, {}};
  for (double s : project::reference_speedups())
    t.columns.push_back(std::isfinite(s) ? fmt::format("{:g}x", s) : "inf");
  for (const auto& [label, f] :
       {std::pair{std::string("addressable f = ") + format_percent(tot.addressable_fraction()),
                  tot.addressable_fraction()},
        std::pair{std::string("exclusive f = ") + format_percent(tot.addressable_exclusive_fraction()),
                  tot.addressable_exclusive_fraction()}}) {
    std::vector<cell> r{txt(label)};
    for (double s : project::reference_speedups()) r.push_back(num(speedup_text(project::amdahl(f, s))));
    t.rows.push_back(std::move(r));
  }
  return t;
}

table top_kernels_table(const workload& w) {
  table t{"top-kernels",
          "Top kernels by time in the window (sum of durations)",
          {"#", "kernel", "category", "provenance", "addressable", "time", "share", "count"},
          {}};
  int i = 0;
  for (const auto& k : w.projection.analysis.total.top_kernels) {
    t.rows.push_back({num(std::to_string(++i)),
                      {shortened(k.name, 110), k.name, "", false, true},
                      category_cell(k.cat),
                      txt(std::string(classify::to_string(k.prov))),
                      txt(classify::is_addressable(k.prov) ? "yes" : "no"),
                      num(format_duration(k.total)),
                      num(format_percent(k.share_of_wall)),
                      num(std::to_string(k.count))});
  }
  return t;
}

table join_categories_table(const project::source_join& j) {
  table t{
      "join-categories",
      fmt::format("Per kernel category: its addressable share of the wall clock f_c, the speedups applied to it, and "
                  "the wall clock each estimate saves there"),
      {"category", "f_c", "speedups from", "problems", "evaluations", "wins", "win rate", "median win", "published",
       "expectation", "best"},
      {}};
  for (const auto& c : j.categories) {
    const auto opt = [](const std::optional<double>& v) { return v ? format_percent(*v, 2) : std::string("n/a"); };
    t.rows.push_back(
        {category_cell(c.cat), num(format_percent(c.fraction, 2)), txt(c.basis_text),
         num(c.problems ? std::to_string(c.problems) : "-"), num(c.evaluations ? std::to_string(c.evaluations) : "-"),
         num(c.problems ? std::to_string(c.wins) : "-"),
         num(c.applied == project::basis::none ? "-" : format_percent(c.win_rate)),
         num(c.median_win ? fmt::format("{:.3f}x", *c.median_win) : "-"), num(format_percent(c.saved_published, 2)),
         num(opt(c.saved_expectation)), num(opt(c.saved_best))});
  }
  return t;
}

table join_estimates_table(const project::source_join& j) {
  table t{"join-estimates",
          "The three estimates: wall clock saved, its interval, and the end-to-end speedup",
          {"estimate", "wall clock saved", "interval", "end to end"},
          {}};
  const std::array<std::pair<std::string, const project::estimate*>, 3> rows{
      {{"published: f_c * win rate * (1 - 1/median win)", &j.published},
       {"expectation over the distribution (wrong or slower = 1x)", &j.expectation},
       {"best candidate per problem", &j.best}}};
  for (const auto& [name, e] : rows) {
    if (!e->available) {
      t.rows.push_back({txt(name), num("n/a"), num("-"), num("-")});
      continue;
    }
    t.rows.push_back(
        {txt(name), num(format_percent(e->time_saved, 2)),
         num(e->low ? fmt::format("[{}, {}]", format_percent(*e->low, 2), format_percent(*e->high, 2)) : "none"),
         num(fmt::format("{:.4f}x", e->speedup()))});
  }
  return t;
}

table source_figures_table(const project::measured_source& s) {
  table t{"source-figures",
          "What the evaluations say (as `headroom stats`): fast_p is the share of all evaluations verified "
          "faster than p times PyTorch eager",
          {"evaluations", "correct", "correctness rate"},
          {}};
  if (!s.figures) return t;
  const auto& f = *s.figures;
  std::vector<cell> r{num(std::to_string(f.evaluations)), num(std::to_string(f.correct)),
                      num(format_percent(f.correctness_rate))};
  for (const auto& [p, share] : f.fast_p) {
    t.columns.push_back(fmt::format("fast_{:g}", p));
    r.push_back(num(format_percent(share)));
  }
  t.columns.insert(t.columns.end(), {"verified", "median", "geomean", "problems"});
  r.push_back(num(std::to_string(f.verified)));
  r.push_back(num(f.median_speedup ? fmt::format("{:.3f}x", *f.median_speedup) : "-"));
  r.push_back(num(f.geomean_speedup ? fmt::format("{:.3f}x", *f.geomean_speedup) : "-"));
  r.push_back(num(std::to_string(s.problems.size())));
  t.rows.push_back(std::move(r));
  return t;
}

table published_rows_table(const project::measured_source& s) {
  table t{"published-figures",
          "Published figures (no distribution: only the published formula can use them)",
          {"applies to", "problems", "wins", "win rate", "median win", "note"},
          {}};
  for (const auto& r : s.summaries) {
    t.rows.push_back({r.scope ? category_cell(r.scope->kernels) : txt("all categories"),
                      num(r.problems ? std::to_string(*r.problems) : "not given"),
                      num(r.wins ? std::to_string(*r.wins) : "-"), num(fmt::format("{:.3f}", r.win_rate)),
                      num(fmt::format("{:.3f}x", r.median_win)), txt(r.note)});
    if (r.scope && r.scope->name != classify::to_string(r.scope->kernels))
      t.rows.back()[0].text += " (" + r.scope->name + ")";
  }
  return t;
}

table extra_table(const section_table& s, std::size_t index) {
  table t{fmt::format("extra-{}", index), s.caption, s.columns, {}};
  for (const auto& row : s.rows) {
    std::vector<cell> r;
    for (const auto& v : row) r.push_back(txt(v));
    t.rows.push_back(std::move(r));
  }
  return t;
}

}  // namespace headroom::report::detail
