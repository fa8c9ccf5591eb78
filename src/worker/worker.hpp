#pragma once
// headroom-worker's one object: the request server of docs/eval.md, "Processes". Its member
// functions live by concern: the requests and their replies (requests.cpp), tensors across the
// DLPack bridge (dlpack_bridge.cpp), where a call's outputs live and their sketches
// (call_outputs.cpp), and the timed calls with their fresh inputs and replays (timing.cpp).
// Internal to src/worker.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "headroom/util/dtype.hpp"
#include "headroom/sandbox/channel.hpp"
#include "headroom/util/json.hpp"
#include "headroom/util/parallel.hpp"
#include "headroom/worker/device.hpp"
#include "headroom/worker/timing_stats.hpp"
#include "worker/op_record_loader.hpp"
#include "worker/poison.hpp"
#include "worker/python.hpp"
#include "worker/record_switches.hpp"

namespace headroom::worker {

struct output_extent;  // output_memory.hpp

using sandbox::prefault;
using sandbox::read_message;
using sandbox::read_result;
using sandbox::read_status;
using sandbox::shared_region;
using sandbox::write_message;
using util::count_threads;
using util::json_string;

struct meta {
  dtype type;
  std::vector<std::int64_t> shape;
  std::size_t bytes;
};

// A request could not be served; the text goes back as a runtime error.
struct request_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Tensors larger than the parent's limit for them (the memory budget, docs/eval.md "Memory"): they
// are not copied out, and the answer says how large they are.
struct too_large : std::runtime_error {
  explicit too_large(std::uint64_t n) : std::runtime_error("tensors larger than the memory budget allows"), bytes(n) {}
  std::uint64_t bytes;
};

// This process's resident memory now and at its peak, from /proc/self/status: "rss 1.2 GiB (anon
// 1.1), peak 2.3 GiB" (the worker's trace, HEADROOM_WORKER_TRACE).
std::string memory_now();
// Page faults this process has taken so far (minor and major).
long page_faults();

// The JSON the parent reads for a shape and a tensor's meta; the metas of a request.
std::string shape_json(const std::vector<std::int64_t>& shape);
std::string meta_json(const meta& m);
std::vector<meta> parse_metas(simdjson::dom::array arr);

class worker {
 public:
  worker(int in_fd, int out_fd, int announce_fd, shared_region in_region, shared_region out_region)
      : in_(in_fd), out_(out_fd), announce_(announce_fd), in_region_(in_region), out_region_(out_region),
        trace_(std::getenv("HEADROOM_WORKER_TRACE") != nullptr) {}

  int serve();

 private:
  // The answer goes out once the request's handler has returned (send_reply): its payload is bytes
  // the worker keeps (inputs_, outputs_, a set's), gathered from `parts` as it is written.
  void reply(const std::string& fields, std::span<const std::span<const std::byte>> parts = {});
  void reply(const std::string& fields, const std::vector<std::byte>& payload);
  // Writes the pending answer, the heap's free pages given back first (docs/eval.md, "Memory").
  void send_reply();

  // A device allocation failed during this request: PyTorch's pluggable allocator hands the
  // candidate a tensor at address 0 instead of raising, so whatever failed next (an illegal address,
  // usually) is a consequence; the request is reported as out of memory.
  unsigned long long failed_allocations() const { return poison_ ? poison_->failed_allocations() : 0; }
  bool allocation_failed() const { return failed_allocations() > failed_before_; }
  std::string allocation_failure_text() const;

  void reply_python_error(const char* error);

  py_ref fn(const char* name);

  // Calls a driver function; a Python exception becomes request_error unless the caller handles it.
  py_ref call(const char* name, std::initializer_list<PyObject*> args);

  void handle(std::string_view op, simdjson::dom::element req, std::vector<std::byte>& payload);

  void hello(simdjson::dom::element req);
  std::string load_op_record(simdjson::dom::element req);
  static std::string names_json(const std::vector<std::string>& names);

  void load(simdjson::dom::element req);

  std::string tampered_json();

  // Outputs of the reference worker's problem: get_inputs() under a seed and a distribution.
  // keep_set k: the tensors are also kept as timing set k (0 starts the sets afresh).
  void inputs(simdjson::dom::element req);
  // A request's limit on the bytes of the tensors it makes (max_bytes; none when absent).
  static std::uint64_t max_bytes(simdjson::dom::element req);

  // The arguments of every forward call that are not tensors, as JSON [[position, value], ...]
  // (driver.make_inputs). False with the Python error set when they do not parse.
  bool set_constants(const std::string& json);

  // Copies tensors (a Python list) out through DLPack; appends bytes and meta JSON (and the metas
  // themselves to `parsed` when given). Tensors of more than `max_bytes` together throw too_large.
  bool read_tensors(PyObject* list, std::vector<std::byte>& payload, std::string& metas,
                    std::vector<meta>* parsed = nullptr,
                    std::uint64_t max_bytes = std::numeric_limits<std::uint64_t>::max());

  // A tensor on the device in memory we own, holding `bytes` (on the host, or on the device when
  // `device_src`). Returns the Python tensor; `data` receives the buffer.
  py_ref make_tensor(const meta& m, const void* src, bool device_src, void** data);

  struct built_inputs {
    py_ref tuple;
    std::vector<void*> data;
  };

  // The forward's arguments: the tensors of `metas` in order, with the problem's constants at their
  // positions (constants_). b.data holds the tensors' buffers only, in the order of `metas`.
  built_inputs build_inputs(const std::vector<meta>& metas, const std::byte* src, bool device_src,
                            const std::vector<const void*>* device_sources = nullptr);

  // The blocks the allocators hand out during a candidate's call are logged (output_memory.hpp).
  void begin_allocation_log();
  void end_allocation_log();

  // Where the outputs of `value` (forward's result) live: empty when every one is memory the
  // allocators handed out during the call just logged; otherwise why not. `not_tensor` receives
  // the message when the result is not tensors at all.
  std::string foreign_outputs(PyObject* value, std::string& not_tensor);
  // The memory each output spans (call_outputs.cpp): empty, or why the outputs could not be inspected.
  std::string output_extents(PyObject* value, std::vector<output_extent>& extents, std::string& not_tensor);

  void set_poison(int byte);

  // kept_inputs: on the inputs this worker holds (its inputs request's, or its previous run's: a
  // candidate's second call on a trial's inputs), not on the payload.
  void run(simdjson::dom::element req, std::vector<std::byte>& sent);

  // Times on the sets this worker keeps (its own inputs requests' with keep_set, or those the parent
  // sent with set requests): the reference is timed several ways on the same sets. eager: the eager
  // model even after compile_baseline replaced it (paired rounds).
  void time(simdjson::dom::element req);
  // The empty call: what the timed path costs without any work (held or not), subtracted from the
  // wall clock and the tail.
  empty_call measure_empty_call(bool held);

  // A call's plan, from the parent: which input set, and the seed of its fresh inputs.
  struct call_plan {
    std::size_t set = 0;
    std::uint64_t seed = 0;
  };
  // A question to the parent within a request; its answer, parsed into `parser`.
  simdjson::dom::element ask_parent(simdjson::dom::parser& parser, const char* what, int call);
  call_plan ask_call(int call, std::size_t sets);

  // The timing sets (timing_sets.cpp): kept as they arrive, one buffer each, from the parent (set
  // k) or this worker's own inputs requests (keep_set); given to the parent to pass on (get_set).
  void keep_set(simdjson::dom::element req, std::vector<std::byte>& sent);
  void send_set(simdjson::dom::element req);
  void store_set(std::size_t k, std::vector<meta> metas, std::vector<std::byte>&& bytes);
  // The kept timing sets' pristine copies on the device; each call makes its fresh inputs from one.
  // On the host the kept bytes are that copy already.
  struct pristine_sets {
    std::vector<std::vector<void*>> sets;
    bool owned = false;  // allocated on the device (released with release_sets)
    std::vector<void*>& operator[](std::size_t k) { return sets[k]; }
  };
  pristine_sets upload_sets();
  void release_sets(pristine_sets& pristine);

  // A call's inputs: every floating tensor of the pristine set perturbed under the call's seed
  // (fresh_inputs.hpp), every other tensor copied as it is.
  built_inputs fresh_inputs(const std::vector<meta>& set, const std::vector<void*>& pristine, std::uint64_t seed,
                            const std::vector<std::uint64_t>& symmetric);

  // The sketches of a result's outputs, as JSON: one array of sketch_width numbers per output (null
  // for a value that is not finite).
  std::string sketch_outputs(PyObject* result, std::uint64_t seed);
  // Evicts a result's outputs from the caches (device::evict): whatever the worker did with them
  // after the call (a sketch read on many cores, a copy) leaves nothing for the next call.
  void evict_outputs(PyObject* result);

  // forward's result as a Python list of its outputs.
  py_ref result_list(PyObject* result);
  bool read_result_tensors(PyObject* result, std::vector<std::byte>& payload, std::string& metas);

  void compile_baseline();

  // The reference's side of the check of timed calls (docs/eval.md, "Integrity inside the worker"):
  // calls of a candidate's timing run again here, on the same fresh inputs (the same sets, kept from
  // this worker's own timing, and the same seeds), with the eager model; for each, the sketch of
  // the outputs, and for those asked whole, the outputs themselves.
  void replay(simdjson::dom::element req);

  // On the first kept timing set.
  void flops();

  void ceilings();

  int in_, out_;
  int announce_;  // each timed call's start and end, one stamped datagram each (announcements.hpp)
  shared_region in_region_, out_region_;  // big payloads each way (fd -1: files in /dev/shm)
  bool trace_;
  std::string nonce_;
  std::unique_ptr<device> dev_;
  std::unique_ptr<cuda_poison> poison_;
  op_record op_record_;  // the C++ operator record, when its library loaded and saw this torch
  unsigned long long failed_before_ = 0;
  std::map<std::string, py_ref, std::less<>> functions_;
  py_ref module_, model_, snapshot_;
  py_ref eager_model_;  // the reference's eager model once compile_baseline replaced model_ (replays)
  std::vector<std::vector<meta>> timing_sets_;  // the metas of the kept timing sets, one per set
  py_ref constants_;                      // [(position, value)]: the forward's non-tensor arguments
  std::vector<std::byte> inputs_;         // the last inputs request's tensors, or the last run's inputs
  std::vector<std::vector<std::byte>> set_bytes_;  // the kept timing sets' bytes, one buffer per set
  std::vector<std::byte> outputs_;        // the last answer's output tensors
  std::vector<std::byte> spare_;          // a payload buffer to read the next request into
  int calls_ = 0;
  int time_requests_ = 0;
  bool check_memory_ = false;  // the outputs' memory is checked (a candidate's worker)
  struct pending_reply {
    std::string header;
    std::vector<std::span<const std::byte>> parts;
  };
  std::optional<pending_reply> pending_;  // the answer send_reply writes
  bool release_after_reply_ = false;      // a trial's run lets its outputs go once answered
  bool release_inputs_ = false;           // and its inputs (the reference's trials)
  bool lean_ = false;  // the load asked to keep no payload buffer from one request to the next
  bool keep_heap_ = false;  // a timed request asked to keep the heap mapped for the next one
};

}  // namespace headroom::worker
