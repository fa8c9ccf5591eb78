#pragma once
// A conversation with one worker: start, hello, requests whose answers are parsed JSON, and the
// payload buffers of those answers. Internal to src/eval. What is asked is in the stages' files:
// reference.hpp, candidate.hpp, timing_request.hpp, timing_sets.hpp.
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <simdjson.h>

#include "headroom/eval/run_state.hpp"
#include "headroom/eval/tensor.hpp"
#include "headroom/record/evaluation.hpp"
#include "headroom/sandbox/worker_process.hpp"
#include "call_alternation.hpp"
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
  bool ok = false;  // the worker answered ok:true
  std::string error;  // ok:false: compile_error, load_error, runtime_error, setup
  std::string kind;  // out_of_memory, illegal_address or empty
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
  session(const run_state& run, const std::string& device, const std::string& label,
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
  // A build beside the evaluations (compile_phase.hpp): its requests pass no gate. A measurement
  // freezes its sandbox instead (freeze_others), where through the gates the measurement would wait
  // for the whole build. Only a sandboxed worker: no measurement freezes another.
  void pass_no_gates() {
    if (process_->isolated()) gated_ = false;
  }

 private:
  // The request itself, once the gates are passed and other sandboxes frozen; `turns`: this side's
  // calls alternate with another worker's (side 0 or 1), or nullptr.
  answer request(const std::string& fields, std::span<const std::span<const std::byte>> payload,
                 std::chrono::seconds timeout, call_alternation* turns, int side);

  std::string device_;
  std::string poison_allocator_;
  std::string alloc_tracker_;
  std::string op_record_path_;
  std::string op_record_;
  std::unique_ptr<worker_process> process_;
  timing_log timing_;
  environment env_;
  std::string capability_;
  bool gated_ = true;
};

// The buffers of tensors no longer needed go back to payload_pool() for the next payloads.
void recycle(std::vector<tensor>& tensors);

}  // namespace headroom::eval
