// A conversation with one worker (session.hpp).
#include "session.hpp"

#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <shared_mutex>
#include <thread>

#include <fmt/format.h>

#include "candidate_sandbox.hpp"
#include "device_gate.hpp"
#include "headroom/sandbox/freeze.hpp"
#include "headroom/eval/buffer_pool.hpp"
#include "headroom/util/error.hpp"
#include "headroom/util/json.hpp"
#include "headroom/util/phase_trace.hpp"

namespace headroom::eval {

using util::json_string;
using record::timing_summary;

std::string describe(const answer& a) {
  if (a.failure != worker_failure::none) return a.detail;
  return a.message + (a.traceback.empty() ? "" : "\n" + a.traceback);
}

session::session(const run_state& run, const std::string& device, const std::string& label,
                 const std::map<std::string, std::string>& env, std::optional<sandbox::policy> isolation)
    : device_(device),
      poison_allocator_(run.options.poison_allocator.string()),
      alloc_tracker_(run.options.alloc_tracker.string()),
      op_record_path_(run.options.op_record.string()) {
  const eval_options& options = run.options;
  worker_launch launch;
  launch.worker = options.worker;
  launch.python = options.python;
  launch.log = options.cache / "logs" / (label + ".log");
  launch.env = run.worker_env;
  for (const auto& [k, v] : env) launch.env[k] = v;
  launch.env["PYTHONDONTWRITEBYTECODE"] = "1";
  launch.env["PYTHONUNBUFFERED"] = "1";
  if (isolation) {
    launch.isolation = std::move(isolation);
    launch.sandbox = options.sandbox_exe;
    launch.worker_inside = sandbox_worker_path;
    if (!poison_allocator_.empty()) poison_allocator_ = sandbox_poison_path;
    if (!alloc_tracker_.empty()) alloc_tracker_ = sandbox_alloc_tracker_path;
    if (!op_record_path_.empty()) op_record_path_ = sandbox_op_record_path;
  }
  process_ = std::make_unique<worker_process>(launch);
}

static answer to_answer(worker_reply r) {
  answer a;
  a.failure = r.failure;
  a.detail = std::move(r.detail);
  if (a.failure != worker_failure::none) return a;
  a.parser = std::make_shared<simdjson::dom::parser>();
  a.payload = std::move(r.msg.payload);
  if (a.parser->parse(r.msg.header).get(a.doc)) {
    a.failure = worker_failure::tampering;
    a.detail = "an answer that is not JSON";
    return a;
  }
  bool ok = false;
  if (a.doc["ok"].get_bool().get(ok)) {
    a.failure = worker_failure::tampering;
    a.detail = "an answer without a status";
    return a;
  }
  a.ok = ok;
  std::string_view s;
  if (!a.doc["error"].get_string().get(s)) a.error = s;
  if (!a.doc["kind"].get_string().get(s)) a.kind = s;
  if (!a.doc["message"].get_string().get(s)) a.message = s;
  if (!a.doc["traceback"].get_string().get(s)) a.traceback = s;
  return a;
}

answer session::ask(const std::string& fields, std::span<const std::span<const std::byte>> payload,
                    std::chrono::seconds timeout) {
  util::phase_trace trace(util::eval_trace_enabled() ? "request " + fields.substr(0, fields.find(',')) : std::string());
  // Other evaluations on this device (--lanes) wait while this one measures, and it waits for their
  // requests in flight; so do those on the host's other devices (host_gate). The request's timeout
  // starts once the gates are passed. Always the host's gate first, then the device's.
  gate_pass gates = gated_ ? pass_gates(fields, device_) : gate_pass{};
  // Nothing of another candidate runs while this request measures: every other sandbox is stopped.
  std::optional<sandbox::freeze_others> frozen;
  if (gate_use_of(fields) == gate_use::exclusive) frozen.emplace(std::vector<const worker_process*>{process_.get()});
  return request(fields, payload, timeout, nullptr, 0);
}

std::pair<answer, answer> session::ask_alternating(session& first, const std::string& first_fields, session& second,
                                                   const std::string& second_fields, std::chrono::seconds timeout) {
  util::phase_trace trace(util::eval_trace_enabled() ? "alternating timing requests" : std::string());
  // One measurement of two workers: the gates and the freeze of every other sandbox are taken once
  // for both (taken twice, the second request would wait for the first).
  gate_pass gates = pass_gates(first_fields, first.device_);
  sandbox::freeze_others frozen(std::vector<const worker_process*>{first.process_.get(), second.process_.get()});
  call_alternation turns;
  // The second side's request on a thread of its own; its answer is in once the thread has ended.
  answer second_answer;
  std::thread second_side([&] {
    try {
      second_answer = second.request(second_fields, {}, timeout, &turns, 1);
    } catch (const std::exception& e) {
      second_answer.failure = worker_failure::died;
      second_answer.detail = e.what();
    }
  });
  answer first_answer;
  try {
    first_answer = first.request(first_fields, {}, timeout, &turns, 0);
  } catch (...) {
    second_side.join();  // the first side's end (its request's guard) released the second
    throw;
  }
  second_side.join();
  return {std::move(first_answer), std::move(second_answer)};
}

answer session::request(const std::string& fields, std::span<const std::span<const std::byte>> payload,
                        std::chrono::seconds timeout, call_alternation* turns, int side) {
  auto take = [](std::uint64_t bytes) { return bytes ? payload_pool().take(bytes) : std::vector<std::byte>(); };
  // A timing request's worker asks for each call's plan (timing_log.hpp) just before the call, and
  // announces each call's start and end on its stamped socket: read before every question (the
  // previous call's are sent by then) and once the answer is in.
  worker_process::ask_handler on_ask;
  const bool timing = fields.starts_with(R"("op":"time")");
  auto take_announcements = [this] {
    for (const sandbox::announcement& a : process_->announcements()) timing_.announced(a.text, a.sent_ms);
  };
  if (timing) {
    std::size_t sets = 1;
    if (auto at = fields.find(R"("set_count":)"); at != std::string::npos) sets = std::stoul(fields.substr(at + 12));
    process_->announcements();  // sent outside any timing: they belong to none
    timing_.start(sets);
    on_ask = [this, take_announcements, turns, side](simdjson::dom::element q) {
      take_announcements();
      std::int64_t call = 0;
      if (q["call"].get_int64().get(call)) call = 0;
      std::string_view what;
      if (q["ask"].get_string().get(what)) what = "call";
      // Alternating: this worker waits, stopped when it is a candidate's sandbox, while the other
      // runs a call (its background threads would otherwise run beside the other's call).
      if (turns)
        turns->before_call(
            side, [this] { process_->freeze(); }, [this] { process_->thaw(); });
      return timing_.answer(what, call);
    };
  }
  // However the request ends, the other side no longer waits for this one's calls.
  struct end_of_turns {
    call_alternation* turns;
    int side;
    ~end_of_turns() {
      if (turns) turns->end(side);
    }
  } ending{turns, side};
  worker_reply reply = process_->request("{" + fields + "}", payload, timeout, take, on_ask);
  if (timing) take_announcements();
  return to_answer(std::move(reply));
}

void session::recycle(std::vector<std::byte>&& buffer) { payload_pool().give(std::move(buffer)); }

answer session::hello(std::chrono::seconds timeout, bool warm_record) {
  answer a = ask(
      fmt::format(
          R"("op":"hello","nonce":{},"device":{},"poison_allocator":{},"alloc_tracker":{},"op_record":{},"warm_record":{})",
          json_string(process_->nonce()), json_string(device_), json_string(poison_allocator_),
          json_string(alloc_tracker_), json_string(op_record_path_), warm_record),
      {}, timeout);
  if (a.failure != worker_failure::none || (!a.ok && a.error == "setup"))
    throw input_error(fmt::format("the evaluation worker could not start on {}: {}{}\n{}", device_,
                                  a.failure != worker_failure::none ? a.detail : a.message,
                                  a.failure != worker_failure::none ? "" : "", process_->log_tail(2000)));
  if (!a.ok) throw input_error("the evaluation worker failed to set up: " + a.message);
  bool poisoning = false;
  if (device_ != "cpu" && (a.doc["poison_allocator"].get_bool().get(poisoning) || !poisoning))
    // Without it an unwritten output could hold stale data that happens to be right.
    throw input_error(
        fmt::format("the poisoning CUDA allocation hook ({}) could not be loaded on {}; rebuild headroom "
                    "with the CUDA toolkit so lib/libheadroom_poison_alloc.so exists{}",
                    !alloc_tracker_.empty()     ? alloc_tracker_
                    : poison_allocator_.empty() ? "not found"
                                                : poison_allocator_,
                    device_,
                    alloc_tracker_.empty() ? ""
                                           : " (the tracker attaches only to PyTorch's native caching allocator: "
                                             "PYTORCH_CUDA_ALLOC_CONF must not choose another backend)"));
  if (std::string_view hook; device_ != "cpu" && !a.doc["cuda_hook"].get_string().get(hook) && hook == "pluggable") {
    static std::once_flag said;
    std::call_once(said, [] {
      fmt::print(stderr,
                 "headroom: the worker poisons CUDA memory through PyTorch's pluggable allocator (no "
                 "lib/libheadroom_alloc_tracker.so): candidates that use CUDA graph trees "
                 "(torch.compile mode=\"reduce-overhead\") or cuDNN's benchmark mode fail under it "
                 "(docs/eval.md, \"CUDA graphs\")\n");
    });
  }
  std::string_view s;
  if (!a.doc["op_record"].get_string().get(s)) op_record_ = s;
  if (op_record_ != "dispatcher") {
    std::string_view missing;
    if (a.doc["op_record_missing"].get_string().get(missing)) missing = "the worker gave no reason";
    static std::once_flag said;
    std::call_once(said, [&] {
      fmt::print(stderr,
                 "headroom: the worker records operators in Python ({}); candidate code can hide a "
                 "PyTorch fallback from that record (docs/eval.md, \"Verdicts\")\n",
                 missing);
    });
  }
  env_.device = device_;
  auto e = a.doc["env"];
  if (!e["gpu"].get_string().get(s)) env_.gpu = s;
  if (!e["torch"].get_string().get(s)) env_.torch = s;
  if (!e["python"].get_string().get(s)) env_.python = s;
  if (!e["cuda"].get_string().get(s)) env_.cuda = s;
  if (!e["capability"].get_string().get(s)) capability_ = s;
  if (!a.doc["driver"].get_string().get(s)) env_.driver = s;
  if (!a.doc["clocks"].get_string().get(s)) env_.clocks = s;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  env_.host = host;
  return a;
}

void recycle(std::vector<tensor>& tensors) {
  for (tensor& t : tensors) payload_pool().give(std::move(t.bytes));
  tensors.clear();
}

}  // namespace headroom::eval
