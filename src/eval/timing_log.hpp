#pragma once
// What the parent itself sees of a timing request (docs/eval.md, "Integrity inside the worker"): the
// worker asks for each call's plan (which input set, and the seed of its fresh inputs) before it
// makes the call's inputs, then announces when the timed call starts and when it is done, each a
// datagram the kernel stamps when the worker sends it (sandbox/announcements.hpp). A worker cannot
// learn a call's inputs before it asks, nor make a call look shorter than the stamps around it.
// Internal to src/eval.
#include <cstdint>
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
  // asked for twice gets the same plan; a call asked out of order is noted (irregular()).
  std::string plan(std::int64_t call);
  // An announcement's text as the harness sends it ("start N", "done N"); anything else is irregular.
  void announced(std::string_view text, double sent_ms);
  // The answer to a question of the worker's on its channel: {"ask":"call","call":i}. Starts and ends
  // are announced on the stamped socket only: asked here, they are irregular.
  std::string answer(std::string_view question, std::int64_t call);

  std::size_t calls() const { return seeds_.size(); }
  bool planned(std::int64_t call) const { return call >= 0 && static_cast<std::size_t>(call) < seeds_.size(); }
  std::uint64_t seed(std::size_t call) const { return seeds_[call]; }
  std::size_t set(std::size_t call) const { return sets_of_[call]; }
  // From the start of call `call` to its end, by the stamps of the worker's announcements, in ms (-1
  // when the worker did not announce both): an upper bound on the call's own time.
  double interval_ms(std::size_t call) const;
  // Empty, or the first announcement out of the harness's order: a plan asked out of turn, a start
  // or an end announced twice, an end before its start, an announcement the harness never sends
  // (contradicted_times: tampering).
  const std::string& irregular() const { return irregular_; }

 private:
  std::size_t sets_ = 1;
  std::vector<std::uint64_t> seeds_;
  std::vector<std::size_t> sets_of_;
  std::vector<double> start_ms_, done_ms_;
  std::string irregular_;
  std::mt19937_64 rng_{std::random_device{}()};
  void note_irregular(std::string what);
  // The worker's announcement that call `call` started, or was done, at `sent_ms` (its stamp, on the
  // steady clock).
  void started(std::int64_t call, double sent_ms);
  void done(std::int64_t call, double sent_ms);
};

}  // namespace headroom::eval
