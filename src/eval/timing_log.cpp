#include "timing_log.hpp"

#include <charconv>

#include <fmt/format.h>

namespace headroom::eval {

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

void timing_log::started(std::int64_t call, double sent_ms) {
  if (!planned(call)) note_irregular(fmt::format("call {} was announced to start before its plan was asked for", call));
  else if (start_ms_[static_cast<std::size_t>(call)] >= 0)
    note_irregular(fmt::format("call {} was announced to start twice", call));
  else start_ms_[static_cast<std::size_t>(call)] = sent_ms;
}

void timing_log::done(std::int64_t call, double sent_ms) {
  if (!planned(call) || start_ms_[static_cast<std::size_t>(call)] < 0)
    note_irregular(fmt::format("call {} was announced done before it was announced to start", call));
  else if (done_ms_[static_cast<std::size_t>(call)] >= 0)
    // The harness announces each call's end once, after the call: a second announcement is one
    // written from inside the call (early, to shorten the interval) besides the harness's.
    note_irregular(fmt::format("call {} was announced done twice", call));
  else done_ms_[static_cast<std::size_t>(call)] = sent_ms;
}

void timing_log::announced(std::string_view text, double sent_ms) {
  std::int64_t call = -1;
  auto number = [&call](std::string_view rest) {
    const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), call);
    return error == std::errc() && end == rest.data() + rest.size() && call >= 0;
  };
  if (text.starts_with("start ") && number(text.substr(6))) started(call, sent_ms);
  else if (text.starts_with("done ") && number(text.substr(5))) done(call, sent_ms);
  else note_irregular(fmt::format("an announcement the harness never sends: '{}'", text.substr(0, 64)));
}

std::string timing_log::answer(std::string_view question, std::int64_t call) {
  if (question == "start" || question == "done")
    note_irregular(fmt::format("call {}'s {} asked on the worker's channel, not announced on the stamped socket", call,
                               question == "start" ? "start" : "end"));
  return plan(call);
}

double timing_log::interval_ms(std::size_t call) const {
  if (call >= start_ms_.size() || start_ms_[call] < 0 || done_ms_[call] < 0) return -1;
  return done_ms_[call] - start_ms_[call];
}

}  // namespace headroom::eval
