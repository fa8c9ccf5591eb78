#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "headroom/analyze/analysis.hpp"
#include "headroom/util/error.hpp"

namespace headroom::analyze {

std::string_view to_string(window_source s) {
  switch (s) {
    case window_source::step_markers:
      return "step_markers";
    case window_source::repeating_unit:
      return "repeating_unit";
    case window_source::whole_span:
      return "whole_span";
    case window_source::explicit_bounds:
      return "explicit";
  }
  return "?";
}

std::string_view to_string(window_mode m) {
  switch (m) {
    case window_mode::steady_state:
      return "steady";
    case window_mode::whole:
      return "whole";
    case window_mode::explicit_bounds:
      return "explicit";
  }
  return "?";
}

namespace {

// "12.5ms" -> 12500000; a bare number is nanoseconds.
time_ns parse_bound(std::string_view text, std::string_view spec) {
  const auto bad = [&](std::string_view why) {
    return input_error(
        fmt::format("--window '{}': {} (expected START:END such as 12.5ms:40ms, or steady, or whole)", spec, why));
  };
  if (text.empty()) throw bad("a bound is empty");
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || !std::isfinite(value)) throw bad(fmt::format("'{}' is not a number", text));
  const std::string_view unit = text.substr(static_cast<std::size_t>(ptr - text.data()));
  double scale = 0;
  if (unit.empty() || unit == "ns") scale = 1;
  else if (unit == "us") scale = 1e3;
  else if (unit == "ms") scale = 1e6;
  else if (unit == "s") scale = 1e9;
  else throw bad(fmt::format("unknown unit '{}' (use ns, us, ms or s)", unit));
  const double ns = value * scale;
  if (ns < 0 || ns > 9e18) throw bad(fmt::format("'{}' is out of range", text));
  return static_cast<time_ns>(std::llround(ns));
}

}  // namespace

void parse_window_spec(std::string_view spec, analyze_options& o) {
  if (spec == "steady") {
    o.mode = window_mode::steady_state;
    return;
  }
  if (spec == "whole") {
    o.mode = window_mode::whole;
    return;
  }
  const auto colon = spec.find(':');
  if (colon == std::string_view::npos) {
    throw input_error(fmt::format("--window '{}': expected steady, whole or START:END such as 12.5ms:40ms", spec));
  }
  const time_ns start = parse_bound(spec.substr(0, colon), spec);
  const time_ns end = parse_bound(spec.substr(colon + 1), spec);
  if (end <= start) throw input_error(fmt::format("--window '{}': the end must come after the start", spec));
  o.mode = window_mode::explicit_bounds;
  o.window_start = start;
  o.window_end = end;
}

}  // namespace headroom::analyze
