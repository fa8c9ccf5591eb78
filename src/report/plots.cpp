#include "headroom/report/plots.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "headroom/project/amdahl.hpp"
#include "headroom/report/palette.hpp"
#include "headroom/report/svg.hpp"
#include "headroom/report/units.hpp"

namespace headroom::report {
namespace {

using classify::category;
using classify::provenance;

// Each SVG carries its own styles so that a copy renders as it does in the report.
constexpr std::string_view plot_style =
    "<style>text{font-family:'DejaVu Sans',Verdana,Arial,sans-serif;font-size:11px;fill:#222}"
    ".axis-label{font-size:12px}.plot-title{font-size:13px;font-weight:bold}.small{font-size:10px;fill:#555}"
    "line.axis{stroke:#444;stroke-width:1}line.tick{stroke:#444;stroke-width:1}line.grid{stroke:#e2e2e2;stroke-width:1}"
    "line.ceiling{stroke-width:1.5;stroke-dasharray:6 4}line.bracket{stroke:#444;stroke-width:1}"
    "line.marker{stroke:#888;stroke-width:1;stroke-dasharray:3 3}line.whisker{stroke:#222;stroke-width:1.5}"
    "path.curve{stroke-width:2.2}path.curve.dashed{stroke-dasharray:7 4}rect.segment{stroke:#fff;stroke-width:0.5}"
    "rect.idle{stroke:#999;stroke-width:0.8}line.legend-line{stroke-width:2.2}line.legend-line.dashed{stroke-dasharray:7 4}</style>";

double text_width(std::string_view s, double px_per_char = 6.4) { return static_cast<double>(s.size()) * px_per_char; }

std::string shorten(std::string_view s, std::size_t n) {
  return s.size() <= n ? std::string(s) : std::string(s.substr(0, n - 3)) + "...";
}

// Ticks for a linear axis: about `count` round values (1, 2 or 5 times a power of ten) in [lo, hi].
std::vector<double> linear_ticks(double lo, double hi, int count) {
  const double raw = (hi - lo) / std::max(count, 1);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  std::vector<double> t;
  for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step)
    t.push_back(std::abs(v) < 1e-12 ? 0 : v);
  return t;
}

// Ticks for a log axis over [lo, hi]: 1, 2 and 5 times powers of ten (and 1.5, 3 over a short span).
std::vector<double> log_ticks(double lo, double hi) {
  const bool short_span = hi / lo <= 200;
  std::vector<double> t;
  for (int e = static_cast<int>(std::floor(std::log10(lo))); e <= static_cast<int>(std::ceil(std::log10(hi))); ++e) {
    for (double m : short_span ? std::vector<double>{1, 1.5, 2, 3, 5} : std::vector<double>{1, 2, 5}) {
      const double v = m * std::pow(10.0, e);
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) t.push_back(v);
    }
  }
  return t;
}

std::string tick_text(double v) { return fmt::format("{:g}", v); }

// A plot area with its axes: maps data to SVG coordinates.
struct frame {
  double left, top, right, bottom;  // the plot area in SVG units
  double x_lo, x_hi, y_lo, y_hi;
  bool x_log = false;
  double x(double v) const {
    const double t =
        x_log ? (std::log(v) - std::log(x_lo)) / (std::log(x_hi) - std::log(x_lo)) : (v - x_lo) / (x_hi - x_lo);
    return left + std::clamp(t, 0.0, 1.0) * (right - left);
  }
  double y(double v) const { return bottom - std::clamp((v - y_lo) / (y_hi - y_lo), 0.0, 1.0) * (bottom - top); }

  void draw_axes(svg::canvas& c, const std::vector<double>& xt, const std::vector<double>& yt, std::string_view x_label,
                 std::string_view y_label, std::string_view y_suffix = "") const {
    for (double v : yt) {
      c.line(left, y(v), right, y(v), "grid");
      c.text(left - 6, y(v) + 4, tick_text(v) + std::string(y_suffix), "tick-label", svg::anchor::end);
    }
    for (double v : xt) {
      c.line(x(v), bottom, x(v), bottom + 5, "tick");
      c.text(x(v), bottom + 18, tick_text(v), "tick-label", svg::anchor::middle);
    }
    c.line(left, bottom, right, bottom, "axis");
    c.line(left, top, left, bottom, "axis");
    c.text((left + right) / 2, bottom + 36, x_label, "axis-label", svg::anchor::middle);
    c.vertical_text(left - 46, (top + bottom) / 2, y_label, "axis-label");
  }
};

constexpr std::array<provenance, classify::provenance_count> bar_order{
    provenance::framework,      provenance::compiler_generated, provenance::custom,
    provenance::vendor_library, provenance::communication,      provenance::runtime,
};

}  // namespace

std::string window_text(const analyze::analysis_report& a) {
  if (a.timelines.size() == 1) return a.timelines.front().win.description;
  return fmt::format("the windows of {} timelines, device-time weighted", a.timelines.size());
}

std::string wall_clock_bar(const analyze::timeline_report& t, std::string_view window, std::string_view id) {
  const double width = 960, left = 12, right = width - 12, bar_top = 62, bar_height = 42;
  const double wall = static_cast<double>(std::max<trace::time_ns>(t.wall, 1));
  const auto px = [&](double ns) { return ns / wall * (right - left); };

  struct segment {
    provenance prov;
    category cat;
    double ns;
  };
  std::vector<segment> segments;
  for (auto p : bar_order) {
    std::vector<segment> of_prov;
    for (int k = 0; k < classify::category_count; ++k) {
      const double ns = t.attributed[static_cast<std::size_t>(p)][static_cast<std::size_t>(k)];
      if (ns > 0) of_prov.push_back({p, static_cast<category>(k), ns});
    }
    std::stable_sort(of_prov.begin(), of_prov.end(), [](const auto& a, const auto& b) { return a.ns > b.ns; });
    segments.insert(segments.end(), of_prov.begin(), of_prov.end());
  }
  std::vector<category> legend;
  for (const auto& s : segments) {
    if (std::find(legend.begin(), legend.end(), s.cat) == legend.end()) legend.push_back(s.cat);
  }
  const int legend_per_row = 6;
  const double legend_top = bar_top + bar_height + 52;
  const double height = legend_top + 22.0 * ((static_cast<int>(legend.size()) + legend_per_row) / legend_per_row) + 8;

  const std::string caption = fmt::format("window: {} of wall clock, {}", format_duration(t.wall), window);
  svg::canvas c(width, height, id, "Wall clock of the window by provenance and kernel category", caption);
  c.define(plot_style);
  const std::string hatch = fmt::format("{}-hatch", id);
  c.define(
      fmt::format("<pattern id=\"{}\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
                  "patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#ffffff\" "
                  "stroke-width=\"2\" stroke-opacity=\"0.55\"/></pattern>",
                  hatch));
  c.text(left, 16, shorten(caption, 150), "small");

  // Brackets above the bar: addressable / not addressable, then each provenance.
  struct span {
    std::string label;
    double from, to;
  };
  std::vector<span> upper, lower;
  double x = left;
  for (const auto& s : segments) {
    const double w = px(s.ns);
    const bool addr = classify::is_addressable(s.prov);
    const std::string group = addr ? "addressable" : "not addressable";
    if (upper.empty() || upper.back().label != group) upper.push_back({group, x, x});
    upper.back().to = x + w;
    const std::string prov(classify::to_string(s.prov));
    if (lower.empty() || lower.back().label != prov) lower.push_back({prov, x, x});
    lower.back().to = x + w;
    c.rect(x, bar_top, w, bar_height, category_colour(s.cat),
           fmt::format("{} / {}: {} ({} of the window){}", classify::to_string(s.prov), classify::to_string(s.cat),
                       format_duration(static_cast<std::int64_t>(s.ns)), format_percent(s.ns / wall, 2),
                       addr ? "" : ", not addressable"),
           {{"class", "segment"},
            {"data-provenance", std::string(classify::to_string(s.prov))},
            {"data-category", std::string(classify::to_string(s.cat))},
            {"data-addressable", addr ? "yes" : "no"},
            {"data-ns", fmt::format("{:.0f}", s.ns)},
            {"data-share", fmt::format("{:.6f}", s.ns / wall)}});
    if (!addr) c.rect(x, bar_top, w, bar_height, fmt::format("url(#{})", hatch), "", {{"pointer-events", "none"}});
    x += w;
  }
  const double idle_ns = std::max(0.0, wall - static_cast<double>(t.busy_all));
  c.rect(x, bar_top, px(idle_ns), bar_height, idle_colour,
         fmt::format("idle: {} ({} of the window)", format_duration(static_cast<std::int64_t>(idle_ns)),
                     format_percent(idle_ns / wall, 2)),
         {{"class", "idle"},
          {"data-category", "idle"},
          {"data-ns", fmt::format("{:.0f}", idle_ns)},
          {"data-share", fmt::format("{:.6f}", idle_ns / wall)}});
  if (idle_ns > 0) upper.push_back({"idle", x, x + px(idle_ns)});

  const auto bracket = [&](const span& s, double y, const std::string& text) {
    if (s.to - s.from < 2) return;
    c.line(s.from + 1, y, s.to - 1, y, "bracket");
    c.line(s.from + 1, y, s.from + 1, y + 4, "bracket");
    c.line(s.to - 1, y, s.to - 1, y + 4, "bracket");
    if (text_width(text) < s.to - s.from) c.text((s.from + s.to) / 2, y - 3, text, "small", svg::anchor::middle);
  };
  for (const auto& s : upper)
    bracket(s, 36, fmt::format("{} {}", s.label, format_percent((s.to - s.from) / (right - left))));
  for (const auto& s : lower)
    bracket(s, 54, fmt::format("{} {}", s.label, format_percent((s.to - s.from) / (right - left))));

  // The axis under the bar: share of the window.
  const double axis_y = bar_top + bar_height;
  c.line(left, axis_y, right, axis_y, "axis");
  for (int p = 0; p <= 100; p += 10) {
    const double tx = left + p / 100.0 * (right - left);
    c.line(tx, axis_y, tx, axis_y + 5, "tick");
    c.text(tx, axis_y + 17, std::to_string(p), "tick-label",
           p == 0     ? svg::anchor::start
           : p == 100 ? svg::anchor::end
                      : svg::anchor::middle);
  }
  c.text((left + right) / 2, axis_y + 34, "share of the window's wall clock (%); overlapping work split evenly",
         "axis-label", svg::anchor::middle);

  for (std::size_t i = 0; i < legend.size(); ++i) {
    const double lx = left + static_cast<double>(i % legend_per_row) * 155;
    const double ly = legend_top + 22.0 * static_cast<double>(i / legend_per_row);
    double share = 0;
    for (const auto& s : segments) share += s.cat == legend[i] ? s.ns / wall : 0;
    c.rect(lx, ly - 10, 12, 12, category_colour(legend[i]), "", {{"class", "swatch"}});
    c.text(lx + 17, ly, fmt::format("{} {}", classify::to_string(legend[i]), format_percent(share)), "legend");
  }
  const double ly = legend_top + 22.0 * static_cast<double>(legend.size() / legend_per_row);
  const double lx = left + static_cast<double>(legend.size() % legend_per_row) * 155;
  c.rect(lx, ly - 10, 12, 12, "#8c8c8c", "", {{"class", "swatch"}});
  c.rect(lx, ly - 10, 12, 12, fmt::format("url(#{})", hatch), "");
  c.text(lx + 17, ly, "hatched: not addressable", "legend");
  return c.str();
}

std::string amdahl_curve(double f, double fx, std::string_view id) {
  const double width = 640, height = 360;
  frame fr{78, 34, 600, 290, 1, 100, 1, 1, true};
  const double ceil_f = project::ceiling(f);
  const double top = std::isfinite(ceil_f) ? ceil_f : project::amdahl(f, fr.x_hi);
  const auto yt_probe = linear_ticks(1, std::max(top * 1.08, 1.02), 5);
  fr.y_hi = std::max(yt_probe.back(), std::max(top * 1.08, 1.02));
  svg::canvas c(width, height, id, "End-to-end speedup against the speedup of the addressable kernels (Amdahl)",
                fmt::format("addressable f = {}, exclusive f = {}; ceiling 1/(1-f) = {}", format_percent(f),
                            format_percent(fx), std::isfinite(ceil_f) ? fmt::format("{:.3f}x", ceil_f) : "none"));
  c.define(plot_style);
  fr.draw_axes(c, log_ticks(fr.x_lo, fr.x_hi), linear_ticks(1, fr.y_hi, 5),
               "speedup of the addressable kernels (x, log scale)", "end-to-end speedup (x)");

  const auto curve = [&](double frac, std::string_view colour, std::string_view cls, std::string_view name) {
    std::vector<std::pair<double, double>> pts;
    for (int i = 0; i <= 120; ++i) {
      const double s = std::pow(fr.x_hi, i / 120.0);
      pts.emplace_back(fr.x(s), fr.y(project::amdahl(frac, s)));
    }
    c.path(pts, colour, cls, fmt::format("{} = {}", name, format_percent(frac)),
           {{"data-fraction", fmt::format("{:.6f}", frac)}});
    const double cf = project::ceiling(frac);
    if (std::isfinite(cf) && cf <= fr.y_hi) {
      c.line(fr.left, fr.y(cf), fr.right, fr.y(cf), "ceiling",
             {{"stroke", std::string(colour)}, {"data-ceiling", fmt::format("{:.6f}", cf)}});
    }
    return cf;
  };
  const double cx = curve(fx, secondary_colour, "curve dashed", "exclusive f");
  const double cf = curve(f, primary_colour, "curve", "addressable f");
  if (std::isfinite(cf)) {
    c.text(fr.right, fr.y(cf) - 6, fmt::format("ceiling 1/(1-f) = {:.3f}x", cf), "ceiling-label", svg::anchor::end);
  }
  if (std::isfinite(cx) && fr.y(cx) - fr.y(cf) > 14) {
    c.text(fr.right, fr.y(cx) + 14, fmt::format("exclusive ceiling {:.3f}x", cx), "ceiling-label", svg::anchor::end);
  }
  for (double s : project::reference_speedups()) {
    if (!std::isfinite(s)) continue;
    const double e = project::amdahl(f, s);
    c.circle(fr.x(s), fr.y(e), 4, primary_colour,
             fmt::format("kernels {:g}x faster: {:.3f}x end to end ({} of the wall clock saved)", s, e,
                         format_percent(1 - 1 / e, 2)),
             {{"class", "reference-point"},
              {"data-kernel-speedup", fmt::format("{:g}", s)},
              {"data-end-to-end", fmt::format("{:.6f}", e)}});
    // Below and right of the point is under a concave curve, so clear of it; kept above the axis.
    c.text(fr.x(s) + 6, std::min(fr.y(e) + 15, fr.bottom - 4), fmt::format("{:.3f}x", e), "small");
  }
  // Legend bottom right, under the curves, while they end in the upper half of the plot; else top
  // left, under the ceiling line and above the curves.
  const bool curve_high = fr.y(project::amdahl(f, fr.x_hi)) < (fr.top + fr.bottom) / 2;
  const double lx = curve_high ? fr.right - 170 : fr.left + 12;
  const double ly = curve_high ? fr.bottom - 40 : (std::isfinite(cf) ? fr.y(cf) : fr.top) + 22;
  c.line(lx, ly, lx + 28, ly, "legend-line", {{"stroke", std::string(primary_colour)}});
  c.text(lx + 34, ly + 4, fmt::format("addressable f = {}", format_percent(f)), "legend");
  c.line(lx, ly + 18, lx + 28, ly + 18, "legend-line dashed", {{"stroke", std::string(secondary_colour)}});
  c.text(lx + 34, ly + 22, fmt::format("exclusive f = {}", format_percent(fx)), "legend");
  return c.str();
}

std::string speedup_cdf(const std::vector<double>& v, int evaluations, std::string_view id) {
  const double width = 640, height = 330;
  frame fr{78, 34, 600, 260, 0.1, 10, 0, 100, true};
  if (!v.empty()) {
    fr.x_lo = std::clamp(std::pow(10.0, std::floor(std::log10(std::min(v.front(), 0.5)))), 1e-3, 0.1);
    fr.x_hi = std::clamp(std::pow(10.0, std::ceil(std::log10(std::max(v.back(), 2.0)))), 10.0, 1e4);
  }
  svg::canvas c(width, height, id, "Distribution of verified speedups (CDF)",
                fmt::format("{} verified speedups of {} evaluations", v.size(), evaluations));
  c.define(plot_style);
  fr.draw_axes(c, log_ticks(fr.x_lo, fr.x_hi), {0, 20, 40, 60, 80, 100},
               "verified speedup over PyTorch eager (x, log scale)", "verified candidates at or below (%)");
  c.line(fr.x(1), fr.top, fr.x(1), fr.bottom, "marker");
  c.text(fr.x(1) + 4, fr.top + 10, "1x: as fast as eager", "small");
  if (v.empty()) {
    c.text((fr.left + fr.right) / 2, (fr.top + fr.bottom) / 2, "no verified speedup", "axis-label",
           svg::anchor::middle);
    return c.str();
  }
  std::vector<std::pair<double, double>> pts{{fr.x(fr.x_lo), fr.y(0)}};
  const double n = static_cast<double>(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    pts.emplace_back(fr.x(v[i]), fr.y(100.0 * static_cast<double>(i) / n));
    pts.emplace_back(fr.x(v[i]), fr.y(100.0 * static_cast<double>(i + 1) / n));
  }
  pts.emplace_back(fr.x(fr.x_hi), fr.y(100));
  const auto faster = std::count_if(v.begin(), v.end(), [](double s) { return s > 1; });
  c.path(pts, primary_colour, "curve",
         fmt::format("{} verified speedups, {} above 1x; median {:.3f}x", v.size(), faster,
                     v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2),
         {{"data-count", std::to_string(v.size())},
          {"data-min", fmt::format("{:.6g}", v.front())},
          {"data-max", fmt::format("{:.6g}", v.back())}});
  c.text(fr.right, height - 8,
         fmt::format("{} verified of {} evaluations; {} faster than eager", v.size(), evaluations, faster), "small",
         svg::anchor::end);
  return c.str();
}

std::string estimates_chart(const std::vector<estimate_group>& groups, std::string_view id) {
  const double width = 960, label_w = 300, row_h = 18, group_gap = 14, top = 30;
  double hi = 0.01;
  for (const auto& g : groups) {
    for (const auto* e : {&g.published, &g.expectation, &g.best}) {
      if (e->available) hi = std::max({hi, e->time_saved, e->high.value_or(0)});
    }
  }
  const auto xt = linear_ticks(0, hi * 100 * 1.05, 6);
  const double x_hi = std::max(xt.back(), hi * 100 * 1.05);
  const double plot_h = static_cast<double>(groups.size()) * (3 * row_h + group_gap);
  const double height = top + plot_h + 56;
  frame fr{label_w, top, width - 30, top + plot_h, 0, x_hi, 0, 1, false};
  svg::canvas c(width, height, id, "Wall clock saved by the measured speedups: three estimates with intervals",
                "per workload and results source: published formula, expectation over the distribution, best candidate "
                "per problem; whiskers are the bootstrap intervals");
  c.define(plot_style);
  for (double v : xt) {
    c.line(fr.x(v), fr.top, fr.x(v), fr.bottom, "grid");
    c.line(fr.x(v), fr.bottom, fr.x(v), fr.bottom + 5, "tick");
    c.text(fr.x(v), fr.bottom + 18, tick_text(v), "tick-label", svg::anchor::middle);
  }
  c.line(fr.left, fr.bottom, fr.right, fr.bottom, "axis");
  c.line(fr.left, fr.top, fr.left, fr.bottom, "axis");
  c.text((fr.left + fr.right) / 2, fr.bottom + 36, "wall clock saved (% of the window)", "axis-label",
         svg::anchor::middle);
  const std::array<std::pair<std::string_view, std::string_view>, 3> kinds{
      {{"published", "#4e79a7"}, {"expectation", "#f28e2b"}, {"best", "#59a14f"}}};
  double y = top + group_gap / 2;
  for (const auto& g : groups) {
    c.text(fr.left - 8, y + 1.5 * row_h + 4, shorten(g.label, 44), "legend", svg::anchor::end);
    const std::array<const project::estimate*, 3> es{&g.published, &g.expectation, &g.best};
    for (std::size_t k = 0; k < 3; ++k) {
      const auto& e = *es[k];
      const double cy = y + static_cast<double>(k) * row_h;
      if (!e.available) {
        c.text(fr.left + 6, cy + 13, fmt::format("{}: not available from published figures", kinds[k].first), "small");
        continue;
      }
      const std::string interval =
          e.low ? fmt::format(" [{}, {}]", format_percent(*e.low, 2), format_percent(*e.high, 2)) : "";
      c.rect(fr.left, cy + 3, fr.x(100 * e.time_saved) - fr.left, row_h - 6, kinds[k].second,
             fmt::format("{}: {} of the wall clock saved{}, {:.4f}x end to end", kinds[k].first,
                         format_percent(e.time_saved, 2), interval, e.speedup()),
             {{"class", "estimate"},
              {"data-estimate", std::string(kinds[k].first)},
              {"data-time-saved", fmt::format("{:.6f}", e.time_saved)}});
      if (e.low) {
        const double my = cy + row_h / 2;
        c.line(fr.x(100 * *e.low), my, fr.x(100 * *e.high), my, "whisker");
        c.line(fr.x(100 * *e.low), my - 4, fr.x(100 * *e.low), my + 4, "whisker");
        c.line(fr.x(100 * *e.high), my - 4, fr.x(100 * *e.high), my + 4, "whisker");
      }
      c.text(fr.x(100 * e.high.value_or(e.time_saved)) + 6, cy + 13, format_percent(e.time_saved, 2), "small");
    }
    y += 3 * row_h + group_gap;
  }
  double lx = fr.left;
  for (const auto& [name, colour] : kinds) {
    c.rect(lx, 10, 12, 12, colour, "", {{"class", "swatch"}});
    c.text(lx + 17, 20, std::string(name), "legend");
    lx += 120;
  }
  return c.str();
}

}  // namespace headroom::report
