// Timing requests and their answers' summaries (timing_request.hpp).
#include "timing_request.hpp"

#include <type_traits>
#include <variant>

#include <fmt/format.h>

namespace headroom::eval {

using record::timing_summary;

timing_limits limits_of(const eval_options& o) {
  return {o.warmup, o.min_samples, o.max_samples, o.max_seconds, o.target_spread, o.check_bytes};
}

std::string timing_request(const timing_limits& o, const reference_data& ref, bool check_outputs, bool hold,
                           std::uint64_t sketch_seed) {
  std::string sym;
  for (std::uint64_t n : ref.symmetric) sym += fmt::format("{}{}", sym.empty() ? "" : ",", n);
  return fmt::format(
      R"("op":"time","set_count":{},"warmup":{},"min_samples":{},"max_samples":{},"max_seconds":{},"target_spread":{},"check_bytes":{},"check_outputs":{},"hold":{},"symmetric":[{}],"sketch_seed":{},{})",
      ref.timing_sets, o.warmup, o.min_samples, o.max_samples, o.max_seconds, o.target_spread, o.check_bytes,
      check_outputs, hold, sym, sketch_seed, keep_heap(ref));
}

std::string keep_heap(const reference_data& ref) { return fmt::format(R"("keep_heap":{})", ref.keep_trials); }

timing_summary parse_timing(simdjson::dom::element t) {
  timing_summary s;
  // The kept statistics, each required, by the list the worker wrote them from.
  for (const record::timing_statistic& st : record::kept_timing_statistics)
    std::visit(
        [&](auto member) {
          if constexpr (std::is_same_v<decltype(member), int timing_summary::*>)
            s.*member = static_cast<int>(t[st.name].get_int64().value());
          else s.*member = t[st.name].get_double().value();
        },
        st.member);
  if (t["host_median_ms"].get_double().get(s.host_median_ms)) s.host_median_ms = 0;
  if (t["tail_median_ms"].get_double().get(s.tail_median_ms)) s.tail_median_ms = 0;
  if (t["held"].get_bool().get(s.held)) s.held = false;
  if (t["host_bound"].get_bool().get(s.host_bound)) s.host_bound = false;
  if (t["device_median_ms"].get_double().get(s.device_median_ms)) s.device_median_ms = 0;
  if (t["device_cost_ms"].get_double().get(s.device_cost_ms)) s.device_cost_ms = 0;
  std::string_view mechanism;
  if (!t["hold_mechanism"].get_string().get(mechanism)) s.hold_mechanism = mechanism;
  return s;
}

}  // namespace headroom::eval
