// The reference's speed-of-light floor (reference_floor.hpp): the reference's worker says which
// inputs its outputs depend on (and evaluates a problem's declared floor), the parent counts the
// bytes, and the device's time for them makes the floor.
#include "reference_floor.hpp"

#include <vector>

#include <fmt/format.h>

#include "headroom/eval/speed_of_light.hpp"
#include "headroom/util/json.hpp"
#include "timed_calls.hpp"
#include "trial_plan.hpp"

namespace headroom::eval {

namespace {

// An input counts when giving it other values moves a sketch of the reference's outputs by more
// than the check of timed outputs allows (timed_calls.hpp, sketches_agree): a candidate that did
// not read it would fail that check. An input whose replacement made the forward fail, or moved
// nothing, is not counted: the floor only ever counts what is shown to be needed.
std::vector<bool> depended_on(const answer& a, const std::vector<tensor>& output_shapes, std::size_t inputs) {
  std::vector<bool> depends(inputs, false);
  std::vector<sketch> base = parse_sketches(a.doc["base"].get_array().value());
  if (base.empty() || base.size() != output_shapes.size()) return depends;
  std::size_t m = 0;
  const simdjson::dom::array all = a.doc["replaced"].get_array().value();
  for (simdjson::dom::element e : all) {
    if (m >= inputs) break;
    simdjson::dom::array list;
    if (!e.get_array().get(list)) {
      std::vector<sketch> replaced = parse_sketches(list);
      if (!replaced.empty() && replaced.size() != base.size()) depends[m] = true;
      for (std::size_t k = 0; k < replaced.size() && k < base.size() && !depends[m]; ++k) {
        std::string why;
        depends[m] = !sketches_agree(replaced[k], base[k], output_shapes[k].type, why);
      }
    }
    ++m;
  }
  return depends;
}

// The bytes every correct kernel moves, from the reference's worker (ceilings::dependence).
std::optional<floor_bytes> ask_floor_bytes(session& s, const problem_spec& problem, const run_state& run,
                                           reference_data& ref) {
  std::string request = fmt::format(R"("op":"dependence","seed":{})", trial_seed(run.seed, 200));
  if (problem.floor)
    request +=
        fmt::format(R"(,"formula":{},"variables":{},"init_inputs":{})", util::json_string(problem.floor->formula),
                    util::json_string(problem.floor->variables_json), util::json_string(ref.init_inputs));
  answer a = s.ask(request, {}, run.options.run_timeout * 2);
  if (a.failure != worker_failure::none || !a.ok) {
    ref.no_floor = "which inputs the outputs depend on could not be found: " + describe(a);
    return std::nullopt;
  }
  std::vector<std::uint64_t> sizes;
  const simdjson::dom::array listed = a.doc["bytes"].get_array().value();
  for (simdjson::dom::element b : listed) sizes.push_back(b.get_uint64().value());
  std::vector<bool> depends = depended_on(a, ref.output_shapes, sizes.size());
  std::optional<std::uint64_t> declared;
  std::string_view error;
  if (std::uint64_t n = 0; !a.doc["declared"].get_uint64().get(n)) declared = n;
  else if (problem.floor && !a.doc["declared_error"].get_string().get(error))
    ref.floor_basis = fmt::format("{} did not evaluate ({}); ", problem.floor->file.filename().string(), error);
  floor_bytes b = count_floor_bytes(sizes, depends, ref.set_output_bytes, declared);
  ref.floor_basis += b.basis;
  return b;
}

// The reference's worker reads and writes the floor's bytes in a timed call's conditions
// (src/worker/host_transfers.hpp). Empty, or why not.
std::string ask_transfers(session& s, const run_state& run, const reference_data& ref, double& read_ms,
                          double& write_ms) {
  answer t = s.ask(fmt::format(R"("op":"transfers","read_bytes":{},"read_evicted":{},"write_bytes":{})", ref.floor_read,
                               ref.floor_read_evicted, ref.floor_write),
                   {}, run.options.run_timeout * 2);
  if (t.failure != worker_failure::none || !t.ok) return describe(t);
  read_ms = t.doc["read_ms"].get_double().value();
  write_ms = t.doc["write_ms"].get_double().value();
  return {};
}

}  // namespace

double floor_measured_again(const reference_data& ref, const run_state& run) {
  double read_ms = 0, write_ms = 0;
  if (!ref.worker || !ref.speed_of_light_ms || !ask_transfers(*ref.worker, run, ref, read_ms, write_ms).empty())
    return ref.speed_of_light_ms.value_or(0);
  return transfer_floor_ms(read_ms, write_ms);
}

void prepare_floor(session& s, const problem_spec& problem, const run_state& run, const std::string& device,
                   const std::optional<ceilings>& device_ceilings, double flops, reference_data& ref) {
  std::optional<floor_bytes> bytes = ask_floor_bytes(s, problem, run, ref);
  if (!bytes) return;
  if (device != "cpu") {
    if (!device_ceilings) {
      ref.no_floor = "the device's copy bandwidth was not measured";
      return;
    }
    ref.speed_of_light_ms = bandwidth_floor_ms(*bytes, device_ceilings->bandwidth);
    ref.roofline_ms = roofline_ms(static_cast<double>(bytes->read + bytes->write), flops, device_ceilings->bandwidth,
                                  device_ceilings->matmul);
    ref.floor_basis += fmt::format(", over {:.4g} GB/s", device_ceilings->bandwidth / 1e9);
    if (!ref.speed_of_light_ms) ref.no_floor = "the device's copy bandwidth is unknown";
    return;
  }
  // The CPU: this host's least time for these bytes in a timed call's conditions.
  ref.floor_read = bytes->read;
  ref.floor_write = bytes->write;
  ref.floor_read_evicted = !bytes->read_may_be_cached;
  double read_ms = 0, write_ms = 0;
  if (std::string why = ask_transfers(s, run, ref, read_ms, write_ms); !why.empty()) {
    ref.no_floor = "this host's time to move the problem's bytes could not be measured: " + why;
    return;
  }
  ref.speed_of_light_ms = transfer_floor_ms(read_ms, write_ms);
  ref.floor_basis += fmt::format(
      "; read in {:.4g} ms and written in {:.4g} ms at best here{}, the floor {} of the "
      "longer",
      read_ms, write_ms, bytes->read_may_be_cached ? " (read warm)" : "", host_floor_share);
}

void check_floor_against_reference(reference_data& ref) {
  if (!ref.speed_of_light_ms) return;
  std::optional<double> eager, compiled;
  if (ref.eager && ref.eager->samples > 0) eager = ref.eager->score_ms;
  if (ref.compiled && ref.compiled->samples > 0) compiled = ref.compiled->score_ms;
  if (std::string why = floor_contradiction(*ref.speed_of_light_ms, eager, compiled); !why.empty()) {
    ref.no_floor = why + " (" + ref.floor_basis + ")";
    ref.speed_of_light_ms.reset();
  }
}

}  // namespace headroom::eval
