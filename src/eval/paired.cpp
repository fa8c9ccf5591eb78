#include "paired.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdlib>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "headroom/worker/timing_stats.hpp"
#include "gpu_busy.hpp"
#include "timing_request.hpp"

namespace headroom::eval {

using record::timing_summary;

bool host_sensitive(const timing_summary& t) {
  if (!t.held) return true;
  return t.host_median_ms >= host_sensitive_share * t.events_median_ms();
}

bool pairing_applies(const timing_summary& candidate, const timing_summary& baseline) {
  return candidate.held == baseline.held && (host_sensitive(candidate) || host_sensitive(baseline));
}

paired_result run_paired_rounds(int rounds, const turn_function& candidate, const turn_function& reference) {
  paired_result p;
  std::vector<double> by_order[2];  // the ratios of rounds with the candidate first, and second
  // Held turns' two sides: device costs and host times, the candidate's and the reference's.
  std::vector<double> device[2], host[2];
  bool sides = true;
  for (int r = 0; r < rounds; ++r) {
    std::optional<paired_turn> c, ref;
    // Candidate first in even rounds, the reference first in odd ones.
    if (r % 2 == 0) {
      c = candidate();
      if (c) ref = reference();
    } else {
      ref = reference();
      if (ref) c = candidate();
    }
    if (!c) {
      p.candidate_failed = true;
      break;
    }
    if (!ref) {
      p.error = "the reference's turn failed";
      break;
    }
    if (c->ms <= 0 || ref->ms <= 0) {
      p.error = fmt::format("a turn measured no time (candidate {} ms, reference {} ms)", c->ms, ref->ms);
      break;
    }
    if (c->held != ref->held) {
      ++p.mismatched;
      continue;
    }
    p.ratios.push_back(ref->ms / c->ms);
    by_order[r % 2].push_back(p.ratios.back());
    sides = sides && c->held && c->device_ms > 0 && ref->device_ms > 0;
    device[0].push_back(c->device_ms);
    host[0].push_back(c->host_ms);
    device[1].push_back(ref->device_ms);
    host[1].push_back(ref->host_ms);
  }
  if (p.candidate_failed || !p.error.empty() || p.ratios.empty()) {
    if (!p.candidate_failed && p.error.empty())
      p.error = p.mismatched
                    ? fmt::format("no round timed both sides the same way ({} held on one side only)", p.mismatched)
                    : "no rounds";
    return p;
  }
  if (sides) {
    // Each side: its median device cost, or its least host time where that is longer (paired.hpp).
    auto cost = [&](int k) {
      return std::max(worker::median_of(device[k]), *std::min_element(host[k].begin(), host[k].end()));
    };
    p.speedup = cost(1) / cost(0);
    p.by_sides = true;
  } else {
    // The side that goes second can be slower by itself (on the 2-core CPU machine, by ~30%: the
    // first side's threads still spinning): the two orders' medians, combined geometrically, cancel
    // that, and each median still outlasts a turn or two in a spell of slow host.
    const double first = worker::median_of(by_order[0]), second = worker::median_of(by_order[1]);
    p.speedup = by_order[1].empty() ? first : by_order[0].empty() ? second : std::sqrt(first * second);
  }
  const auto [lo, hi] = std::minmax_element(p.ratios.begin(), p.ratios.end());
  p.rel_spread = (*hi - *lo) / p.speedup;
  return p;
}

paired_result alternated_speedup(const std::vector<alternated_call>& candidate,
                                 const std::vector<alternated_call>& reference) {
  paired_result p;
  p.alternated = true;
  std::map<std::int64_t, double> cand;
  for (const alternated_call& c : candidate) cand[c.call] = c.ms;
  std::vector<double> by_order[2];  // the candidate's call first; the reference's
  for (const alternated_call& r : reference) {
    if (r.ms <= 0) continue;
    for (int order = 0; order < 2; ++order) {
      auto c = cand.find(r.call + order);
      if (c == cand.end() || c->second <= 0) continue;
      by_order[order].push_back(r.ms / c->second);
      p.ratios.push_back(r.ms / c->second);
    }
  }
  if (p.ratios.empty()) {
    p.error = "no call of one side had a neighbour on the other";
    return p;
  }
  const double first = worker::median_of(by_order[0]), second = worker::median_of(by_order[1]);
  p.speedup = by_order[1].empty() ? first : by_order[0].empty() ? second : std::sqrt(first * second);
  // Each order's median's relative standard error, as a timing's spread is reckoned; the two
  // combined as the errors of a geometric mean's halves.
  const double e0 = worker::median_rel_error(by_order[0]), e1 = worker::median_rel_error(by_order[1]);
  p.std_error = by_order[1].empty() ? e0 : by_order[0].empty() ? e1 : 0.5 * std::sqrt(e0 * e0 + e1 * e1);
  std::vector<double> sorted = p.ratios;
  std::sort(sorted.begin(), sorted.end());
  const auto at = [&](double q) {
    return sorted[static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1))];
  };
  p.rel_spread = (at(0.75) - at(0.25)) / p.speedup;
  return p;
}

namespace {

// A timing answer's kept calls: the number and cost of each (its time on the timed stream, and any
// tail past the empty call's).
std::vector<alternated_call> kept_calls(const answer& a) {
  std::vector<alternated_call> out;
  double empty_tail = 0;
  if (a.doc["timing"]["empty_tail_ms"].get_double().get(empty_tail)) empty_tail = 0;
  simdjson::dom::array calls;
  if (a.doc["calls"].get_array().get(calls)) return out;
  for (simdjson::dom::element c : calls) {
    alternated_call k;
    double event = 0, tail = 0;
    if (c["call"].get_int64().get(k.call) || c["event_ms"].get_double().get(event)) continue;
    if (c["tail_ms"].get_double().get(tail)) tail = 0;
    k.ms = event + std::max(0.0, tail - empty_tail);
    out.push_back(k);
  }
  return out;
}

}  // namespace

cpu_claim cpu_claim::take() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return {-1, -1};
  const char* tmp = std::getenv("TMPDIR");
  const std::string dir = tmp && *tmp ? tmp : "/tmp";
  int last = -1;
  for (int c = CPU_SETSIZE - 1; c >= 0; --c) {
    if (!CPU_ISSET(c, &allowed)) continue;
    if (last < 0) last = c;
    const std::string path = fmt::format("{}/headroom-cpu-{}.lock", dir, c);
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) return {last, -1};  // no lock files here: no claims, the last CPU as before
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return {c, fd};
    ::close(fd);
  }
  return {last, -1};
}

cpu_claim::~cpu_claim() {
  if (fd_ >= 0) ::close(fd_);  // closing the file releases its lock
}

paired_result time_paired(session& candidate, const reference_data& ref, const run_state& run, bool held,
                          const std::function<bool(answer&)>& check, std::uint64_t sketch_seed, bool alternate) {
  // Each turn is short: the rounds together sample about as long as one timing may (at least 0.1 s
  // a turn, so that a turn of a slow call still holds a few samples).
  timing_limits turn = limits_of(run.options);
  const int rounds = std::max(1, run.options.paired_rounds);
  turn.max_seconds = std::max(0.1, run.options.max_seconds / (2.0 * rounds));
  const cpu_claim claim = cpu_claim::take();
  const int cpu = claim.cpu();
  const std::string pin = cpu >= 0 ? fmt::format(R"(,"cpu":{})", cpu) : "";
  // Both workers keep the timing sets already; the reference's times its eager model (the compiled
  // baseline's, when there is one, replaced it for timing) and mirrors the candidate's work between
  // calls (the output checks and sketches, done and not sent: src/worker/timing_loop.cpp's timing_settings::mirror).
  const std::string candidate_request = timing_request(turn, ref, true, held, sketch_seed) + pin;
  const std::string reference_request =
      timing_request(turn, ref, true, held, sketch_seed) + pin + R"(,"eager":true,"mirror":true)";

  paired_result failed;
  if (!ref.worker) {
    failed.error = "the reference's worker is gone";
    return failed;
  }
  session& other = *ref.worker;
  // A warm-up turn, not counted: the candidate's worker has just run its timing, the reference's
  // has not timed since its own preparation. Its first call pays whatever first use costs again (a
  // library's handle made on first use synchronises the device and outlived the hold: on the H200
  // the first turn of every fresh reference worker was timed with its dispatch, 2x its cost, and a
  // round's ratio of 1.9 came of it).
  {
    answer w = other.ask(reference_request, {}, run.options.run_timeout * 10);
    throw_if_busy(w, "the reference's warm-up turn of the paired rounds");
    if (w.failure != worker_failure::none || !w.ok) {
      failed.error = "the reference's warm-up turn failed: " + describe(w);
      return failed;
    }
  }
  bool all_pinned = cpu >= 0;
  auto turn_of = [&](const answer& a) {
    bool p = false;
    if (a.doc["timing"]["pinned"].get_bool().get(p)) p = false;
    all_pinned = all_pinned && p;
    timing_summary t = parse_timing(a.doc["timing"]);
    return paired_turn{t.score_ms, t.held, t.device_cost_ms, t.host_median_ms};
  };
  auto candidate_turn = [&]() -> std::optional<paired_turn> {
    answer a = candidate.ask(candidate_request, {}, run.options.run_timeout * 10);
    if (!check(a)) return std::nullopt;
    return turn_of(a);
  };
  auto reference_turn = [&]() -> std::optional<paired_turn> {
    answer a = other.ask(reference_request, {}, run.options.run_timeout * 10);
    throw_if_busy(a, "a paired round's reference turn");
    if (a.failure != worker_failure::none || !a.ok) return std::nullopt;
    return turn_of(a);
  };
  if (alternate && !held) {
    // One timing of both at once, their calls alternating: as long as the rounds' turns together
    // would sample, and at least as many kept calls a side as the rounds' turns would keep.
    timing_limits both = limits_of(run.options);
    both.min_samples = rounds * run.options.min_samples;
    both.target_spread = 0;  // a side that stopped early would leave the other's calls unpaired
    const std::string candidate_fields = timing_request(both, ref, true, held, sketch_seed) + pin;
    const std::string reference_fields =
        timing_request(both, ref, true, held, sketch_seed) + pin + R"(,"eager":true,"mirror":true)";
    std::vector<alternated_call> candidate_calls, reference_calls;
    paired_result p;
    for (int timing = 0; timing < alternating_timings; ++timing) {
      auto [c, r] =
          session::ask_alternating(candidate, candidate_fields, other, reference_fields, run.options.run_timeout * 10);
      if (!check(c)) {
        failed.candidate_failed = true;
        return failed;
      }
      throw_if_busy(r, "the reference's side of the alternating calls");
      if (r.failure != worker_failure::none || !r.ok) {
        failed.error = "the reference's alternating timing failed: " + describe(r);
        return failed;
      }
      turn_of(c);
      turn_of(r);
      // Calls of two timings are never neighbours: each timing's calls are numbered apart.
      const std::int64_t apart = std::int64_t{timing} << 32;
      for (alternated_call k : kept_calls(c)) candidate_calls.push_back({k.call + apart, k.ms});
      for (alternated_call k : kept_calls(r)) reference_calls.push_back({k.call + apart, k.ms});
      p = alternated_speedup(candidate_calls, reference_calls);
      if (!p.error.empty() || p.std_error <= alternating_std_error) break;
    }
    p.cpu = all_pinned ? cpu : -1;
    return p;
  }
  paired_result p = run_paired_rounds(rounds, candidate_turn, reference_turn);
  p.cpu = all_pinned ? cpu : -1;
  return p;
}

}  // namespace headroom::eval
