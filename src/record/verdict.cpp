#include "headroom/record/verdict.hpp"

#include <array>
#include <utility>

namespace headroom::record {
namespace {

constexpr std::array<std::pair<verdict, std::string_view>, 8> verdict_names{{
    {verdict::correct, "correct"},
    {verdict::incorrect, "incorrect"},
    {verdict::compile_error, "compile_error"},
    {verdict::load_error, "load_error"},
    {verdict::runtime_error, "runtime_error"},
    {verdict::crash, "crash"},
    {verdict::timeout, "timeout"},
    {verdict::reference_error, "reference_error"},
}};

}  // namespace

std::string_view verdict_name(verdict v) {
  for (const auto& [value, name] : verdict_names) {
    if (value == v) return name;
  }
  return "unknown";
}

std::optional<verdict> parse_verdict(std::string_view name) {
  for (const auto& [value, known] : verdict_names) {
    if (known == name) return value;
  }
  return std::nullopt;
}

bool disqualifies_speedup(std::string_view flag_code) {
  // Each means the measured time may not be the candidate's own work (docs/eval.md, "Verdicts"):
  // excessive_speedup is raised only where no speed-of-light floor can check a speedup over 10x;
  // degenerate_problem: the problem cannot tell a kernel from a trivial output.
  return flag_code == "other_stream_work" || flag_code == "below_speed_of_light" || flag_code == "torch_fallback" ||
         flag_code == "timing_modes_differ" || flag_code == "excessive_speedup" || flag_code == "degenerate_problem";
}

}  // namespace headroom::record
