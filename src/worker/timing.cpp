// Timed calls (docs/eval.md, "Timing"): each on fresh inputs the parent names as it is about to
// run, the device's caches flushed, the times kept under the stopping rule and summarised; and the
// reference's replay of a candidate's timed calls.
#include "worker/worker.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <random>

#include <fmt/format.h>

#include "headroom/sandbox/announcements.hpp"
#include "headroom/worker/fresh_inputs.hpp"
#include "headroom/worker/timing_stats.hpp"
#include "worker/thread_pin.hpp"

namespace headroom::worker {
namespace {

// What a timing request asks besides its sets (docs/eval.md, "Timing").
struct timing_settings {
  stopping_rule rule;
  int warmup = 0;
  double check_bytes = 0;     // outputs sent back whole, at most about this many bytes
  bool check_outputs = false;
  // The CPU this thread runs the timed calls on (paired rounds put both workers on one); -1: any.
  // The pin begins after the warm-up calls: a thread started while pinned would inherit the one CPU
  // (the hold's watchdog, PyTorch's CPU thread pool and CUDA's threads start on first use).
  std::int64_t cpu = -1;
  // Every call gets fresh inputs (docs/eval.md, "Integrity inside the worker"): the parent names
  // each call's input set and seed only when the call is about to run, and every floating input
  // is the set's pristine copy with each element multiplied by a factor drawn from that seed.
  // symmetric[m]: input m is n x n in its last two dims and symmetric (its factors are too).
  std::vector<std::uint64_t> symmetric;
  std::uint64_t sketch_seed = 0;  // nonzero: every kept call's outputs are sketched under it
  // Launches held behind a gate (device.hpp): the events measure device time, not dispatch.
  bool hold = false;
  // The reference's worker in a paired turn: it does between its calls all a candidate's worker
  // does (the output-memory check, the sketch, the copies of outputs sent back whole) and sends
  // none of it, so that whatever that work costs the next call (caches, the scheduler's account of
  // the worker, Python's collector) is the same on both sides.
  bool mirror = false;
};

timing_settings read_timing_settings(simdjson::dom::element req, bool cuda) {
  timing_settings t;
  t.rule.min_samples = static_cast<int>(req["min_samples"].get_int64().value());
  t.rule.max_samples = static_cast<int>(req["max_samples"].get_int64().value());
  t.rule.max_seconds = req["max_seconds"].get_double().value();
  t.rule.target_spread = req["target_spread"].get_double().value();
  t.warmup = static_cast<int>(req["warmup"].get_int64().value());
  t.check_bytes = static_cast<double>(req["check_bytes"].get_uint64().value());
  t.check_outputs = req["check_outputs"].get_bool().value();
  if (req["cpu"].get_int64().get(t.cpu)) t.cpu = -1;
  if (simdjson::dom::array sym; !req["symmetric"].get_array().get(sym))
    for (simdjson::dom::element x : sym) t.symmetric.push_back(x.get_uint64().value());
  if (req["sketch_seed"].get_uint64().get(t.sketch_seed)) t.sketch_seed = 0;
  if (cuda && req["hold"].get_bool().get(t.hold)) t.hold = false;
  if (req["mirror"].get_bool().get(t.mirror)) t.mirror = false;
  return t;
}

}  // namespace

long page_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt + u.ru_majflt;
}

void worker::time(simdjson::dom::element req) {
  if (!model_) throw request_error("no model loaded");
  const std::vector<std::vector<meta>>& sets = timing_sets_;
  if (sets.empty()) throw request_error("no input sets to time");
  if (req["set_count"].get_uint64().value() != sets.size())
    throw request_error("the timing request names another number of sets than this worker keeps");
  bool eager = false;
  if (req["eager"].get_bool().get(eager)) eager = false;
  if (req["keep_heap"].get_bool().get(keep_heap_)) keep_heap_ = false;
  const py_ref model = eager && eager_model_ ? eager_model_ : model_;
  const timing_settings settings = read_timing_settings(req, dev_->is_cuda());
  const stopping_rule& rule = settings.rule;
  const int warmup = settings.warmup;
  const double check_budget = settings.check_bytes;
  const bool check_outputs = settings.check_outputs;
  const std::int64_t cpu = settings.cpu;
  const std::vector<std::uint64_t>& symmetric = settings.symmetric;
  const std::uint64_t sketch_seed = settings.sketch_seed;
  std::optional<thread_pin> pin;
  pristine_sets pristine = upload_sets();
  auto release = [&] { release_sets(pristine); };
  bool hold = settings.hold;
  int hold_timeouts = 0;

  // The measurement's lifecycle (nvbench's measure_cold): the empty call, then calls on fresh
  // inputs, the first `warmup` of them not kept, each kept one checked; then the summary.
  empty_call empty = measure_empty_call(hold);

  std::mt19937_64 rng(std::random_device{}());
  sample_set samples;
  unsigned clock_limit = dev_->sm_clock_max_mhz(), clock_min = ~0u, clock_max = 0;
  int dropped = 0;
  std::vector<std::byte>& out_payload = outputs_;
  out_payload.clear();
  std::string checked, calls;
  double checked_bytes = 0;
  // The warm-up lasts `warmup` calls, and then until two calls in a row map (almost) no fresh
  // pages, at most max_settling calls more. A call that faults its outputs' pages in pays the
  // kernel inside its time: on the 2-core machine a 16 MiB ReLU took 30-57 ms so and 3 ms without.
  // The heap's big free blocks were given back between requests (send_reply), and a call's outputs
  // land on one after another of them for as many calls as the process has such blocks: a number
  // its history sets, not the forward, and so another for the reference's worker than for a
  // candidate's (in a fresh second reference worker, more faulting calls than in the candidate's,
  // whose trials had mapped its heap: the reference came out slower than itself).
  constexpr long settled_faults = 16;
  constexpr int settled_calls = 2, max_settling = 20;
  int warm_calls = warmup, clean_calls = 0, faulted_samples = 0;
  // Sampling time counts from the first kept call: on the CPU a call's fresh inputs, the cache
  // flush and the parent's questions take many times a small forward, and counted from the start
  // they left a short turn of paired rounds (0.1 s at --max-time 1) one sample or two.
  std::optional<double> begin;
  for (int i = 0;; ++i) {
    if (i == warmup && cpu >= 0) pin.emplace(static_cast<int>(cpu));
    call_plan plan = ask_call(i, sets.size());
    built_inputs in = fresh_inputs(sets[plan.set], pristine[plan.set], plan.seed, symmetric);
    dev_->flush_caches();
    // The fresh inputs were just written: out of every cache, whatever its size (device::evict).
    for (std::size_t m = 0; m < in.data.size() && m < sets[plan.set].size(); ++m)
      dev_->evict(in.data[m], sets[plan.set][m].bytes);
    begin_allocation_log();
    const long faults_before = page_faults();
    // The call's start and end, announced on a socket that stamps each datagram when it is sent
    // (announcements.hpp): the parent bounds the call by the two stamps (timing_log.hpp). The
    // device is idle first (the inputs were made on it), so that only the timer's own start lies
    // between the start's stamp and the wall clock's.
    dev_->synchronize();
    sandbox::announce(announce_, fmt::format("start {}", i));
    dev_->start_timer(hold);
    py_ref result(PyObject_CallObject(model.get(), in.tuple.get()));
    dev_->call_returned();
    end_allocation_log();
    if (!result) {
      dev_->stop_timer();  // opens the gate
      release();
      return reply_python_error("runtime_error");
    }
    device::times t = dev_->stop_timer();
    sandbox::announce(announce_, fmt::format("done {}", i));
    const long faults = page_faults() - faults_before;
    // Every timed call's result is checked as a checked call's is: tensors, in memory the call
    // got from the harness's allocators (a candidate that knows when it is timed gains nothing).
    if (check_memory_ || settings.mirror) {
      std::string not_tensor;
      std::string foreign = foreign_outputs(result.get(), not_tensor);
      // A mirror's outcome is not a verdict: a reference may return what it did not allocate.
      if (check_memory_ && (!not_tensor.empty() || !foreign.empty())) {
        release();
        return reply(fmt::format(R"("ok":true,"{}":{},"call":{})", not_tensor.empty() ? "foreign" : "invalid",
                                 json_string(not_tensor.empty() ? foreign : not_tensor), i));
      }
    }
    if (t.hold_timed_out) {
      ++hold_timeouts;
      // A first call may wait for the device once: a library's handle or workspace made on first
      // use synchronises it. A timeout in the warm-up is tried again once.
      if (i < warmup && hold_timeouts == 1) continue;
      // The call waited for its own stream (or dispatched for longer than the gate waits): it
      // cannot be timed with held launches. This sample is discarded; the rest are timed with
      // the dispatch included, and the reply says so.
      hold = false;
      empty = measure_empty_call(false);
      samples = sample_set{};
      calls.clear();
      continue;
    }
    bool warm = i < warm_calls;
    clean_calls = faults > settled_faults ? 0 : clean_calls + 1;
    if (warm && i + 1 == warm_calls && clean_calls < settled_calls && warm_calls < warmup + max_settling) ++warm_calls;
    if (!warm && !begin) begin = host_ms() - t.wall_ms;
    // nvbench's rule: a sample taken below 75% of the maximum SM clock measures the throttle,
    // not the kernel; it is dropped (and counted).
    unsigned mhz = dev_->sm_clock_mhz();
    if (mhz) {
      clock_min = std::min(clock_min, mhz);
      clock_max = std::max(clock_max, mhz);
    }
    // If the clock stays low (a power-capped or shared GPU), dropping would never end: after as
    // many drops as kept samples (and at least 20) the samples are kept and the count says so.
    bool throttled = mhz && clock_limit && mhz < clock_limit * 3 / 4 && dropped < std::max(20, samples.size());
    if (!warm && throttled) ++dropped;
    if (!warm && !throttled) {
      samples.add(make_sample(t.event_ms, t.wall_ms, t.host_ms, t.tail_ms, t.held));
      if (faults > settled_faults) ++faulted_samples;
      // Each kept call with its times and the sketch of its outputs: the parent bounds the times
      // by its own clock and checks sketches of calls it picks afterwards against the reference.
      std::string sketch = sketch_seed ? sketch_outputs(result.get(), sketch_seed) : "[]";
      calls += fmt::format(R"({}{{"call":{},"event_ms":{},"host_ms":{},"wall_ms":{},"tail_ms":{},"sketch":{}}})",
                           calls.empty() ? "" : ",", i, t.event_ms, t.host_ms, t.wall_ms, t.tail_ms, sketch);
    }
    // Which timed outputs come back whole is decided here: the first one, then at random within
    // the byte budget. Any other kept call may be checked through its sketch.
    bool check = false;
    if (check_outputs && !warm && !throttled) {
      double p = checked.empty() ? 1.0 : std::min(1.0, check_budget / std::max(1.0, checked_bytes + 1) / 4);
      check = checked.empty() || (checked_bytes < check_budget && std::uniform_real_distribution<>(0, 1)(rng) < p);
    }
    if (check) {
      std::string metas;
      std::size_t before = out_payload.size();
      if (!read_result_tensors(result.get(), out_payload, metas)) {
        release();
        return reply_python_error("runtime_error");
      }
      checked_bytes += static_cast<double>(out_payload.size() - before);
      checked += fmt::format(R"({}{{"call":{},"set":{},"outputs":[{}]}})", checked.empty() ? "" : ",", i, plan.set, metas);
    }
    // The outputs' memory is the next call's, most likely: the sketch and the copy above must not
    // leave it in caches (the sketch reads it on every core) for one worker's calls and not the other's.
    if (!dev_->is_cuda()) evict_outputs(result.get());
    double elapsed = begin ? (host_ms() - *begin) / 1000.0 : 0;
    if (!warm && samples.done(rule, elapsed)) break;
    // Past three times the time asked for: give up with what there is, once it is half the fewest
    // samples (a turn of paired rounds on the CPU used to end on one) or samples are being dropped
    // (throttled throughout).
    if (!warm && elapsed > 3 * rule.max_seconds && (dropped > 0 || 2 * samples.size() >= rule.min_samples)) break;
  }
  release();
  ++time_requests_;
  if (settings.mirror) {  // done, not sent
    out_payload.clear();
    checked.clear();
  }
  record::timing_summary s = samples.summarize(empty);
  if (trace_)
    std::fprintf(stderr, "headroom-worker: time: %d warm-up call(s), %d sample(s), %d with page faults, median %.4g ms\n",
                 warm_calls, s.samples, faulted_samples, s.median_ms);
  reply(fmt::format(R"("ok":true,"timing":{{"samples":{},"median_ms":{},"mean_ms":{},"stddev_ms":{},"min_ms":{},"max_ms":{},"rel_spread":{},"wall_median_ms":{},"score_ms":{},"host_median_ms":{},"tail_median_ms":{},"held":{},"host_bound":{},"device_median_ms":{},"device_cost_ms":{},"hold_mechanism":{},"hold_timeouts":{},"empty_wall_ms":{},"empty_tail_ms":{},"sm_clock_min_mhz":{},"sm_clock_max_mhz":{},"throttled_samples":{},"pinned":{},"warmup_calls":{},"faulted_samples":{}}},"calls":[{}],"checked":[{}],"tampered":{})",
                    s.samples, s.median_ms, s.mean_ms, s.stddev_ms, s.min_ms, s.max_ms, s.rel_spread,
                    s.wall_median_ms, s.score_ms, s.host_median_ms, s.tail_median_ms, hold, s.host_bound, s.device_median_ms, s.device_cost_ms,
                    json_string(hold ? dev_->hold_mechanism() : std::string()), hold_timeouts,
                    empty.wall_ms, empty.tail_ms, clock_max ? clock_min : 0, clock_max, dropped, pin && pin->pinned(),
                    warm_calls, faulted_samples, calls, checked, tampered_json()),
        out_payload);
}

empty_call worker::measure_empty_call(bool held) {
  py_ref noop = fn("noop");
  std::vector<double> walls, tails;
  for (int i = 0; i < 21; ++i) {
    dev_->start_timer(held);
    py_ref r(PyObject_CallNoArgs(noop.get()));
    dev_->call_returned();
    device::times t = dev_->stop_timer();
    walls.push_back(t.wall_ms);
    tails.push_back(t.tail_ms);
  }
  return empty_call{median_of(walls), median_of(tails)};
}

// A question to the parent within a request; its answer, parsed into `parser`.
simdjson::dom::element worker::ask_parent(simdjson::dom::parser& parser, const char* what, int call) {
  if (!write_message(out_, sandbox::message{fmt::format(R"({{"nonce":{},"ask":"{}","call":{}}})", json_string(nonce_),
                                                        what, call),
                                            {}}))
    std::_Exit(4);
  read_result r = read_message(in_, std::nullopt);
  if (r.status != read_status::ok) std::_Exit(r.status == read_status::closed ? 0 : 3);
  simdjson::dom::element doc;
  if (parser.parse(r.msg.header).get(doc)) throw request_error("the parent's answer to a question is not JSON");
  return doc;
}

worker::call_plan worker::ask_call(int call, std::size_t sets) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc = ask_parent(parser, "call", call);
  call_plan plan;
  plan.set = static_cast<std::size_t>(doc["set"].get_uint64().value());
  plan.seed = doc["seed"].get_uint64().value();
  if (plan.set >= sets) throw request_error("the parent named an input set that was not sent");
  return plan;
}

// A call's inputs: every floating tensor of the pristine set perturbed under the call's seed
// (fresh_inputs.hpp), every other tensor copied as it is.
worker::built_inputs worker::fresh_inputs(const std::vector<meta>& set, const std::vector<void*>& pristine, std::uint64_t seed,
                                const std::vector<std::uint64_t>& symmetric) {
  std::vector<const void*> srcs(pristine.begin(), pristine.end());
  built_inputs in = build_inputs(set, nullptr, true, &srcs);
  for (std::size_t m = 0; m < set.size(); ++m) {
    if (!is_floating(set[m].type) || set[m].bytes == 0) continue;
    std::size_t numel = set[m].bytes / dtype_size(set[m].type);
    dev_->perturbed_copy(in.data[m], pristine[m], set[m].type, numel, input_seed(seed, m),
                         m < symmetric.size() ? symmetric[m] : 0);
  }
  return in;
}

// The reference's side of the check of timed calls (docs/eval.md, "Integrity inside the worker"):
// calls of a candidate's timing run again here, on the same fresh inputs (the same sets, kept from
// this worker's own timing, and the same seeds), with the eager model; for each, the sketch of
// the outputs, and for those asked whole, the outputs themselves.
void worker::replay(simdjson::dom::element req) {
  py_ref model = eager_model_ ? eager_model_ : model_;
  if (!model) throw request_error("no model loaded");
  if (timing_sets_.empty()) throw request_error("no timing sets kept to replay on");
  std::vector<std::uint64_t> symmetric;
  if (simdjson::dom::array sym; !req["symmetric"].get_array().get(sym))
    for (simdjson::dom::element x : sym) symmetric.push_back(x.get_uint64().value());
  std::uint64_t sketch_seed = req["sketch_seed"].get_uint64().value();
  if (req["keep_heap"].get_bool().get(keep_heap_)) keep_heap_ = false;
  pristine_sets pristine = upload_sets();
  std::vector<std::byte>& out_payload = outputs_;
  out_payload.clear();
  std::string sketches, whole;
  simdjson::dom::array list = req["calls"].get_array().value();
  for (simdjson::dom::element c : list) {
    auto set = static_cast<std::size_t>(c["set"].get_uint64().value());
    std::uint64_t seed = c["seed"].get_uint64().value();
    bool full = false;
    if (c["whole"].get_bool().get(full)) full = false;
    if (set >= timing_sets_.size()) {
      release_sets(pristine);
      throw request_error("a replay names an input set that was not kept");
    }
    built_inputs in = fresh_inputs(timing_sets_[set], pristine[set], seed, symmetric);
    py_ref result(PyObject_CallObject(model.get(), in.tuple.get()));
    if (!result) {
      release_sets(pristine);
      return reply_python_error("runtime_error");
    }
    dev_->synchronize();
    sketches += (sketches.empty() ? "" : ",") + sketch_outputs(result.get(), sketch_seed);
    std::string metas;
    if (full) {
      if (!read_result_tensors(result.get(), out_payload, metas)) {
        release_sets(pristine);
        return reply_python_error("runtime_error");
      }
    }
    whole += fmt::format("{}[{}]", whole.empty() ? "" : ",", metas);
  }
  release_sets(pristine);
  reply(fmt::format(R"("ok":true,"sketches":[{}],"outputs":[{}])", sketches, whole), out_payload);
}

}  // namespace headroom::worker
