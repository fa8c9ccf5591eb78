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
  irregular_.clear();
}

void timing_log::note_irregular(std::string what) {
  if (irregular_.empty()) irregular_ = std::move(what);
}

std::string timing_log::plan(std::int64_t call) {
  if (call < 0) call = 0;
  auto c = static_cast<std::size_t>(call);
  if (c < seeds_.size()) return fmt::format(R"("set":{},"seed":{})", sets_of_[c], seeds_[c]);
  if (c != seeds_.size()) note_irregular(fmt::format("the worker asked for call {}'s plan out of order", c));
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
  if (!planned(call)) note_irregular(fmt::format("call {} was announced to start before its plan was asked for", call));
  else if (start_ms_[static_cast<std::size_t>(call)] >= 0)
    note_irregular(fmt::format("call {} was announced to start twice", call));
  else start_ms_[static_cast<std::size_t>(call)] = t;
  return R"("ok":true)";
}

std::string timing_log::done(std::int64_t call) {
  double t = now_ ? now_() : now_ms();
  if (!planned(call) || start_ms_[static_cast<std::size_t>(call)] < 0)
    note_irregular(fmt::format("call {} was announced done before it was announced to start", call));
  else if (done_ms_[static_cast<std::size_t>(call)] >= 0)
    // The harness announces each call's end once, after the call: a second announcement is one
    // written from inside the call (early, to shorten the parent's interval) besides the harness's.
    note_irregular(fmt::format("call {} was announced done twice", call));
  else done_ms_[static_cast<std::size_t>(call)] = t;
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
