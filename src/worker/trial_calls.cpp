#include "worker/trial_calls.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "headroom/util/json.hpp"
#include "headroom/util/parallel.hpp"
#include "worker/allocation_watch.hpp"
#include "worker/call_outputs.hpp"
#include "worker/dlpack_bridge.hpp"
#include "worker/error_replies.hpp"
#include "worker/kept_outputs.hpp"
#include "worker/loaded_problem.hpp"
#include "worker/parent_channel.hpp"
#include "worker/python_driver.hpp"
#include "worker/python_record_switches.hpp"
#include "worker/python_tensors.hpp"
#include "worker/request_error.hpp"
#include "worker/request_memory.hpp"
#include "worker/timing_sets.hpp"

namespace headroom::worker {
namespace {

using util::json_string;

// A request's limit on the bytes of the tensors it makes (max_bytes; none when absent).
std::uint64_t max_bytes(simdjson::dom::element req) {
  std::uint64_t limit = 0;
  if (req["max_bytes"].get_uint64().get(limit)) return std::numeric_limits<std::uint64_t>::max();
  return limit;
}

std::string names_json(const std::vector<std::string>& names) {
  std::string s = "[";
  for (std::size_t i = 0; i < names.size(); ++i) s += (i ? "," : "") + json_string(names[i]);
  return s + "]";
}

}  // namespace

void trial_calls::inputs(simdjson::dom::element req) {
  const std::int64_t seed = req["seed"].get_int64().value();
  const std::int64_t distribution = req["distribution"].get_int64().value();
  python_driver::made_inputs made;
  bool ok = false;
  {
    util::phase_trace p("worker: get_inputs");
    ok = p_.python.make_inputs(p_.problem.module, seed, distribution, made);
  }
  if (!ok) return p_.errors.python("runtime_error");
  // Parsed back from the JSON the candidate's worker gets: both call forward with the same values
  // (a tuple arrives as a list on either side).
  py_ref constants = p_.python.parse_constants(made.constants);
  if (!constants) return p_.errors.python("runtime_error");
  p_.problem.constants = constants;
  util::phase_trace p("worker: inputs to host");
  // Kept for the reference's forward on them ("kept_inputs"): the parent need not send back
  // what it was just sent, gigabytes for some problems.
  std::vector<std::byte>& kept = p_.memory.inputs();
  kept.clear();
  std::string metas;
  std::vector<meta> made_metas;
  if (!p_.bridge.read_tensors(made.tensors, kept, metas, &made_metas, max_bytes(req)))
    return p_.errors.python("runtime_error");
  const std::span<const std::byte> part(kept);
  p_.channel.reply(fmt::format(R"("ok":true,"tensors":[{}],"constants":{})", metas, json_string(made.constants)),
                   std::span(&part, 1));
  std::int64_t keep = -1;
  if (!req["keep_set"].get_int64().get(keep) && keep >= 0) {
    std::vector<std::byte> bytes = std::move(kept);  // the reply's payload: the same buffer
    p_.sets.store(static_cast<std::size_t>(keep), std::move(made_metas), std::move(bytes));
  }
}

const std::vector<std::byte>& trial_calls::take_inputs(simdjson::dom::element req, std::vector<std::byte>& sent) {
  bool kept = false;
  if (req["kept_inputs"].get_bool().get(kept)) kept = false;
  if (!kept) {
    p_.memory.inputs().swap(sent);  // the earlier inputs' buffer goes back to be read into
    if (p_.memory.lean()) std::vector<std::byte>().swap(sent);  // or, lean, goes now, before the call's own
  }
  return p_.memory.inputs();
}

void trial_calls::run(simdjson::dom::element req, std::vector<std::byte>& sent) {
  if (!p_.problem.model) throw request_error("no model loaded");
  auto metas = parse_metas(req["inputs"].get_array().value());
  const std::vector<std::byte>& payload = take_inputs(req, sent);
  if (total_bytes(metas) != payload.size()) throw request_error("the inputs' sizes do not add up to the payload");
  int poison = static_cast<int>(req["poison"].get_int64().value());
  bool record_ops = req["record_ops"].get_bool().value();
  bool release_inputs = false;
  if (req["release"].get_bool().get(release_inputs)) release_inputs = false;
  p_.memory.release_after_answer(release_inputs);
  phase trace(std::in_place, "worker: inputs to the device");
  built_inputs in = p_.bridge.build_inputs(metas, payload.data(), false, p_.problem.constants);
  trace.reset();
  // The memory of outputs earlier calls returned and the candidate keeps, filled before this call
  // (kept_outputs.hpp); integer outputs there get this call's poison byte, as fresh memory does.
  if (p_.problem.check_memory) p_.kept.fill(static_cast<std::uint8_t>(poison));
  made_call made;
  if (!call(in, poison, record_ops, trace, made)) return;
  trace.emplace("worker: inputs unmodified?");
  answer(req, made, mutated(metas, in, payload), call_outputs::input_spans(in.data, metas, p_.dev->is_cuda()), trace);
}

bool trial_calls::call(const built_inputs& in, int poison, bool record_ops, phase& trace, made_call& made) {
  py_ref args_list = python_tensors::as_list(in.tuple);
  trace.emplace("worker: device done before forward");
  p_.dev->synchronize();
  trace.emplace("worker: forward returned");
  int threads_before = util::count_threads();
  // The C++ record, where there is one, around the call (the Python record otherwise, inside it).
  bool cpp_record = record_ops && p_.record.available();
  if (cpp_record && !p_.record.arm()) throw request_error("the operator record could not be armed");
  const bool cuda = p_.dev->is_cuda();
  p_.allocations.set_poison(poison, cuda);
  p_.allocations.begin_log();
  made.result = p_.python.call_recorded(p_.problem.model, args_list, record_ops && !cpp_record);
  p_.allocations.end_log();
  p_.allocations.set_poison(-1, cuda);
  if (cpp_record) made.recorded = p_.record.disarm();
  if (!made.result) {
    p_.errors.python("runtime_error");
    return false;
  }
  trace.emplace("worker: forward's device work done");
  p_.dev->synchronize();
  if (p_.errors.out_of_memory()) return false;
  trace.reset();
  int threads_after = util::count_threads();
  ++calls_;
  // Threads PyTorch starts for itself appear during the first call; a thread still alive after
  // a later call returned is the candidate's, finishing work after the call (docs/eval.md).
  made.threads_added = calls_ > 1 ? std::max(0, threads_after - threads_before) : 0;
  return true;
}

std::string trial_calls::mutated(const std::vector<meta>& metas, const built_inputs& in,
                                 const std::vector<std::byte>& payload) {
  std::string mutated;
  std::size_t at = 0;
  for (std::size_t i = 0; i < metas.size(); ++i) {
    if (!p_.dev->equals_host(in.data[i], payload.data() + at, metas[i].bytes))
      mutated += fmt::format("{}{}", mutated.empty() ? "" : ",", i);
    at += metas[i].bytes;
  }
  return mutated;
}

std::string trial_calls::placement_json(const py_ref& outputs, const std::vector<memory_span>& inputs,
                                        std::vector<output_extent>& extents, bool& failed) {
  std::string not_tensor;
  output_placement placed = p_.outputs.place(outputs, inputs, p_.kept.filled(), true, extents, not_tensor);
  std::string code = placed.code, why = placed.why;
  if (!placed.failed()) {
    why = p_.kept.stale(placed, extents);
    if (!why.empty()) code = "stale_output";
  }
  failed = !code.empty();
  if (failed) return fmt::format(R"("misplaced":{},"why":{})", json_string(code), json_string(why));
  return fmt::format(R"("memory":{})", call_outputs::memory_json(placed));
}

void trial_calls::answer(simdjson::dom::element req, const made_call& made, const std::string& mutated,
                         const std::vector<memory_span>& inputs, phase& trace) {
  py_ref outputs = python_driver::outputs_of(made.result);
  // ops: every operator the call dispatched; outer_ops: the outermost kernels (the reference's
  // side of torch_fallback); each with its operands' sizes (op_record.h). The Python record sees
  // only the latter, so it gives one list twice.
  std::string ops_json = "null", outer_json = "null";
  if (made.recorded) {
    ops_json = names_json(made.recorded->dispatched_sized);
    outer_json = names_json(made.recorded->outer_sized);
  } else if (auto names = python_driver::operators_of(made.result)) {
    ops_json = outer_json = names_json(*names);
  }
  std::vector<std::string> record_off = record_switch_calls();
  for (std::string& r : record_off) r += " called";
  if (made.recorded) record_off.insert(record_off.end(), made.recorded->lost.begin(), made.recorded->lost.end());
  std::string common =
      fmt::format(R"("mutated":[{}],"threads_added":{},"tampered":{},"ops":{},"outer_ops":{},"record_off":{})", mutated,
                  made.threads_added, p_.python.tampered_json(), ops_json, outer_json, names_json(record_off));
  if (auto invalid = python_driver::invalid_outputs(outputs))
    return p_.channel.reply(fmt::format(R"("ok":true,"invalid":{},"outputs":[],{})", json_string(*invalid), common));
  std::vector<output_extent> extents;
  if (p_.problem.check_memory) {
    bool failed = false;
    std::string placed = placement_json(outputs, inputs, extents, failed);
    if (failed) return p_.channel.reply(fmt::format(R"("ok":true,{},"outputs":[],{})", placed, common));
    common += "," + placed;
  }
  std::vector<std::byte>& out_payload = p_.memory.outputs();  // its pages are mapped after the first call
  out_payload.clear();
  std::string out_metas;
  trace.emplace("worker: outputs to host");
  if (!p_.bridge.read_tensors(outputs, out_payload, out_metas, nullptr, max_bytes(req)))
    return p_.errors.python("runtime_error");
  trace.reset();
  p_.channel.reply(fmt::format(R"("ok":true,"outputs":[{}],{})", out_metas, common), out_payload);
  // Whatever of them the candidate keeps is filled before its next call.
  if (p_.problem.check_memory) p_.kept.note(outputs, extents);
}

}  // namespace headroom::worker
