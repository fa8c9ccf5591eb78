#include "worker/ceilings.hpp"

#include <fmt/format.h>

#include "headroom/util/json.hpp"
#include "worker/call_outputs.hpp"
#include "worker/dlpack_bridge.hpp"
#include "worker/host_transfers.hpp"
#include "worker/loaded_problem.hpp"
#include "worker/parent_channel.hpp"
#include "worker/python_driver.hpp"
#include "worker/python_tensors.hpp"
#include "worker/request_error.hpp"
#include "worker/timing_sets.hpp"

namespace headroom::worker {

void ceilings::flops() {
  if (!p_.problem.model) throw request_error("no model loaded");
  if (p_.sets.empty()) throw request_error("no timing sets kept to count on");
  built_inputs in = p_.bridge.build_inputs(p_.sets.metas(0), p_.sets.bytes(0).data(), false, p_.problem.constants);
  std::optional<long long> n = p_.python.count_flops(p_.problem.model, python_tensors::as_list(in.tuple));
  if (!n) return p_.channel.reply(R"("ok":true,"flops":-1)");
  p_.channel.reply(fmt::format(R"("ok":true,"flops":{})", *n));
}

void ceilings::measure() {
  double bw = p_.dev->copy_bandwidth();
  double mm = p_.python.matmul_rate();
  p_.channel.reply(fmt::format(R"("ok":true,"bandwidth":{},"matmul":{})", bw, mm));
}

void ceilings::dependence(simdjson::dom::element req) {
  const py_ref& model = p_.problem.eager_model ? p_.problem.eager_model : p_.problem.model;
  if (!model) throw request_error("no model loaded");
  if (p_.sets.empty()) throw request_error("no timing sets kept to test on");
  const std::uint64_t seed = req["seed"].get_uint64().value();
  // The kept set's own bytes, not copied: the forward does not change its inputs (the reference's
  // trials checked that), and one output at a time is held, for its sketch.
  const std::vector<meta>& metas = p_.sets.metas(0);
  built_inputs in = p_.bridge.build_inputs(metas, p_.sets.bytes(0).data(), false, p_.problem.constants);
  py_ref base = python_driver::call_forward(model, in.tuple);
  if (!base) throw request_error("the reference's forward failed: " + python_driver::take_plain_error().message);
  std::string base_sketch = p_.outputs.sketch_outputs(base, seed);
  base = py_ref();
  std::string replaced, bytes;
  for (std::size_t m = 0; m < metas.size(); ++m) {
    bytes += fmt::format("{}{}", m ? "," : "", metas[m].bytes);
    std::string sketch = "null";  // the forward failed on other values: nothing is known of this input
    if (py_ref args = p_.python.replaced_input(in.tuple, m, seed + m + 1)) {
      if (py_ref result = python_driver::call_forward(model, args)) sketch = p_.outputs.sketch_outputs(result, seed);
      else python_driver::clear_error();
    }
    replaced += (m ? "," : "") + sketch;
  }
  std::string declared = "null", declared_error;
  std::string_view formula;
  if (!req["formula"].get_string().get(formula)) {
    std::string_view variables = req["variables"].get_string().value(), init = req["init_inputs"].get_string().value();
    if (auto n = p_.python.declared_bytes(model, std::string(init), in.tuple, std::string(variables),
                                          std::string(formula), declared_error))
      declared = std::to_string(*n);
  }
  p_.channel.reply(fmt::format(R"("ok":true,"base":{},"replaced":[{}],"bytes":[{}],"declared":{},"declared_error":{})",
                               base_sketch, replaced, bytes, declared, util::json_string(declared_error)));
}

void ceilings::transfers(simdjson::dom::element req) {
  if (p_.dev->is_cuda()) throw request_error("transfers measures the host: a GPU's floor uses its copy bandwidth");
  const std::uint64_t read = req["read_bytes"].get_uint64().value(), write = req["write_bytes"].get_uint64().value();
  const bool evicted = req["read_evicted"].get_bool().value();
  transfer_times t = measure_transfers(*p_.dev, read, evicted, write);
  p_.channel.reply(fmt::format(R"("ok":true,"read_ms":{},"write_ms":{},"repetitions":{},"threads":{})", t.read_ms,
                               t.write_ms, t.repetitions, t.threads));
}

}  // namespace headroom::worker
