// The swap check as text, JSON and a report section (include/headroom/report/swap_check_output.hpp).
#include "headroom/report/swap_check_output.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cmath>

#include "headroom/report/units.hpp"
#include "headroom/util/json.hpp"

namespace headroom::report {
namespace {

inline constexpr int swap_check_format_version = 1;

std::string ms(double ns) { return fmt::format("{:.3f} ms", ns / 1e6); }
std::string points(double v) { return fmt::format("{:+.2f}", v); }
std::string speedup(double s) { return std::isinf(s) ? "inf" : fmt::format("{:.3f}x", s); }

std::string short_name(const std::string& name, std::size_t width) {
  return name.size() <= width ? name : name.substr(0, width - 3) + "...";
}

std::string per_step(double v) { return v == 0 ? "-" : fmt::format("{:.1f}", v); }

std::string route_summary(const project::route_audit& r) {
  if (r.targeted == 0) return "no targeted kernel in the before-trace";
  if (r.every_target_replaced()) {
    return fmt::format("every targeted kernel replaced: {} targeted, 0 fallbacks; {} names gone, {} new", r.targeted,
                       r.gone, r.appeared);
  }
  return fmt::format("{} of {} targeted kernels still run (fallbacks); {} names gone, {} new", r.fallbacks, r.targeted,
                     r.gone, r.appeared);
}

std::string number(double v) { return std::isfinite(v) ? fmt::format("{:.6g}", v) : "null"; }

void sample_json(std::string& out, const char* key, const project::step_sample& s) {
  out += fmt::format("\"{}\":{{\"steps\":{},\"median_ms\":{},\"p25_ms\":{},\"p75_ms\":{},\"step_ms\":[", key,
                     s.steps.size(), number(s.median / 1e6), number(s.p25 / 1e6), number(s.p75 / 1e6));
  for (std::size_t i = 0; i < s.steps.size(); ++i) {
    out += fmt::format("{}{}", i ? "," : "", number(static_cast<double>(s.steps[i]) / 1e6));
  }
  out += "],\"windows\":[";
  for (std::size_t i = 0; i < s.windows.size(); ++i) {
    if (i) out += ',';
    util::append_json_string(out, s.windows[i]);
  }
  out += "]}";
}

}  // namespace

void write_console(std::ostream& out, const project::swap_check& s) {
  fmt::print(out, "Swap check: the program before and after the swap, against what the before-trace predicted\n\n");
  fmt::print(out, "Targets (fraction of the before-trace's wall clock, speedup):\n");
  for (const auto& p : s.parts) {
    fmt::print(out, "  {:<60} {:>7}  {}\n", short_name(p.label, 60), format_percent(p.fraction, 2), speedup(p.speedup));
  }
  for (const auto& h : s.host) {
    fmt::print(out, "  {:<60} {:>7}  {}  (host time, in the replay)\n", short_name(h.label(), 60), "",
               speedup(h.speedup));
  }
  bool any_in_situ = false;
  for (const auto& p : s.in_situ) any_in_situ = any_in_situ || p.after_ms_per_step > 0;
  if (any_in_situ) {
    fmt::print(out, "\nIn the program (the rules applied to both traces; busy time per step):\n");
    for (const auto& p : s.in_situ) {
      fmt::print(out, "  {:<60} {:>10.3f} ms -> {:>10.3f} ms  {}\n", short_name(p.label, 60), p.before_ms_per_step,
                 p.after_ms_per_step, p.after_ms_per_step > 0 ? speedup(p.speedup()) : "(no kernel taken after)");
      if (p.host_range) {
        fmt::print(out, "  {:<60} {:>10.3f} ms -> {:>10.3f} ms  (host time inside the ranges)\n", "",
                   p.before_host_ms_per_step, p.after_host_ms_per_step);
        fmt::print(out, "  {:<60} {:>10.3f} ms -> {:>10.3f} ms  {}\n",
                   "  of it the host's own, not waiting:", p.before_host_work_ms_per_step,
                   p.after_host_work_ms_per_step, p.after_host_work_ms_per_step > 0 ? speedup(p.host_speedup()) : "");
      }
    }
  }
  fmt::print(out, "\nStep time      {:>6}  {:>12}  {:>25}\n", "steps", "median", "interquartile range");
  fmt::print(out, "  before       {:>6}  {:>12}  {:>12} .. {:<12}\n", s.before.steps.size(), ms(s.before.median),
             ms(s.before.p25), ms(s.before.p75));
  fmt::print(out, "  after        {:>6}  {:>12}  {:>12} .. {:<12}\n", s.after.steps.size(), ms(s.after.median),
             ms(s.after.p25), ms(s.after.p75));
  fmt::print(out, "\nGain in points of the before step time (negative: slower)\n");
  fmt::print(out, "  measured       {:>8}\n", points(s.measured_gain));
  fmt::print(out, "  Amdahl         {:>8}   error {:>7} points\n", points(s.amdahl_gain), points(s.amdahl_error()));
  fmt::print(out, "  replay         {:>8}   error {:>7} points{}\n", points(s.replay_gain), points(s.replay_error()),
             s.replayed ? fmt::format(" (replay reproduces the before steps within {} on average)",
                                      format_percent(s.replay_reproduction, 2))
                        : " (no replay: Amdahl's figure)");
  fmt::print(out, "\nRoute audit: {}\n", route_summary(s.route));
  if (!s.route.kernels.empty()) {
    fmt::print(out, "  {:<72} {:>9} {:>9} {:>10} {:>10} {:>9}\n", "kernel (launches per step)", "before", "after",
               "before ms", "after ms", "fallback");
    for (const auto& k : s.route.kernels) {
      fmt::print(out, "  {}{:<70} {:>9} {:>9} {:>10.3f} {:>10.3f} {:>9}\n", k.targeted ? "* " : "  ",
                 short_name(k.name, 70), per_step(k.before_per_step), per_step(k.after_per_step), k.before_ms_per_step,
                 k.after_ms_per_step, per_step(k.fallback_per_step));
    }
    fmt::print(out, "  (* targeted: a rule took it in the before-trace)\n");
  }
  if (!s.notes.empty()) {
    fmt::print(out, "\nNotes:\n");
    for (const auto& n : s.notes) fmt::print(out, "  - {}\n", n);
  }
}

void write_json(std::ostream& out, const project::swap_check& s) {
  std::string j = fmt::format("{{\"headroom_swap_check\":{},\"targets\":[", swap_check_format_version);
  for (std::size_t i = 0; i < s.parts.size(); ++i) {
    if (i) j += ',';
    j += "{\"label\":";
    util::append_json_string(j, s.parts[i].label);
    j += fmt::format(",\"fraction\":{},\"busy_ms\":{},\"speedup\":{}}}", number(s.parts[i].fraction),
                     number(static_cast<double>(s.parts[i].busy) / 1e6), number(s.parts[i].speedup));
  }
  j += "],\"in_situ\":[";
  for (std::size_t i = 0; i < s.in_situ.size(); ++i) {
    const auto& p = s.in_situ[i];
    j += i ? ",{\"label\":" : "{\"label\":";
    util::append_json_string(j, p.label);
    j += fmt::format(",\"before_ms_per_step\":{},\"after_ms_per_step\":{},\"speedup\":{}", number(p.before_ms_per_step),
                     number(p.after_ms_per_step), p.after_ms_per_step > 0 ? number(p.speedup()) : "null");
    j += p.host_range ? fmt::format(
                            ",\"host_before_ms_per_step\":{},\"host_after_ms_per_step\":{},"
                            "\"host_work_before_ms_per_step\":{},\"host_work_after_ms_per_step\":{},"
                            "\"host_speedup\":{}}}",
                            number(p.before_host_ms_per_step), number(p.after_host_ms_per_step),
                            number(p.before_host_work_ms_per_step), number(p.after_host_work_ms_per_step),
                            p.after_host_work_ms_per_step > 0 ? number(p.host_speedup()) : "null")
                      : std::string("}");
  }
  j += "],\"host_rules\":[";
  for (std::size_t i = 0; i < s.host.size(); ++i) {
    j += i ? ",{\"pattern\":" : "{\"pattern\":";
    util::append_json_string(j, s.host[i].pattern);
    j += fmt::format(",\"speedup\":{}}}", number(s.host[i].speedup));
  }
  j += "],";
  sample_json(j, "before", s.before);
  j += ',';
  sample_json(j, "after", s.after);
  j += fmt::format(
      ",\"gain_points\":{{\"measured\":{},\"amdahl\":{},\"replay\":{}}},\"error_points\":{{\"amdahl\":{},\"replay\":{}}},"
      "\"replayed\":{},\"replay_reproduction\":{},",
      number(s.measured_gain), number(s.amdahl_gain), number(s.replay_gain), number(s.amdahl_error()),
      number(s.replay_error()), s.replayed ? "true" : "false", number(s.replay_reproduction));
  j += fmt::format(
      "\"route\":{{\"targeted\":{},\"gone\":{},\"appeared\":{},\"fallbacks\":{},\"every_target_replaced\":{},"
      "\"kernels\":[",
      s.route.targeted, s.route.gone, s.route.appeared, s.route.fallbacks,
      s.route.every_target_replaced() ? "true" : "false");
  for (std::size_t i = 0; i < s.route.kernels.size(); ++i) {
    const auto& k = s.route.kernels[i];
    j += i ? ",{\"name\":" : "{\"name\":";
    util::append_json_string(j, k.name);
    j += fmt::format(
        ",\"targeted\":{},\"before_per_step\":{},\"after_per_step\":{},\"before_ms_per_step\":{},"
        "\"after_ms_per_step\":{},\"fallback_per_step\":{}}}",
        k.targeted ? "true" : "false", number(k.before_per_step), number(k.after_per_step),
        number(k.before_ms_per_step), number(k.after_ms_per_step), number(k.fallback_per_step));
  }
  j += "]},\"notes\":[";
  for (std::size_t i = 0; i < s.notes.size(); ++i) {
    if (i) j += ',';
    util::append_json_string(j, s.notes[i]);
  }
  j += "]}\n";
  out << j;
}

void write_section_json(std::ostream& out, const project::swap_check& s, const std::string& title,
                        const std::string& workload) {
  std::string j = "{\"headroom_report_section\":1,\"kind\":\"swap-check\",\"title\":";
  util::append_json_string(j, title);
  j += ",\"workload\":";
  util::append_json_string(j, workload);
  j += ",\"paragraphs\":[";
  std::string targets;
  for (const auto& p : s.parts) {
    targets += fmt::format("{}{} ({} of the wall clock, {})", targets.empty() ? "" : "; ", p.label,
                           format_percent(p.fraction, 2), speedup(p.speedup));
  }
  util::append_json_string(
      j, fmt::format("The program was traced before and after the swap. Targets: {}. Measured step time: {} before, {} "
                     "after ({} and {} steps).",
                     targets, ms(s.before.median), ms(s.after.median), s.before.steps.size(), s.after.steps.size()));
  j += ',';
  util::append_json_string(j, fmt::format("Gain in points of step time: measured {}, Amdahl {} (error {}), replay {} "
                                          "(error {}).",
                                          points(s.measured_gain), points(s.amdahl_gain), points(s.amdahl_error()),
                                          points(s.replay_gain), points(s.replay_error())));
  j += ',';
  util::append_json_string(j, "Route audit: " + route_summary(s.route) + ".");
  for (const auto& n : s.notes) {
    j += ',';
    util::append_json_string(j, n);
  }
  j += "],\"tables\":[{\"caption\":\"Targeted kernels and every kernel whose launches per step changed\","
       "\"columns\":[\"kernel\",\"targeted\",\"before per step\",\"after per step\",\"before ms per step\","
       "\"after ms per step\",\"fallback per step\"],\"rows\":[";
  for (std::size_t i = 0; i < s.route.kernels.size(); ++i) {
    const auto& k = s.route.kernels[i];
    if (i) j += ',';
    j += '[';
    util::append_json_string(j, short_name(k.name, 120));
    j += fmt::format(",\"{}\",\"{}\",\"{}\",\"{:.3f}\",\"{:.3f}\",\"{}\"]", k.targeted ? "yes" : "",
                     per_step(k.before_per_step), per_step(k.after_per_step), k.before_ms_per_step, k.after_ms_per_step,
                     per_step(k.fallback_per_step));
  }
  j += fmt::format(
      "]}}],\"bars\":{{\"label\":\"gain (points of step time)\",\"values\":[{{\"label\":\"measured\","
      "\"value\":{}}},{{\"label\":\"Amdahl\",\"value\":{}}},{{\"label\":\"replay\",\"value\":{}}}]}}}}\n",
      number(s.measured_gain), number(s.amdahl_gain), number(s.replay_gain));
  out << j;
}

}  // namespace headroom::report
