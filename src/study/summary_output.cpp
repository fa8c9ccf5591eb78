// The study's tables: Markdown and JSON renderings of a study_summary.
#include "headroom/study/summary_output.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>

#include "headroom/project/amdahl.hpp"
#include "headroom/report/units.hpp"
#include "headroom/util/json.hpp"

namespace headroom::study {
namespace {

using report::format_duration;
using report::format_percent;

std::string percent(double f) { return format_percent(f); }
std::string speedup(double s) { return std::isinf(s) ? "inf" : fmt::format("{:.3f}x", s); }
std::string cell(std::string text) {
  std::replace(text.begin(), text.end(), '|', '/');  // a '|' would split the Markdown cell
  return text;
}

// The window's wall clock per step, or the whole window when it has no steps.
std::string per_step(const run_figures& f) {
  return f.steps > 0 ? format_duration(f.wall / f.steps) : format_duration(f.wall);
}

std::string window_text(const run_figures& f) {
  if (f.steps > 0) return fmt::format("{}, {}", f.window_source, f.steps);
  return f.window_source;
}

bool is_transformer(const study_row& r) { return r.domain == "transformer"; }

std::string range_text(const std::vector<double>& v) {
  if (v.empty()) return "none";
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return v.size() == 1 ? percent(*lo) : fmt::format("{} to {}", percent(*lo), percent(*hi));
}

std::string milliseconds(const std::optional<double>& seconds) {
  return seconds ? fmt::format("{:.3f} ms", *seconds * 1e3) : "n/a";
}

study_table main_table(const study_summary& s) {
  study_table t;
  t.columns = {"workload",
               "domain",
               "variant",
               "recorded by",
               "window",
               "per step",
               "idle",
               "GEMM+attention of kernel time",
               "published",
               "addressable f",
               "published f",
               "exclusive f",
               "ceiling 1/(1-f)",
               fmt::format("S at {:g}x", s.kernel_speedup)};
  t.numeric = {false, false, false, false, false, true, true, true, false, true, false, true, true, true};
  for (const auto& r : s.rows) {
    const run_result* h = r.headline();
    if (h == nullptr) continue;
    const auto& f = *h->figures;
    const double a = f.addressable_fraction();
    t.rows.push_back({r.workload, r.domain, r.variant, h == &r.headroom ? "headroom" : "torch.profiler", window_text(f),
                      per_step(f), percent(f.idle_fraction()), percent(f.gemm_attention_share()),
                      is_transformer(r) ? fmt::format("{:.0f}-{:.0f}%", 100 * published_gemm_attention_low,
                                                      100 * published_gemm_attention_high)
                                        : "",
                      percent(a), r.domain == "recommender" ? percent(published_recommender_addressable) : "",
                      percent(f.addressable_exclusive_fraction()), speedup(project::ceiling(a)),
                      speedup(project::amdahl(a, s.kernel_speedup))});
  }
  t.bold_column = 9;
  return t;
}

study_table agreement_table(const study_summary& s) {
  study_table t;
  t.caption = "headroom against torch.profiler";
  t.intro =
      "The same workload recorded by each in separate processes, each trace over every timed step: "
      "headroom's store by its ProfilerStep#N ranges with no warm-up step skipped, torch.profiler's "
      "whole trace (it records exactly the timed steps).";
  t.columns = {"workload",   "variant",        "f, headroom",          "f, torch.profiler",
               "difference", "step, headroom", "step, torch.profiler", "step ratio"};
  t.numeric = {false, false, true, true, true, true, true, true};
  t.footnote =
      "Step ratio: headroom's median step over torch.profiler's, less one (each run's own median; "
      "separate processes differ by about 1% on their own).";
  for (const auto& r : s.rows) {
    if (!r.headroom.figures || !r.torch.figures) continue;
    const auto every_step = [](const run_result& x) -> const run_figures& {
      return x.all_steps_figures ? *x.all_steps_figures : *x.figures;
    };
    const double fo = every_step(r.headroom).addressable_fraction();
    const double ft = every_step(r.torch).addressable_fraction();
    const auto median = [](const run_result& x) -> std::optional<double> {
      return x.harness ? x.harness->median_step_s : std::nullopt;
    };
    const auto mo = median(r.headroom), mt = median(r.torch);
    t.rows.push_back({r.workload, r.variant, percent(fo), percent(ft), fmt::format("{:+.1f} points", 100 * (fo - ft)),
                      milliseconds(mo), milliseconds(mt),
                      mo && mt && *mt > 0 ? fmt::format("{:+.2f}%", 100 * (*mo / *mt - 1)) : "n/a"});
  }
  return t;
}

study_table harness_table(const study_summary& s) {
  study_table t;
  t.caption = "The runs";
  t.columns = {"workload", "variant", "what ran", "device", "torch", "timed steps", "median step", "warm-up"};
  t.numeric = {false, false, false, false, false, true, true, true};
  for (const auto& r : s.rows) {
    if (!r.headroom.harness) continue;
    const auto& h = *r.headroom.harness;
    t.rows.push_back({r.workload, r.variant, h.description, h.device, h.torch_version, std::to_string(h.steps),
                      milliseconds(h.median_step_s), h.warmup_s ? fmt::format("{:.1f} s", *h.warmup_s) : "n/a"});
  }
  return t;
}

study_table failures_table(const study_summary& s) {
  study_table t;
  t.caption = "Runs without figures";
  t.columns = {"run", "status"};
  t.numeric = {false, false};
  for (const auto& r : s.rows) {
    for (const run_result* x : {&r.headroom, &r.torch}) {
      if (x->status != "ok" && !x->folder.empty()) t.rows.push_back({x->folder, x->status});
    }
  }
  return t;
}

void markdown_table(std::ostream& out, const study_table& t) {
  if (!t.caption.empty()) fmt::print(out, "\n### {}\n\n", t.caption);
  if (!t.intro.empty()) fmt::print(out, "{}\n\n", t.intro);
  fmt::print(out, "| {} |\n|", fmt::join(t.columns, " | "));
  for (const bool numeric : t.numeric) fmt::print(out, " {} |", numeric ? "---:" : "---");
  fmt::print(out, "\n");
  for (const auto& row : t.rows) {
    fmt::print(out, "|");
    for (std::size_t i = 0; i < row.size(); ++i) {
      const auto text = cell(row[i]);
      fmt::print(out, " {} |", static_cast<int>(i) == t.bold_column ? "**" + text + "**" : text);
    }
    fmt::print(out, "\n");
  }
  if (!t.footnote.empty()) fmt::print(out, "\n{}\n", t.footnote);
}

std::vector<std::string> ranges(const study_summary& s) {
  std::vector<double> all, gemm_attention;
  std::vector<std::pair<std::string, std::vector<double>>> by_domain;  // in the rows' order
  for (const auto& r : s.rows) {
    const run_result* h = r.headline();
    if (h == nullptr) continue;
    const double a = h->figures->addressable_fraction();
    all.push_back(a);
    auto domain = std::find_if(by_domain.begin(), by_domain.end(), [&](const auto& d) { return d.first == r.domain; });
    if (domain == by_domain.end()) domain = by_domain.insert(by_domain.end(), {r.domain, {}});
    domain->second.push_back(a);
    if (is_transformer(r)) gemm_attention.push_back(h->figures->gemm_attention_share());
  }
  std::vector<std::string> out;
  std::string per_domain;
  for (const auto& [domain, v] : by_domain) {
    per_domain +=
        fmt::format("{}{} {}", per_domain.empty() ? "" : "; ", domain.empty() ? "(no domain)" : domain, range_text(v));
  }
  out.push_back(
      fmt::format("Addressable fraction: {} over {} row{} ({}); published: {} to {} over seven workloads in "
                  "three domains.",
                  range_text(all), all.size(), all.size() == 1 ? "" : "s", per_domain,
                  percent(published_addressable_low), percent(published_addressable_high)));
  out.push_back(
      fmt::format("Transformers' GEMM plus attention, share of kernel time: {}; published: {:.0f}% to {:.0f}%.",
                  range_text(gemm_attention), 100 * published_gemm_attention_low, 100 * published_gemm_attention_high));
  out.push_back(
      fmt::format("Projected gain: the end-to-end speedup when every addressable kernel runs {:g}x faster "
                  "(Amdahl; docs/method.md); the ceiling is every addressable kernel taking no time.",
                  s.kernel_speedup));
  return out;
}

std::string json_number(double v) { return std::isfinite(v) ? fmt::format("{}", v) : "null"; }

std::string json_optional(const std::optional<double>& v) { return v ? json_number(*v) : "null"; }

std::string json_figures(const run_figures& f) {
  return fmt::format(
      "{{\"window_source\": {}, \"window_description\": {}, \"device\": {}, \"steps\": {}, \"timelines\": {}, "
      "\"wall_ns\": {}, \"busy_ns\": {}, \"kernel_busy_ns\": {}, \"addressable_busy_ns\": {}, "
      "\"addressable_exclusive_busy_ns\": {}, \"gemm_busy_ns\": {}, \"attention_busy_ns\": {}, "
      "\"addressable_fraction\": {}, \"addressable_exclusive_fraction\": {}, \"idle_fraction\": {}, "
      "\"gemm_attention_share_of_kernels\": {}}}",
      util::json_string(f.window_source), util::json_string(f.window_description), util::json_string(f.device), f.steps,
      f.timelines, f.wall, f.busy, f.kernel_busy, f.addressable, f.addressable_exclusive, f.gemm, f.attention,
      json_number(f.addressable_fraction()), json_number(f.addressable_exclusive_fraction()),
      json_number(f.idle_fraction()), json_number(f.gemm_attention_share()));
}

std::string json_run(const run_result& x) {
  std::string out = fmt::format("{{\"status\": {}, \"folder\": {}, \"figures_from\": {}", util::json_string(x.status),
                                util::json_string(x.folder), util::json_string(x.figures_from));
  out += ", \"figures\": " + (x.figures ? json_figures(*x.figures) : "null");
  out += ", \"all_steps_figures\": " + (x.all_steps_figures ? json_figures(*x.all_steps_figures) : "null");
  if (x.harness) {
    const auto& h = *x.harness;
    out += fmt::format(
        ", \"harness\": {{\"median_step_s\": {}, \"warmup_s\": {}, \"steps\": {}, \"device\": {}, "
        "\"torch\": {}, \"step_marker_api\": {}, \"description\": {}}}",
        json_optional(h.median_step_s), json_optional(h.warmup_s), h.steps, util::json_string(h.device),
        util::json_string(h.torch_version), util::json_string(h.step_marker_api), util::json_string(h.description));
  } else {
    out += ", \"harness\": null";
  }
  return out + "}";
}

}  // namespace

std::vector<study_table> study_tables(const study_summary& s) {
  std::vector<study_table> out;
  for (auto t : {main_table(s), agreement_table(s), harness_table(s), failures_table(s)}) {
    if (!t.rows.empty()) out.push_back(std::move(t));
  }
  return out;
}

std::vector<std::string> study_findings(const study_summary& s) {
  const bool any =
      std::any_of(s.rows.begin(), s.rows.end(), [](const study_row& r) { return r.headline() != nullptr; });
  return any ? ranges(s) : std::vector<std::string>{"No run of this study has figures yet."};
}

void write_markdown(std::ostream& out, const study_summary& s) {
  fmt::print(out, "## Study: {} (preset {})\n\n", s.folder, s.preset.empty() ? "unknown" : s.preset);
  auto tables = study_tables(s);
  const bool has_main = !tables.empty() && tables.front().caption.empty();
  if (has_main) {
    markdown_table(out, tables.front());
    fmt::print(out, "\n");
  }
  for (const auto& line : study_findings(s)) fmt::print(out, "{}{}\n", has_main ? "- " : "", line);
  for (std::size_t i = has_main ? 1 : 0; i < tables.size(); ++i) markdown_table(out, tables[i]);
  if (!s.notes.empty()) {
    fmt::print(out, "\n### Notes\n\n");
    for (const auto& n : s.notes) fmt::print(out, "- {}\n", n);
  }
}

void write_json(std::ostream& out, const study_summary& s) {
  fmt::print(out,
             "{{\n  \"schema_version\": {},\n  \"kind\": \"study-summary\",\n  \"folder\": {},\n  \"preset\": {},\n",
             study_summary_schema_version, util::json_string(s.folder), util::json_string(s.preset));
  fmt::print(
      out,
      "  \"kernel_speedup\": {},\n  \"published\": {{\"addressable_low\": {}, \"addressable_high\": {}, "
      "\"gemm_attention_low\": {}, \"gemm_attention_high\": {}, \"recommender_addressable\": {}}},\n  \"rows\": [",
      json_number(s.kernel_speedup), published_addressable_low, published_addressable_high,
      published_gemm_attention_low, published_gemm_attention_high, published_recommender_addressable);
  for (std::size_t i = 0; i < s.rows.size(); ++i) {
    const auto& r = s.rows[i];
    const run_result* h = r.headline();
    std::string projection = "null";
    if (h != nullptr) {
      const double a = h->figures->addressable_fraction();
      projection =
          fmt::format("{{\"recorded_by\": {}, \"addressable_fraction\": {}, \"ceiling\": {}, \"end_to_end\": {}}}",
                      util::json_string(h == &r.headroom ? "headroom" : "torch"), json_number(a),
                      json_number(project::ceiling(a)), json_number(project::amdahl(a, s.kernel_speedup)));
    }
    fmt::print(out,
               "{}\n    {{\"workload\": {}, \"domain\": {}, \"variant\": {},\n     \"projection\": {},\n"
               "     \"headroom\": {},\n     \"torch\": {}}}",
               i ? "," : "", util::json_string(r.workload), util::json_string(r.domain), util::json_string(r.variant),
               projection, json_run(r.headroom), json_run(r.torch));
  }
  fmt::print(out, "{}],\n  \"notes\": [", s.rows.empty() ? "" : "\n  ");
  for (std::size_t i = 0; i < s.notes.size(); ++i)
    fmt::print(out, "{}\n    {}", i ? "," : "", util::json_string(s.notes[i]));
  fmt::print(out, "{}]\n}}\n", s.notes.empty() ? "" : "\n  ");
}

}  // namespace headroom::study
