// The report as one HTML file: inline SVG and CSS, no script, nothing fetched, so it opens from
// disk, mails as one attachment and prints (print styles keep each figure and table on one page).
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "headroom/project/amdahl.hpp"
#include "headroom/report/document.hpp"
#include "headroom/report/palette.hpp"
#include "headroom/report/plots.hpp"
#include "headroom/report/svg.hpp"
#include "headroom/report/units.hpp"
#include "report_tables.hpp"

namespace headroom::report {
namespace {

using svg::escape;

constexpr std::string_view page_style = R"(
:root { color-scheme: light; }
body { font-family: 'DejaVu Sans', Verdana, Arial, sans-serif; font-size: 14px; line-height: 1.45; color: #222;
       background: #fff; max-width: 1000px; margin: 0 auto; padding: 24px 20px 48px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 20px; margin: 36px 0 8px; padding-top: 8px; border-top: 2px solid #1f4e79; }
h3 { font-size: 16px; margin: 22px 0 6px; }
p.lede { font-size: 15px; color: #444; margin: 0 0 12px; }
p.inputs, p.files, p.window { color: #444; font-size: 13px; }
code { font-family: 'DejaVu Sans Mono', monospace; font-size: 12px; }
nav ul { columns: 2; padding-left: 18px; margin: 6px 0; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 12.5px; width: 100%; }
caption { text-align: left; font-size: 12.5px; color: #444; padding: 2px 0 6px; caption-side: top; }
th, td { border-bottom: 1px solid #ddd; padding: 4px 6px; text-align: left; vertical-align: top; }
th { background: #f2f4f7; font-weight: 600; border-bottom: 1px solid #bbb; }
td.num, th.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
td.nowrap, td:first-child { white-space: nowrap; }
td.name { white-space: normal; word-break: break-all; font-family: 'DejaVu Sans Mono', monospace; font-size: 11.5px; }
span.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 5px; border: 1px solid #0003;
              vertical-align: baseline; print-color-adjust: exact; -webkit-print-color-adjust: exact; }
figure { margin: 12px 0 18px; }
figure svg { max-width: 100%; height: auto; display: block; }
figcaption { font-size: 12.5px; color: #444; margin-top: 4px; }
ul.notes { font-size: 12.5px; color: #444; }
section.extra { border-left: 3px solid #c0504d; padding-left: 12px; }
footer { margin-top: 40px; font-size: 12px; color: #666; border-top: 1px solid #ddd; padding-top: 8px; }
@media print {
  body { max-width: none; padding: 0; font-size: 11px; }
  nav { display: none; }
  h2 { break-before: page; }
  h2.first { break-before: avoid; }
  figure, table, tr { break-inside: avoid; }
  * { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
}
@page { size: A4; margin: 14mm; }
)";

class html_writer {
 public:
  explicit html_writer(std::ostream& out) : out_(out) {}

  void table(const detail::table& t) {
    if (t.rows.empty()) return;
    fmt::print(out_, "<table class=\"{}\">\n<caption>{}</caption>\n<thead><tr>", escape(t.id), escape(t.caption));
    for (std::size_t i = 0; i < t.columns.size(); ++i) {
      const bool numeric = !t.rows.empty() && i < t.rows.front().size() && t.rows.front()[i].numeric;
      fmt::print(out_, "<th{}>{}</th>", numeric ? " class=\"num\"" : "", escape(t.columns[i]));
    }
    fmt::print(out_, "</tr></thead>\n<tbody>\n");
    for (const auto& row : t.rows) {
      fmt::print(out_, "<tr>");
      for (const auto& c : row) {
        const std::string cls = c.numeric ? "num" : c.code ? "name" : !c.swatch.empty() ? "nowrap" : "";
        fmt::print(out_, "<td{}{}>", cls.empty() ? "" : fmt::format(" class=\"{}\"", cls),
                   c.title.empty() ? "" : fmt::format(" title=\"{}\"", escape(c.title)));
        if (!c.swatch.empty())
          fmt::print(out_, "<span class=\"swatch\" style=\"background:{}\"></span>", escape(c.swatch));
        fmt::print(out_, "{}</td>", escape(c.text));
      }
      fmt::print(out_, "</tr>\n");
    }
    fmt::print(out_, "</tbody></table>\n");
  }

  void figure(const std::string& svg_text, std::string_view caption) {
    fmt::print(out_, "<figure>\n{}<figcaption>{}</figcaption>\n</figure>\n", svg_text, escape(caption));
  }

  void notes(const std::vector<std::string>& ns) {
    if (ns.empty()) return;
    fmt::print(out_, "<ul class=\"notes\">\n");
    for (const auto& n : ns) fmt::print(out_, "<li>{}</li>\n", escape(n));
    fmt::print(out_, "</ul>\n");
  }

  void extra(const extra_section& s, std::size_t index) {
    fmt::print(out_, "<section class=\"extra {}\" id=\"extra-{}\">\n<h3>{}</h3>\n", escape(s.kind), index,
               escape(s.title));
    for (const auto& p : s.paragraphs) fmt::print(out_, "<p>{}</p>\n", escape(p));
    for (std::size_t i = 0; i < s.tables.size(); ++i) table(detail::extra_table(s.tables[i], i));
    if (!s.bars.empty()) figure(section_bars(s, index), s.bar_label);
    fmt::print(out_, "</section>\n");
  }

 private:
  static std::string section_bars(const extra_section& s, std::size_t index);
  std::ostream& out_;
};

// A plain bar chart for an extra section: one bar per value, whiskers for intervals.
std::string html_writer::section_bars(const extra_section& s, std::size_t index) {
  const double width = 960, label_w = 300, row_h = 22, top = 12;
  double hi = 0;
  for (const auto& b : s.bars) hi = std::max({hi, b.value, b.high.value_or(0)});
  if (hi <= 0) hi = 1;
  if (s.band && s.band->high) hi = std::max(hi, *s.band->high);
  const double height = top + row_h * static_cast<double>(s.bars.size()) + (s.band ? 60 : 44);
  svg::canvas c(width, height, fmt::format("extra-{}-bars", index), s.title, s.bar_label);
  c.define(
      "<style>text{font-family:'DejaVu Sans',Verdana,Arial,sans-serif;font-size:11px;fill:#222}"
      "line.axis{stroke:#444}line.whisker{stroke:#222;stroke-width:1.5}</style>");
  const double right = width - 70;
  const auto x = [&](double v) { return label_w + std::max(v, 0.0) / hi * (right - label_w); };
  double y = top;
  if (s.band && s.band->low && s.band->high) {
    const double rows = row_h * static_cast<double>(s.bars.size());
    c.rect(x(*s.band->low), top, x(*s.band->high) - x(*s.band->low), rows, "#d9d9d9",
           fmt::format("{}: {:g} to {:g}", s.band->label, *s.band->low, *s.band->high), {{"class", "band"}});
    c.text((x(*s.band->low) + x(*s.band->high)) / 2, top + rows + 14, s.band->label, "legend", svg::anchor::middle);
  }
  for (const auto& b : s.bars) {
    c.text(label_w - 8, y + 15, b.label, "legend", svg::anchor::end);
    c.rect(label_w, y + 4, x(b.value) - label_w, row_h - 8, primary_colour, fmt::format("{}: {:g}", b.label, b.value),
           {{"class", "bar"}, {"data-value", fmt::format("{:.6g}", b.value)}});
    if (b.low && b.high) {
      c.line(x(*b.low), y + row_h / 2, x(*b.high), y + row_h / 2, "whisker");
    }
    c.text(x(b.high.value_or(b.value)) + 6, y + 15, fmt::format("{:g}", b.value), "legend");
    y += row_h;
  }
  c.line(label_w, top, label_w, y, "axis");
  if (s.band) y += 16;  // the band's label under the bars
  c.line(label_w, y, right, y, "axis");
  c.text(label_w, y + 14, "0", "legend", svg::anchor::middle);
  c.text(right, y + 14, fmt::format("{:g}", hi), "legend", svg::anchor::middle);
  c.text((label_w + right) / 2, y + 32, s.bar_label, "legend", svg::anchor::middle);
  return c.str();
}

std::string anchor_of(std::string_view name) {
  std::string a = "workload-";
  for (char ch : name) a += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '-';
  return a;
}

}  // namespace

void write_html(std::ostream& out, const document& d) {
  html_writer w(out);
  fmt::print(out,
             "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
             "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
             "<meta name=\"generator\" content=\"{}\">\n<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n",
             escape(d.generator), escape(d.title), page_style);
  fmt::print(
      out,
      "<header>\n<h1>{}</h1>\n<p class=\"lede\">What is a faster kernel worth here? The share of each workload's "
      "wall clock that a new kernel could replace, and what measured kernel speedups buy when they replace "
      "it.</p>\n",
      escape(d.title));
  std::string workloads, sources;
  for (const auto& wl : d.workloads) {
    for (const auto& f : wl.files) workloads += (workloads.empty() ? "" : ", ") + f;
  }
  for (const auto& s : d.sources) {
    if (sources.find(s.origin) == std::string::npos) sources += (sources.empty() ? "" : ", ") + s.origin;
  }
  fmt::print(out, "<p class=\"inputs\">Traces: <code>{}</code>{}</p>\n</header>\n",
             escape(workloads.empty() ? "none" : workloads),
             sources.empty() ? std::string() : fmt::format("<br>Measured speedups: <code>{}</code>", escape(sources)));

  fmt::print(out, "<nav>\n<ul>\n<li><a href=\"#summary\">Summary</a></li>\n");
  for (const auto& wl : d.workloads)
    fmt::print(out, "<li><a href=\"#{}\">{}</a></li>\n", anchor_of(wl.name), escape(wl.name));
  if (!d.sources.empty()) fmt::print(out, "<li><a href=\"#results\">Measured speedups</a></li>\n");
  fmt::print(out, "<li><a href=\"#method\">Method</a></li>\n</ul>\n</nav>\n");

  std::vector<bool> placed(d.sections.size(), false);
  for (std::size_t k = 0; k < d.sections.size(); ++k) {
    if (!d.sections[k].lead) continue;
    w.extra(d.sections[k], k);
    placed[k] = true;
  }
  fmt::print(out, "<section id=\"summary\">\n<h2 class=\"first\">Summary</h2>\n");
  w.table(detail::workloads_table(d));
  if (!d.sources.empty() && !d.workloads.empty()) {
    w.table(detail::estimates_table(d));
    std::vector<estimate_group> groups;
    for (const auto& wl : d.workloads) {
      for (const auto& j : wl.projection.sources) {
        groups.push_back({fmt::format("{} / {}", wl.name, j.source), j.published, j.expectation, j.best});
      }
    }
    w.figure(estimates_chart(groups, "estimates"),
             "Wall clock saved, three estimates per workload and results source; whiskers: bootstrap intervals.");
  }
  fmt::print(out, "</section>\n");

  for (std::size_t i = 0; i < d.workloads.size(); ++i) {
    const auto& wl = d.workloads[i];
    const auto& a = wl.projection.analysis;
    const auto& tot = a.total;
    const std::string id = anchor_of(wl.name);
    fmt::print(out, "<section class=\"workload\" id=\"{}\">\n<h2>{}</h2>\n", id, escape(wl.name));
    std::string files;
    for (const auto& f : wl.files) files += (files.empty() ? "" : ", ") + f;
    fmt::print(out, "<p class=\"files\">From <code>{}</code>{}.</p>\n", escape(files),
               a.platform.empty() ? "" : fmt::format(", platform {}", escape(a.platform)));
    for (const auto& t : a.timelines) {
      fmt::print(out, "<p class=\"window\"><strong>Window</strong> of {}: {} from +{} to +{}: {}.</p>\n",
                 escape(t.label), format_duration(t.wall), format_duration(t.win.start - a.origin),
                 format_duration(t.win.end - a.origin), escape(t.win.description));
    }
    fmt::print(out, "<h3>Where the wall clock goes</h3>\n");
    w.figure(
        wall_clock_bar(tot, window_text(a), id + "-wall-clock"),
        fmt::format("The window's wall clock ({}) by provenance and kernel category, then idle. Addressable f = {} "
                    "(exclusive {}); time when two classes run at once is split evenly between them, so the bar adds "
                    "up to the window.",
                    format_duration(tot.wall), format_percent(tot.addressable_fraction()),
                    format_percent(tot.addressable_exclusive_fraction())));
    w.table(detail::shares_table(wl));
    fmt::print(out, "<h3>What a kernel speedup buys (Amdahl)</h3>\n");
    w.figure(
        amdahl_curve(tot.addressable_fraction(), tot.addressable_exclusive_fraction(), id + "-amdahl"),
        fmt::format("S = 1 / ((1 - f) + f / s) for a speedup s of every addressable kernel; ceiling 1/(1 - f) = {}.",
                    std::isfinite(project::ceiling(tot.addressable_fraction()))
                        ? fmt::format("{:.3f}x", project::ceiling(tot.addressable_fraction()))
                        : std::string("none (everything is addressable)")));
    w.table(detail::reference_table(wl));
    fmt::print(out, "<h3>Top kernels</h3>\n");
    w.table(detail::top_kernels_table(wl));
    for (const auto& j : wl.projection.sources) {
      fmt::print(out, "<h3>Joined to {}</h3>\n<p class=\"files\">Speedups from <code>{}</code>{}.</p>\n",
                 escape(j.source), escape(j.origin), j.published_only ? " (published figures)" : "");
      w.table(detail::join_categories_table(j));
      w.table(detail::join_estimates_table(j));
      w.notes(j.notes);
    }
    w.notes(a.notes);
    for (std::size_t k = 0; k < d.sections.size(); ++k) {
      if (!placed[k] && d.sections[k].workload == wl.name) {
        w.extra(d.sections[k], k);
        placed[k] = true;
      }
    }
    fmt::print(out, "</section>\n");
  }

  if (!d.sources.empty()) {
    fmt::print(out, "<section id=\"results\">\n<h2>Measured speedups</h2>\n");
    for (std::size_t i = 0; i < d.sources.size(); ++i) {
      const auto& s = d.sources[i];
      fmt::print(
          out,
          "<section class=\"source\" id=\"source-{}\">\n<h3>{}</h3>\n<p class=\"files\">From <code>{}</code>.</p>\n", i,
          escape(s.name), escape(s.origin));
      if (s.published_only()) {
        w.table(detail::published_rows_table(s));
      } else {
        w.table(detail::source_figures_table(s));
        w.figure(
            speedup_cdf(s.verified_speedups, s.figures ? s.figures->evaluations : 0, fmt::format("source-{}-cdf", i)),
            "Cumulative distribution of the verified speedups; a candidate that is wrong, fails or is not verified "
            "has none, and the join counts it as 1x.");
      }
      fmt::print(out, "</section>\n");
    }
    fmt::print(out, "</section>\n");
  }

  bool any_rest = false;
  for (std::size_t k = 0; k < d.sections.size(); ++k) any_rest = any_rest || !placed[k];
  if (any_rest) {
    fmt::print(out, "<section id=\"more\">\n<h2>More measurements</h2>\n");
    for (std::size_t k = 0; k < d.sections.size(); ++k) {
      if (!placed[k]) w.extra(d.sections[k], k);
    }
    fmt::print(out, "</section>\n");
  }

  fmt::print(out, R"(<section id="method">
<h2>Method</h2>
<p><strong>Window.</strong> The span analysed: whole steps between step markers, or the repeating unit of the kernel
sequence after warm-up; named above for each workload. <strong>Busy time</strong> is the union of intervals, not the
sum of durations. <strong>Addressable f</strong>: busy time of kernels outside hand-tuned vendor libraries and
collectives, over the window's wall clock; <strong>exclusive f</strong> leaves out addressable time overlapped by
other work. The stacked bar splits time when several classes run at once evenly among them.</p>
<p><strong>The join.</strong> Each evaluated problem has a category (data/problems/categories.toml); its verified
speedups apply to the workload's addressable kernels of that kernel category (f_c). Categories without a problem get
the source's pooled distribution or 1x (here: {}). Three estimates of the wall clock saved: the published formula
f_c * win rate * (1 - 1/median win speedup); the expectation of 1 - 1/s over the evaluations, a wrong, failed or
slower candidate counting as s = 1; and the best candidate of each problem. The end-to-end speedup is 1/(1 - saved).
Intervals: {:g}% percentile bootstrap over problems ({} resamples, seed {}). docs/method.md has the details.</p>
</section>
<footer>Written by {}. Self-contained: no script, nothing loaded from the network.</footer>
</body>
</html>
)",
             project::to_string(d.join.uncovered), 100 * d.join.confidence, d.join.resamples, d.join.seed,
             escape(d.generator));
}

}  // namespace headroom::report
