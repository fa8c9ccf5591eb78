#pragma once
// What the parent itself sees of a timing request (docs/eval.md, "Integrity inside the worker"): the
// worker asks for each call's plan (which input set, and the seed of its fresh inputs) before it
// makes the call's inputs, then says when the timed call starts and when it is done, and the parent
// notes when. A worker cannot learn a call's inputs before it asks, nor make a call look shorter
// than the parent saw it take. Internal to src/eval.
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace headroom::eval {

class timing_log {
 public:
  // A new request of `sets` input sets (the log of the one before is forgotten).
  void start(std::size_t sets);
  // The reply to the worker's question for call `call`: {"set":k,"seed":s}, without braces. A call
  // asked for twice gets the same plan; a call asked out of order is noted (out_of_order()).
  std::string plan(std::int64_t call);
  // The worker's word that call `call` starts now, or is done now: noted by the parent's clock.
  std::string started(std::int64_t call);
  std::string done(std::int64_t call);
  // The answer to any question of the worker's: {"ask":"call"|"start"|"done","call":i}.
  std::string answer(std::string_view question, std::int64_t call);

  std::size_t calls() const { return seeds_.size(); }
  bool planned(std::int64_t call) const { return call >= 0 && static_cast<std::size_t>(call) < seeds_.size(); }
  std::uint64_t seed(std::size_t call) const { return seeds_[call]; }
  std::size_t set(std::size_t call) const { return sets_of_[call]; }
  // From the start of call `call` to its end, by the parent's clock, in ms (-1 when the worker did
  // not announce both): an upper bound on the call's own time.
  double interval_ms(std::size_t call) const;
  // Empty, or the first announcement out of the harness's order: a plan asked out of turn, a start
  // or an end announced twice, or an end before its start (contradicted_times: tampering).
  const std::string& irregular() const { return irregular_; }
  // The clock the log reads, in ms (the steady clock; tests give their own).
  void set_clock(std::function<double()> now) { now_ = std::move(now); }

 private:
  std::size_t sets_ = 1;
  std::vector<std::uint64_t> seeds_;
  std::vector<std::size_t> sets_of_;
  std::vector<double> start_ms_, done_ms_;
  std::string irregular_;
  std::mt19937_64 rng_{std::random_device{}()};
  void note_irregular(std::string what);
  std::function<double()> now_;
};

}  // namespace headroom::eval
