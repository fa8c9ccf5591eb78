#include "worker/ceilings.hpp"

#include <fmt/format.h>

#include "worker/dlpack_bridge.hpp"
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

}  // namespace headroom::worker
