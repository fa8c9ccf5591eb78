#pragma once
// A conversation with one worker: start, hello, requests whose answers are parsed JSON. Internal to
// src/eval (reference.cpp, candidate.cpp, orchestrator.cpp).
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <simdjson.h>

#include "headroom/eval/orchestrator.hpp"
#include "headroom/eval/tensor.hpp"
#include "headroom/record/evaluation.hpp"
#include "headroom/sandbox/worker_process.hpp"
#include "call_alternation.hpp"
#include "tensor_wire.hpp"
#include "timing_log.hpp"

namespace headroom::eval {

using sandbox::worker_failure;
using sandbox::worker_process;
using sandbox::worker_launch;
using sandbox::worker_reply;
using record::environment;
using record::evaluation;
using record::timing_summary;

struct answer {
  worker_failure failure = worker_failure::none;
  std::string detail;  // failure detail
  bool ok = false;     // the worker answered ok:true
  std::string error;   // ok:false: compile_error, load_error, runtime_error, setup
  std::string kind;    // out_of_memory, illegal_address or empty
  std::string message;
  std::string traceback;
  std::shared_ptr<simdjson::dom::parser> parser;
  simdjson::dom::element doc;
  std::vector<std::byte> payload;
};

// What went wrong with a request, for a message: the failure's detail, or the worker's message and
// traceback.
std::string describe(const answer& a);

class session {
 public:
  // isolation: a candidate's worker runs in this sandbox (candidate_sandbox.hpp); the reference's
  // and the harness's own workers run without.
  session(const eval_options& options, const std::string& device, const std::string& label,
          const std::map<std::string, std::string>& env, std::optional<sandbox::policy> isolation = std::nullopt);
  // Starts the worker on its device; throws input_error when Python or PyTorch cannot be started
  // there (a problem of the installation, not of any candidate).
  // warm_record false: a worker that will never record operators skips the record's warm-up.
  answer hello(std::chrono::seconds timeout, bool warm_record = true);
  // `payload`: views of tensors' bytes (wire::encode), gathered as the request is written.
  answer ask(const std::string& fields, std::span<const std::span<const std::byte>> payload,
             std::chrono::seconds timeout);
  // Two timing requests at once, one to each worker, their calls taken in turn: `first`'s call,
  // then `second`'s, and so on (call_alternation.hpp), until each request's own stopping rule ends
  // it (the other then runs on alone). Every other sandbox is frozen throughout; a sandboxed worker
  // also while the other side's call runs. Returns the two answers, `first`'s first.
  static std::pair<answer, answer> ask_alternating(session& first, const std::string& first_fields, session& second,
                                                   const std::string& second_fields, std::chrono::seconds timeout);
  // Takes back a payload buffer no longer needed (a compared output's) into payload_pool(): the next
  // answers' payloads are read into the smallest kept buffer that holds them, its pages mapped already.
  void recycle(std::vector<std::byte>&& buffer);
  worker_process& process() { return *process_; }
  // What the parent saw of this worker's last timing request (its calls' plans and times).
  const timing_log& last_timing() const { return timing_; }
  const environment& env() const { return env_; }
  const std::string& capability() const { return capability_; }  // "9.0" on an H200; empty on the CPU
  // Where the worker records the operators a call dispatches: "dispatcher" (the C++ record, every
  // thread) or "python" (a dispatch mode on the calling thread; docs/eval.md, "Verdicts").
  const std::string& op_record() const { return op_record_; }
  std::string log_tail() const { return process_->log_tail(); }
  void stop() { process_->stop(); }

 private:
  // The request itself, once the gates are passed and other sandboxes frozen; `turns`: this side's
  // calls alternate with another worker's (side 0 or 1), or nullptr.
  answer request(const std::string& fields, std::span<const std::span<const std::byte>> payload,
                 std::chrono::seconds timeout, call_alternation* turns, int side);

  std::string device_;
  std::string poison_allocator_;
  std::string op_record_path_;
  std::string op_record_;
  std::unique_ptr<worker_process> process_;
  timing_log timing_;
  environment env_;
  std::string capability_;
};

// A worker started (and greeted) on another thread, so that its start-up (importing torch, creating
// a CUDA context: seconds) overlaps the evaluation before it. Whoever times something waits for it
// first (wait()), so that a worker starting up never disturbs a measurement.
class session_start {
 public:
  session_start(const eval_options& options, const std::string& device, const std::string& label,
                bool warm_record = true, std::optional<sandbox::policy> isolation = std::nullopt);
  ~session_start();
  session_start(const session_start&) = delete;
  session_start& operator=(const session_start&) = delete;
  void wait() const;
  // The greeted session; rethrows what starting it threw (input_error: the installation's problem).
  std::unique_ptr<session> take();

 private:
  std::future<std::unique_ptr<session>> started_;
};

// Called by prepare_reference and evaluate_candidate before they measure anything (the ceilings,
// the timing): the orchestrator passes the wait for the next worker's start-up.
using before_timing = std::function<void()>;

struct ceilings {
  double bandwidth = 0;  // bytes/s, read + written
  double matmul = 0;     // FLOP/s, dense bf16
};

struct trial_data {
  std::uint64_t seed = 0;
  int distribution = 0;
  std::vector<tensor> inputs;   // empty when the parent does not keep its trials (memory_plan.hpp)
  std::vector<tensor> outputs;
};

struct reference_data {
  std::string error;  // non-empty: the problem failed (reference_error)
  std::string init_inputs;
  // get_inputs()'s arguments that are not tensors, JSON [[position, value], ...] ("[]": none); the
  // same for every trial and timing set (run_trial checks).
  std::string constants = "[]";
  std::uint64_t init_seed = 0;
  // Every trial's seed and distribution, with its inputs and the reference's outputs when the
  // parent keeps them (keep_trials); else the reference's worker makes each again when a candidate
  // needs it (remake_trial).
  std::vector<trial_data> trials;
  bool keep_trials = true;
  int skipped_trials = 0;  // distributions outside the problem's domain
  std::string reduced;     // how the memory budget cut the timing sets
  // The timing sets live in the reference's worker (its inputs requests with keep_set), which
  // passes them on to every worker that times (send_timing_sets); the parent keeps their count.
  int timing_sets = 0;
  std::vector<tensor> output_shapes;  // the dtypes and shapes of the outputs (no bytes)
  std::uint64_t set_input_bytes = 0, set_output_bytes = 0;
  // The audit, when it was taken as the trials passed through (trials not kept).
  std::optional<audit_result> audit;
  // The operators of one reference forward, outermost kernels only (what a Python dispatch mode
  // sees): the reference's side of torch_fallback.
  std::vector<std::string> ops;
  std::optional<timing_summary> eager, compiled;
  // The same timed with the dispatch included (CUDA, when eager and compiled were held): a candidate
  // whose call waits for its own stream cannot be held, and is compared with these.
  std::optional<timing_summary> eager_dispatch, compiled_dispatch;
  std::optional<double> speed_of_light_ms;
  environment env;
  // Per input of the timing sets: n when it is symmetric n x n (its fresh inputs stay so), else 0.
  std::vector<std::uint64_t> symmetric;
  // The reference's worker, kept for the problem's candidates: it holds the timing sets and the
  // eager model, runs calls of a candidate's timing again to check them (timed_calls.hpp), and makes
  // the trials again when the parent does not keep them.
  std::shared_ptr<session> worker;
  // What the harness itself costs around a timed call, from the reference's eager timing by the
  // parent's clock (timed_calls.hpp): the median of each call's interval less its wall clock, and
  // of its wall clock less the longer of its device and host time.
  double call_overhead_ms = 0;
  double wall_gap_ms = 0;
};

// The trial plan: seeds derived from the run seed; distribution per trial as docs/eval.md says.
std::uint64_t trial_seed(std::uint64_t run_seed, int index);
int trial_distribution(int index);

// started: the problem's reference worker, already greeted (session_start::take), or null to start one here.
// audit: take the discrimination audit as the trials pass through when they are not kept (ref.audit).
reference_data prepare_reference(const problem_spec& problem, const eval_options& options, const std::string& device,
                                 std::optional<ceilings>& device_ceilings, const before_timing& before = {},
                                 std::unique_ptr<session> started = nullptr, bool audit = false);
// Trial `plan` (its seed and distribution) made again by the reference's worker into `out`: its
// inputs and the reference's outputs. Empty, or what went wrong.
std::string remake_trial(const reference_data& ref, const trial_data& plan, const eval_options& options, trial_data& out);
// The timing sets the reference's worker keeps, passed on to `to` one at a time. Empty, or what
// went wrong (on which side: "the reference's worker" or the receiving worker's answer).
struct set_transfer {
  std::string error;
  answer failed;        // the receiving worker's failed answer (error empty when the failure was the reference's)
  bool receiver = false;
};
set_transfer send_timing_sets(const reference_data& ref, session& to, const eval_options& options);
// The buffers of tensors no longer needed go back to payload_pool() for the next payloads.
void recycle(std::vector<tensor>& tensors);
// Loads the problem's Model into a reference worker, its weights from `init_seed`.
answer load_reference_model(session& s, const problem_spec& problem, const eval_options& options, std::uint64_t init_seed);
// The label of a problem's reference worker (its log file's name).
std::string reference_label(const problem_spec& problem);
// started: the candidate's worker, already greeted (session_start::take), or null to start one here.
evaluation evaluate_candidate(const candidate_spec& candidate, const problem_spec& problem, const reference_data& ref,
                              const eval_options& options, const std::string& device,
                              std::unique_ptr<session> started = nullptr, const before_timing& before = {});
// The label of a candidate's worker (its log file's name).
std::string candidate_label(const candidate_spec& candidate, const problem_spec& problem);

// The audit of a problem from reference data already prepared (no further worker runs).
audit_result audit_reference(const std::string& problem_id, const reference_data& ref);

// A timing request on the timing sets the worker keeps (ref.timing_sets of them; ref.symmetric: per
// input, n when it is symmetric n x n, kept so in the fresh inputs).
// check_outputs: send timed outputs back to be compared (the candidate's); the reference's own are not.
// hold: launches held behind a gate (options.hold_launches unless a dispatch-included timing is wanted).
// sketch_seed: nonzero, every kept call's outputs are sketched under it (a candidate's timing).
// The worker keeps its heap mapped after the request when the problem's plan keeps its trials
// (memory to spare: keep_heap below); a lean problem's workers give it back.
std::string timing_request(const eval_options& options, const reference_data& ref, bool check_outputs, bool hold,
                           std::uint64_t sketch_seed = 0);
// The request field that asks a worker to keep its heap mapped after a timed request (its calls'
// outputs land on pages already mapped in the next one: docs/eval.md, "Timing").
std::string keep_heap(const reference_data& ref);
timing_summary parse_timing(simdjson::dom::element t);
std::string iso_now();

}  // namespace headroom::eval
