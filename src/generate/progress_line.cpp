#include <fmt/format.h>

#include "headroom/generate/generation.hpp"

namespace headroom::generate {

namespace {
std::string tokens(std::int64_t n) {
  if (n >= 1'000'000) return fmt::format("{:.2f}M", static_cast<double>(n) / 1e6);
  if (n >= 10'000) return fmt::format("{:.1f}k", static_cast<double>(n) / 1e3);
  return std::to_string(n);
}
}  // namespace

std::string progress_line(const progress_event& e) {
  std::string line = fmt::format("[{}/{}] {} {} sample {} turn {}: {}", e.done, e.total, e.config, e.problem, e.sample,
                                 e.turn, e.outcome);
  if (e.outcome == "retry") return line + ": " + e.detail;
  if (e.outcome == "candidate" || e.outcome == "no_code") {
    line += fmt::format(" ({} in, {} out, {:.1f} s)", e.tokens_in ? tokens(*e.tokens_in) : "?",
                        e.tokens_out ? tokens(*e.tokens_out) : "?", e.latency_s);
  } else if (!e.detail.empty()) {
    line += ": " + e.detail;
  }
  line += fmt::format(" | so far {} in, {} out tokens", tokens(e.all_tokens_in), tokens(e.all_tokens_out));
  if (e.cost_known) line += fmt::format(", cost {:.4f}", e.all_cost);
  return line;
}

}  // namespace headroom::generate
