// The report as Markdown: the same tables as the HTML, each plot saved as an SVG file by the
// caller's sink and linked as an image.
#include <fmt/format.h>
#include <fmt/ostream.h>

#include "headroom/report/document.hpp"
#include "headroom/report/plots.hpp"
#include "headroom/report/units.hpp"
#include "report_tables.hpp"

namespace headroom::report {
namespace {

std::string md_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|' || c == '*' || c == '_' || c == '`' || c == '[' || c == ']' || c == '<' || c == '>') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

void table(std::ostream& out, const detail::table& t) {
  if (t.rows.empty()) return;
  fmt::print(out, "{}\n\n|", md_escape(t.caption));
  for (const auto& c : t.columns) fmt::print(out, " {} |", md_escape(c));
  fmt::print(out, "\n|");
  for (std::size_t i = 0; i < t.columns.size(); ++i) {
    const bool numeric = i < t.rows.front().size() && t.rows.front()[i].numeric;
    fmt::print(out, " {} |", numeric ? "---:" : "---");
  }
  fmt::print(out, "\n");
  for (const auto& row : t.rows) {
    fmt::print(out, "|");
    for (const auto& c : row) fmt::print(out, " {} |", md_escape(c.title.empty() ? c.text : c.title));
    fmt::print(out, "\n");
  }
  fmt::print(out, "\n");
}

void plot(std::ostream& out, const plot_sink& sink, std::string_view name, const std::string& svg,
          std::string_view caption) {
  const std::string link = sink ? sink(name, svg) : std::string();
  if (!link.empty()) fmt::print(out, "![{}]({})\n\n", md_escape(caption), link);
}

void notes(std::ostream& out, const std::vector<std::string>& ns) {
  for (const auto& n : ns) fmt::print(out, "- {}\n", md_escape(n));
  if (!ns.empty()) fmt::print(out, "\n");
}

void extra(std::ostream& out, const extra_section& s) {
  fmt::print(out, "### {}\n\n", md_escape(s.title));
  for (const auto& p : s.paragraphs) fmt::print(out, "{}\n\n", md_escape(p));
  for (std::size_t i = 0; i < s.tables.size(); ++i) table(out, detail::extra_table(s.tables[i], i));
  if (!s.bars.empty()) {
    fmt::print(out, "| {} | value |\n| --- | ---: |\n", md_escape(s.bar_label));
    for (const auto& b : s.bars) {
      fmt::print(out, "| {} | {:g}{} |\n", md_escape(b.label), b.value,
                 b.low && b.high ? fmt::format(" [{:g}, {:g}]", *b.low, *b.high) : "");
    }
    fmt::print(out, "\n");
  }
  if (s.band && s.band->low && s.band->high) {
    fmt::print(out, "{}: {:g} to {:g}.\n\n", md_escape(s.band->label), *s.band->low, *s.band->high);
  }
}

}  // namespace

void write_markdown(std::ostream& out, const document& d, const plot_sink& save_plot) {
  fmt::print(out,
             "# {}\n\nWhat is a faster kernel worth here? The share of each workload's wall clock that a new kernel "
             "could replace, and what measured kernel speedups buy when they replace it.\n\n",
             md_escape(d.title));
  std::vector<bool> placed(d.sections.size(), false);
  for (std::size_t k = 0; k < d.sections.size(); ++k) {
    if (!d.sections[k].lead) continue;
    extra(out, d.sections[k]);
    placed[k] = true;
  }
  fmt::print(out, "## Summary\n\n");
  table(out, detail::workloads_table(d));
  if (!d.sources.empty() && !d.workloads.empty()) {
    table(out, detail::estimates_table(d));
    std::vector<estimate_group> groups;
    for (const auto& wl : d.workloads) {
      for (const auto& j : wl.projection.sources) {
        groups.push_back({fmt::format("{} / {}", wl.name, j.source), j.published, j.expectation, j.best});
      }
    }
    plot(out, save_plot, "estimates", estimates_chart(groups, "estimates"), "wall clock saved, three estimates");
  }
  for (const auto& wl : d.workloads) {
    const auto& a = wl.projection.analysis;
    const auto& tot = a.total;
    fmt::print(out, "## {}\n\n", md_escape(wl.name));
    for (const auto& t : a.timelines) {
      fmt::print(out, "Window of {}: {}, {}.\n\n", md_escape(t.label), format_duration(t.wall),
                 md_escape(t.win.description));
    }
    plot(out, save_plot, wl.name + "-wall-clock", wall_clock_bar(tot, window_text(a), wl.name + "-wall-clock"),
         "wall clock by provenance and category");
    table(out, detail::shares_table(wl));
    plot(out, save_plot, wl.name + "-amdahl",
         amdahl_curve(tot.addressable_fraction(), tot.addressable_exclusive_fraction(), wl.name + "-amdahl"),
         "Amdahl curve");
    table(out, detail::reference_table(wl));
    table(out, detail::top_kernels_table(wl));
    for (const auto& j : wl.projection.sources) {
      fmt::print(out, "### Joined to {}\n\nSpeedups from {}.\n\n", md_escape(j.source), md_escape(j.origin));
      table(out, detail::join_categories_table(j));
      table(out, detail::join_estimates_table(j));
      notes(out, j.notes);
    }
    notes(out, a.notes);
    for (std::size_t k = 0; k < d.sections.size(); ++k) {
      if (!placed[k] && d.sections[k].workload == wl.name) {
        extra(out, d.sections[k]);
        placed[k] = true;
      }
    }
  }
  if (!d.sources.empty()) fmt::print(out, "## Measured speedups\n\n");
  for (std::size_t i = 0; i < d.sources.size(); ++i) {
    const auto& s = d.sources[i];
    fmt::print(out, "### {}\n\nFrom {}.\n\n", md_escape(s.name), md_escape(s.origin));
    if (s.published_only()) {
      table(out, detail::published_rows_table(s));
    } else {
      table(out, detail::source_figures_table(s));
      plot(out, save_plot, fmt::format("source-{}-cdf", i),
           speedup_cdf(s.verified_speedups, s.figures ? s.figures->evaluations : 0, fmt::format("source-{}-cdf", i)),
           "CDF of verified speedups");
    }
  }
  bool heading = false;
  for (std::size_t k = 0; k < d.sections.size(); ++k) {
    if (placed[k]) continue;
    if (!heading) fmt::print(out, "## More measurements\n\n");
    heading = true;
    extra(out, d.sections[k]);
  }
  fmt::print(out,
             "---\nWritten by {}. docs/method.md defines every figure; intervals: {:g}% percentile bootstrap over "
             "problems ({} resamples, seed {}); categories without a problem: {}.\n",
             md_escape(d.generator), 100 * d.join.confidence, d.join.resamples, d.join.seed,
             project::to_string(d.join.uncovered));
}

}  // namespace headroom::report
