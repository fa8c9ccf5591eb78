#include "worker/timing_loop.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <random>
#include <string>

#include <fmt/format.h>

#include "headroom/sandbox/announcements.hpp"
#include "headroom/util/json.hpp"
#include "headroom/worker/fresh_inputs.hpp"
#include "worker/allocation_watch.hpp"
#include "worker/call_outputs.hpp"
#include "worker/error_replies.hpp"
#include "worker/idle_probe.hpp"
#include "worker/kept_outputs.hpp"
#include "worker/loaded_problem.hpp"
#include "worker/parent_channel.hpp"
#include "worker/process_memory.hpp"
#include "worker/python_driver.hpp"
#include "worker/request_error.hpp"
#include "worker/request_memory.hpp"
#include "worker/thread_pin.hpp"
#include "worker/timing_sets.hpp"

namespace headroom::worker {
namespace {

using util::json_string;

// What a timing request asks besides its sets (docs/eval.md, "Timing").
struct timing_settings {
  stopping_rule rule;
  int warmup = 0;
  double check_bytes = 0;  // outputs sent back whole, at most about this many bytes
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

std::vector<std::uint64_t> read_symmetric(simdjson::dom::element req) {
  std::vector<std::uint64_t> symmetric;
  if (simdjson::dom::array sym; !req["symmetric"].get_array().get(sym))
    for (simdjson::dom::element x : sym) symmetric.push_back(x.get_uint64().value());
  return symmetric;
}

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
  t.symmetric = read_symmetric(req);
  if (req["sketch_seed"].get_uint64().get(t.sketch_seed)) t.sketch_seed = 0;
  if (cuda && req["hold"].get_bool().get(t.hold)) t.hold = false;
  if (req["mirror"].get_bool().get(t.mirror)) t.mirror = false;
  return t;
}

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

}  // namespace

// One time request's calls: the measurement's lifecycle (nvbench's measure_cold): the empty call,
// then calls on fresh inputs, each after the GPU was found idle, the first `warmup` of them not
// kept, each kept one checked; then the summary.
struct timing_loop::timed_run {
  // What became of one call.
  enum class step { next, done, answered };

  timed_run(timing_loop& loop, py_ref model, timing_settings settings)
      : loop(loop),
        p(loop.p_),
        model(std::move(model)),
        settings(std::move(settings)),
        hold(this->settings.hold),
        warm_calls(this->settings.warmup) {}

  void run();
  step call(int i);
  // Whether the GPU is idle before call i (gpu_idle.hpp), waited for a while when it is not; false
  // when it stayed busy, and the request is answered gpu_busy.
  bool idle_before_call(int i);
  // Where the call's outputs lie (output_memory.hpp): empty, or the answer's fields saying why they
  // fail (a timed call must return memory it allocated, or kept memory the worker filled before it
  // and the call rewrote).
  std::string misplaced(const py_ref& result, const built_inputs& in, const std::vector<meta>& set,
                        std::vector<output_extent>& extents);
  // The call's result, kept as a sample (or not), checked, evicted; whether the request is done.
  step keep(int i, const call_plan& plan, const py_ref& result, const device::times& t, long faults);
  // A held call that timed out waiting for its gate: tried again, or the rest timed unheld.
  void hold_timed_out(int i);
  // Which timed outputs come back whole: the first one, then at random within the byte budget.
  bool check_this_call();
  bool copy_outputs(int i, std::size_t set, const py_ref& result);
  void answer();
  void release() { p.sets.release(pristine); }

  timing_loop& loop;
  parts& p;
  const py_ref model;
  const timing_settings settings;
  std::optional<thread_pin> pin;
  timing_sets::pristine pristine;
  bool hold;
  int hold_timeouts = 0;
  empty_call empty{};
  std::mt19937_64 rng{std::random_device{}()};
  idle_watch idle;
  double probe_ms = 0;  // the probe before the call being timed (0 on the CPU)
  sample_set samples;
  unsigned clock_limit = 0, clock_min = ~0u, clock_max = 0;
  int dropped = 0;
  std::string checked, calls;
  double checked_bytes = 0;
  int warm_calls, clean_calls = 0, faulted_samples = 0;
  int kept_calls = 0;  // calls that returned memory the candidate keeps
  // Sampling time counts from the first kept call: on the CPU a call's fresh inputs, the cache
  // flush and the parent's questions take many times a small forward, and counted from the start
  // they left a short turn of paired rounds (0.1 s at --max-time 1) one sample or two.
  std::optional<double> begin;
};

void timing_loop::time(simdjson::dom::element req) {
  if (!p_.problem.model) throw request_error("no model loaded");
  if (p_.sets.empty()) throw request_error("no input sets to time");
  if (req["set_count"].get_uint64().value() != p_.sets.size())
    throw request_error("the timing request names another number of sets than this worker keeps");
  bool eager = false;
  if (req["eager"].get_bool().get(eager)) eager = false;
  bool keep_heap = false;
  if (req["keep_heap"].get_bool().get(keep_heap)) keep_heap = false;
  p_.memory.keep_heap(keep_heap);
  py_ref model = eager && p_.problem.eager_model ? p_.problem.eager_model : p_.problem.model;
  timed_run run(*this, std::move(model), read_timing_settings(req, p_.dev->is_cuda()));
  run.run();
}

void timing_loop::timed_run::run() {
  pristine = p.sets.upload();
  empty = loop.measure_empty_call(hold);
  clock_limit = p.dev->sm_clock_max_mhz();
  p.memory.outputs().clear();
  for (int i = 0;; ++i) {
    step s = call(i);
    if (s == step::answered) return;
    if (s == step::done) break;
  }
  release();
  if (settings.mirror) {  // done, not sent
    p.memory.outputs().clear();
    checked.clear();
  }
  answer();
}

timing_loop::timed_run::step timing_loop::timed_run::call(int i) {
  if (i == settings.warmup && settings.cpu >= 0) pin.emplace(static_cast<int>(settings.cpu));
  call_plan plan = loop.ask_call(i, p.sets.size());
  const std::vector<meta>& set = p.sets.metas(plan.set);
  built_inputs in = loop.fresh_inputs(set, pristine[plan.set], plan.seed, settings.symmetric);
  // Kept outputs are filled before every timed call as before a trial's (kept_outputs.hpp): a
  // persistent buffer left as an earlier call wrote it shows as the pattern, not as a fast call.
  if (p.problem.check_memory) p.kept.fill(0xff);
  p.dev->flush_caches();
  // The fresh inputs were just written: out of every cache, whatever its size (device::evict); so
  // were the kept outputs.
  for (std::size_t m = 0; m < in.data.size() && m < set.size(); ++m) p.dev->evict(in.data[m], set[m].bytes);
  if (p.problem.check_memory)
    for (const memory_span& f : p.kept.filled())
      if (!f.on_device) p.dev->evict(f.begin, f.bytes);
  if (!idle_before_call(i)) return step::answered;
  p.allocations.begin_log();
  const long faults_before = page_faults();
  // The call's start and end, announced on a socket that stamps each datagram when it is sent
  // (announcements.hpp): the parent bounds the call by the two stamps (timing_log.hpp). The
  // device is idle first (the inputs were made on it), so that only the timer's own start lies
  // between the start's stamp and the wall clock's.
  p.dev->synchronize();
  sandbox::announce(p.announce, fmt::format("start {}", i));
  p.dev->start_timer(hold);
  py_ref result = python_driver::call_forward(model, in.tuple);
  p.dev->call_returned();
  p.allocations.end_log();
  if (!result) {
    p.dev->stop_timer();  // opens the gate
    release();
    p.errors.python("runtime_error");
    return step::answered;
  }
  device::times t = p.dev->stop_timer();
  sandbox::announce(p.announce, fmt::format("done {}", i));
  const long faults = page_faults() - faults_before;
  // Every timed call's result is checked as a checked call's is: tensors, in memory the call got
  // from the harness's allocators or kept memory it rewrote (a candidate that knows when it is
  // timed gains nothing).
  std::vector<output_extent> extents;
  if (std::string why = misplaced(result, in, set, extents); !why.empty()) {
    release();
    p.channel.reply(fmt::format(R"("ok":true,{},"call":{})", why, i));
    return step::answered;
  }
  if (p.problem.check_memory) p.kept.note(result, extents);  // filled before the next call
  if (t.hold_timed_out) {
    hold_timed_out(i);
    return step::next;
  }
  return keep(i, plan, result, t, faults);
}

bool timing_loop::timed_run::idle_before_call(int i) {
  if (!p.dev->is_cuda()) return true;
  const idle_check c = wait_for_idle(*p.dev, idle);  // the flush and the fresh inputs done first
  probe_ms = c.probe_ms;
  if (c.quiet) return true;
  // Nothing of this request is kept: timed now, the call would be slowed by work that is not its
  // own, and so would the next ones (docs/eval.md, "Sandbox").
  release();
  p.channel.reply(fmt::format(
      R"("ok":false,"error":"gpu_busy","kind":"","message":{},"call":{},"probe_ms":{},"first_probe_ms":{},"threshold_ms":{},"waited_ms":{},"quiet_ms":{})",
      json_string(fmt::format("the GPU stayed busy before timed call {}: an empty kernel's round trip took {:.3g} ms "
                              "(busy above {:.3g} ms) after {:.0f} ms of waiting for it to turn idle",
                              i, c.probe_ms, c.threshold_ms, c.waited_ms)),
      i, c.probe_ms, c.first_ms, c.threshold_ms, c.waited_ms, idle.quiet_ms().value_or(0)));
  return false;
}

std::string timing_loop::timed_run::misplaced(const py_ref& result, const built_inputs& in,
                                              const std::vector<meta>& set, std::vector<output_extent>& extents) {
  // A mirror does the same work and its outcome is not a verdict: a reference may return what it
  // did not allocate.
  if (!p.problem.check_memory && !settings.mirror) return {};
  std::string not_tensor;
  const std::vector<memory_span> inputs = call_outputs::input_spans(in.data, set, p.dev->is_cuda());
  static const std::vector<memory_span> none;
  output_placement placed =
      p.outputs.place(result, inputs, p.problem.check_memory ? p.kept.filled() : none, false, extents, not_tensor);
  if (!p.problem.check_memory) return {};
  if (!not_tensor.empty()) return fmt::format(R"("invalid":{})", json_string(not_tensor));
  if (placed.failed())
    return fmt::format(R"("misplaced":{},"why":{})", json_string(placed.code), json_string(placed.why));
  if (std::string stale = p.kept.stale(placed, extents); !stale.empty())
    return fmt::format(R"("misplaced":"stale_output","why":{})", json_string(stale));
  for (const output_place& o : placed.places)
    if (o.memory == output_memory::kept) {
      ++kept_calls;
      break;
    }
  return {};
}

void timing_loop::timed_run::hold_timed_out(int i) {
  ++hold_timeouts;
  // A first call may wait for the device once: a library's handle or workspace made on first
  // use synchronises it. A timeout in the warm-up is tried again once.
  if (i < settings.warmup && hold_timeouts == 1) return;
  // The call waited for its own stream (or dispatched for longer than the gate waits): it
  // cannot be timed with held launches. This sample is discarded; the rest are timed with
  // the dispatch included, and the reply says so.
  hold = false;
  empty = loop.measure_empty_call(false);
  samples = sample_set{};
  calls.clear();
}

timing_loop::timed_run::step timing_loop::timed_run::keep(int i, const call_plan& plan, const py_ref& result,
                                                          const device::times& t, long faults) {
  const bool warm = i < warm_calls;
  clean_calls = faults > settled_faults ? 0 : clean_calls + 1;
  if (warm && i + 1 == warm_calls && clean_calls < settled_calls && warm_calls < settings.warmup + max_settling)
    ++warm_calls;
  if (!warm && !begin) begin = host_ms() - t.wall_ms;
  // nvbench's rule: a sample taken below 75% of the maximum SM clock measures the throttle,
  // not the kernel; it is dropped (and counted).
  unsigned mhz = p.dev->sm_clock_mhz();
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
    std::string sketch = settings.sketch_seed ? p.outputs.sketch_outputs(result, settings.sketch_seed) : "[]";
    calls +=
        fmt::format(R"({}{{"call":{},"event_ms":{},"host_ms":{},"wall_ms":{},"tail_ms":{},"probe_ms":{},"sketch":{}}})",
                    calls.empty() ? "" : ",", i, t.event_ms, t.host_ms, t.wall_ms, t.tail_ms, probe_ms, sketch);
  }
  // Any other kept call may be checked through its sketch.
  if (settings.check_outputs && !warm && !throttled && check_this_call() && !copy_outputs(i, plan.set, result)) {
    release();
    p.errors.python("runtime_error");
    return step::answered;
  }
  // The outputs' memory is the next call's, most likely: the sketch and the copy above must not
  // leave it in caches (the sketch reads it on every core) for one worker's calls and not the other's.
  if (!p.dev->is_cuda()) p.outputs.evict_outputs(result);
  double elapsed = begin ? (host_ms() - *begin) / 1000.0 : 0;
  const stopping_rule& rule = settings.rule;
  if (!warm && samples.done(rule, elapsed)) return step::done;
  // Past three times the time asked for: give up with what there is, once it is half the fewest
  // samples (a turn of paired rounds on the CPU used to end on one) or samples are being dropped
  // (throttled throughout).
  if (!warm && elapsed > 3 * rule.max_seconds && (dropped > 0 || 2 * samples.size() >= rule.min_samples))
    return step::done;
  return step::next;
}

bool timing_loop::timed_run::check_this_call() {
  const double budget = settings.check_bytes;
  double chance = checked.empty() ? 1.0 : std::min(1.0, budget / std::max(1.0, checked_bytes + 1) / 4);
  return checked.empty() || (checked_bytes < budget && std::uniform_real_distribution<>(0, 1)(rng) < chance);
}

bool timing_loop::timed_run::copy_outputs(int i, std::size_t set, const py_ref& result) {
  std::vector<std::byte>& out_payload = p.memory.outputs();
  std::string metas;
  std::size_t before = out_payload.size();
  if (!p.bridge.read_result_tensors(result, out_payload, metas)) return false;
  checked_bytes += static_cast<double>(out_payload.size() - before);
  checked += fmt::format(R"({}{{"call":{},"set":{},"outputs":[{}]}})", checked.empty() ? "" : ",", i, set, metas);
  return true;
}

void timing_loop::timed_run::answer() {
  record::timing_summary s = samples.summarize(empty);
  if (p.trace)
    std::fprintf(stderr,
                 "headroom-worker: time: %d warm-up call(s), %d sample(s), %d with page faults, median %.4g ms; "
                 "idle probes: least %.4g ms, longest quiet %.4g ms, %.0f ms waited for a busy GPU\n",
                 warm_calls, s.samples, faulted_samples, s.median_ms, idle.quiet_ms().value_or(0),
                 idle.worst_quiet_ms(), idle.waited_ms());
  p.channel.reply(
      fmt::format(
          R"("ok":true,"timing":{{{},"host_median_ms":{},"tail_median_ms":{},"held":{},"host_bound":{},"device_median_ms":{},"device_cost_ms":{},"hold_mechanism":{},"hold_timeouts":{},"empty_wall_ms":{},"empty_tail_ms":{},"sm_clock_min_mhz":{},"sm_clock_max_mhz":{},"throttled_samples":{},"pinned":{},"warmup_calls":{},"faulted_samples":{},"idle_quiet_ms":{},"idle_longest_quiet_ms":{},"idle_waited_ms":{}}},"kept_calls":{},"calls":[{}],"checked":[{}],"tampered":{})",
          record::kept_statistics_json(s), s.host_median_ms, s.tail_median_ms, hold, s.host_bound, s.device_median_ms,
          s.device_cost_ms, json_string(hold ? p.dev->hold_mechanism() : std::string()), hold_timeouts, empty.wall_ms,
          empty.tail_ms, clock_max ? clock_min : 0, clock_max, dropped, pin && pin->pinned(), warm_calls,
          faulted_samples, idle.quiet_ms().value_or(0), idle.worst_quiet_ms(), idle.waited_ms(), kept_calls, calls,
          checked, p.python.tampered_json()),
      p.memory.outputs());
}

empty_call timing_loop::measure_empty_call(bool held) {
  py_ref noop = p_.python.noop();
  std::vector<double> walls, tails;
  for (int i = 0; i < 21; ++i) {
    p_.dev->start_timer(held);
    py_ref r = python_driver::call_empty(noop);
    p_.dev->call_returned();
    device::times t = p_.dev->stop_timer();
    walls.push_back(t.wall_ms);
    tails.push_back(t.tail_ms);
  }
  return empty_call{median_of(walls), median_of(tails)};
}

timing_loop::call_plan timing_loop::ask_call(int call, std::size_t sets) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc = p_.channel.ask(parser, "call", call);
  call_plan plan;
  plan.set = static_cast<std::size_t>(doc["set"].get_uint64().value());
  plan.seed = doc["seed"].get_uint64().value();
  if (plan.set >= sets) throw request_error("the parent named an input set that was not sent");
  return plan;
}

built_inputs timing_loop::fresh_inputs(const std::vector<meta>& set, const std::vector<void*>& pristine,
                                       std::uint64_t seed, const std::vector<std::uint64_t>& symmetric) {
  std::vector<const void*> srcs(pristine.begin(), pristine.end());
  built_inputs in = p_.bridge.build_inputs(set, nullptr, true, p_.problem.constants, &srcs);
  for (std::size_t m = 0; m < set.size(); ++m) {
    if (!is_floating(set[m].type) || set[m].bytes == 0) continue;
    std::size_t numel = set[m].bytes / dtype_size(set[m].type);
    p_.dev->perturbed_copy(in.data[m], pristine[m], set[m].type, numel, input_seed(seed, m),
                           m < symmetric.size() ? symmetric[m] : 0);
  }
  return in;
}

void timing_loop::replay(simdjson::dom::element req) {
  py_ref model = p_.problem.eager_model ? p_.problem.eager_model : p_.problem.model;
  if (!model) throw request_error("no model loaded");
  if (p_.sets.empty()) throw request_error("no timing sets kept to replay on");
  std::vector<std::uint64_t> symmetric = read_symmetric(req);
  std::uint64_t sketch_seed = req["sketch_seed"].get_uint64().value();
  bool keep_heap = false;
  if (req["keep_heap"].get_bool().get(keep_heap)) keep_heap = false;
  p_.memory.keep_heap(keep_heap);
  timing_sets::pristine pristine = p_.sets.upload();
  std::vector<std::byte>& out_payload = p_.memory.outputs();
  out_payload.clear();
  std::string sketches, whole;
  simdjson::dom::array list = req["calls"].get_array().value();
  for (simdjson::dom::element c : list) {
    auto set = static_cast<std::size_t>(c["set"].get_uint64().value());
    std::uint64_t seed = c["seed"].get_uint64().value();
    bool full = false;
    if (c["whole"].get_bool().get(full)) full = false;
    if (set >= p_.sets.size()) {
      p_.sets.release(pristine);
      throw request_error("a replay names an input set that was not kept");
    }
    built_inputs in = fresh_inputs(p_.sets.metas(set), pristine[set], seed, symmetric);
    py_ref result = python_driver::call_forward(model, in.tuple);
    if (!result) {
      p_.sets.release(pristine);
      return p_.errors.python("runtime_error");
    }
    p_.dev->synchronize();
    sketches += (sketches.empty() ? "" : ",") + p_.outputs.sketch_outputs(result, sketch_seed);
    std::string metas;
    if (full && !p_.bridge.read_result_tensors(result, out_payload, metas)) {
      p_.sets.release(pristine);
      return p_.errors.python("runtime_error");
    }
    whole += fmt::format("{}[{}]", whole.empty() ? "" : ",", metas);
  }
  p_.sets.release(pristine);
  p_.channel.reply(fmt::format(R"("ok":true,"sketches":[{}],"outputs":[{}])", sketches, whole), out_payload);
}

}  // namespace headroom::worker
