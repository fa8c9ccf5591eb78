#include "timing_log.hpp"

#include <chrono>

#include <fmt/format.h>

namespace headroom::eval {
namespace {
double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

void timing_log::start(std::size_t sets) {
  sets_ = sets == 0 ? 1 : sets;
  seeds_.clear();
  sets_of_.clear();
  start_ms_.clear();
  done_ms_.clear();
  out_of_order_ = false;
}

std::string timing_log::plan(std::int64_t call) {
  if (call < 0) call = 0;
  auto c = static_cast<std::size_t>(call);
  if (c < seeds_.size()) return fmt::format(R"("set":{},"seed":{})", sets_of_[c], seeds_[c]);
  if (c != seeds_.size()) out_of_order_ = true;
  while (seeds_.size() <= c) {  // a skipped call gets a plan too, never used
    sets_of_.push_back(seeds_.size() % sets_);
    seeds_.push_back(rng_() & 0x7fffffffffffffffull);  // JSON integers of 63 bits
    start_ms_.push_back(-1);  // not announced
    done_ms_.push_back(-1);
  }
  return fmt::format(R"("set":{},"seed":{})", sets_of_[c], seeds_[c]);
}

std::string timing_log::started(std::int64_t call) {
  double t = now_ ? now_() : now_ms();
  if (!planned(call)) out_of_order_ = true;
  else if (start_ms_[static_cast<std::size_t>(call)] < 0) start_ms_[static_cast<std::size_t>(call)] = t;
  return R"("ok":true)";
}

std::string timing_log::done(std::int64_t call) {
  double t = now_ ? now_() : now_ms();
  if (!planned(call) || start_ms_[static_cast<std::size_t>(call)] < 0) out_of_order_ = true;
  else if (done_ms_[static_cast<std::size_t>(call)] < 0) done_ms_[static_cast<std::size_t>(call)] = t;
  return R"("ok":true)";
}

std::string timing_log::answer(std::string_view question, std::int64_t call) {
  if (question == "start") return started(call);
  if (question == "done") return done(call);
  return plan(call);
}

double timing_log::interval_ms(std::size_t call) const {
  if (call >= start_ms_.size() || start_ms_[call] < 0 || done_ms_[call] < 0) return -1;
  return done_ms_[call] - start_ms_[call];
}

}  // namespace headroom::eval
