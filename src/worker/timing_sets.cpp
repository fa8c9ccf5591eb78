// The timing sets a worker keeps (docs/eval.md, "Timing" and "Memory"): the reference's worker
// makes them (its inputs requests with keep_set) and keeps them for the problem; every worker that
// times gets them from it through the parent, one set at a time. Each set in a buffer of its own:
// one set of gigabytes is never copied to make room for the next.
#include "worker/worker.hpp"

#include <fmt/format.h>

namespace headroom::worker {

void worker::keep_set(simdjson::dom::element req, std::vector<std::byte>& sent) {
  auto metas = parse_metas(req["inputs"].get_array().value());
  std::size_t total = 0;
  for (const meta& m : metas) total += m.bytes;
  if (total != sent.size()) throw request_error("the set's sizes do not add up to the payload");
  store_set(static_cast<std::size_t>(req["index"].get_uint64().value()), std::move(metas), std::move(sent));
  reply(R"("ok":true)");
}

void worker::send_set(simdjson::dom::element req) {
  auto k = static_cast<std::size_t>(req["index"].get_uint64().value());
  if (k >= set_bytes_.size()) throw request_error("no such timing set kept");
  std::string metas;
  for (const meta& m : timing_sets_[k]) metas += (metas.empty() ? "" : ",") + meta_json(m);
  reply(fmt::format(R"("ok":true,"tensors":[{}])", metas), set_bytes_[k]);
}

void worker::store_set(std::size_t k, std::vector<meta> metas, std::vector<std::byte>&& bytes) {
  if (k == 0) {
    timing_sets_.clear();
    set_bytes_.clear();
    // The trials are done: their inputs are not run again.
    std::vector<std::byte>().swap(inputs_);
  }
  if (k != set_bytes_.size()) throw request_error("timing sets must arrive in order");
  timing_sets_.push_back(std::move(metas));
  set_bytes_.push_back(std::move(bytes));
}

// On the host nothing is read from the pristine copy but the fresh inputs' values: a second copy
// of every set would only double the sets' memory.
worker::pristine_sets worker::upload_sets() {
  pristine_sets pristine;
  pristine.owned = dev_->is_cuda();
  for (std::size_t k = 0; k < timing_sets_.size(); ++k) {
    std::vector<void*>& tensors = pristine.sets.emplace_back();
    std::size_t at = 0;
    for (const meta& m : timing_sets_[k]) {
      std::byte* kept = set_bytes_[k].data() + at;
      void* p = kept;
      if (pristine.owned) {
        p = dev_->allocate(m.bytes);
        if (m.bytes) dev_->copy_to_device(p, kept, m.bytes);
      }
      tensors.push_back(p);
      at += m.bytes;
    }
  }
  return pristine;
}

void worker::release_sets(pristine_sets& pristine) {
  if (pristine.owned)
    for (auto& v : pristine.sets)
      for (void* p : v) dev_->release(p);
  pristine.sets.clear();
}

}  // namespace headroom::worker
