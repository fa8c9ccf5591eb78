#include "worker/timing_sets.hpp"

#include <fmt/format.h>

#include "worker/parent_channel.hpp"
#include "worker/request_error.hpp"
#include "worker/request_memory.hpp"

namespace headroom::worker {

void timing_sets::keep(simdjson::dom::element req, std::vector<std::byte>& sent) {
  auto metas = parse_metas(req["inputs"].get_array().value());
  if (total_bytes(metas) != sent.size()) throw request_error("the set's sizes do not add up to the payload");
  store(static_cast<std::size_t>(req["index"].get_uint64().value()), std::move(metas), std::move(sent));
  channel_.reply(R"("ok":true)");
}

void timing_sets::send(simdjson::dom::element req) {
  auto k = static_cast<std::size_t>(req["index"].get_uint64().value());
  if (k >= bytes_.size()) throw request_error("no such timing set kept");
  std::string metas;
  for (const meta& m : metas_[k]) metas += (metas.empty() ? "" : ",") + meta_json(m);
  channel_.reply(fmt::format(R"("ok":true,"tensors":[{}])", metas), bytes_[k]);
}

void timing_sets::store(std::size_t k, std::vector<meta> metas, std::vector<std::byte>&& bytes) {
  if (k == 0) {
    metas_.clear();
    bytes_.clear();
    // The trials are done: their inputs are not run again.
    std::vector<std::byte>().swap(memory_.inputs());
  }
  if (k != bytes_.size()) throw request_error("timing sets must arrive in order");
  metas_.push_back(std::move(metas));
  bytes_.push_back(std::move(bytes));
}

// On the host nothing is read from the pristine copy but the fresh inputs' values: a second copy
// of every set would only double the sets' memory.
timing_sets::pristine timing_sets::upload() {
  pristine p;
  p.owned = dev_->is_cuda();
  for (std::size_t k = 0; k < metas_.size(); ++k) {
    std::vector<void*>& tensors = p.sets.emplace_back();
    std::size_t at = 0;
    for (const meta& m : metas_[k]) {
      std::byte* kept = bytes_[k].data() + at;
      void* ptr = kept;
      if (p.owned) {
        ptr = dev_->allocate(m.bytes);
        if (m.bytes) dev_->copy_to_device(ptr, kept, m.bytes);
      }
      tensors.push_back(ptr);
      at += m.bytes;
    }
  }
  return p;
}

void timing_sets::release(pristine& p) {
  if (p.owned)
    for (auto& v : p.sets)
      for (void* ptr : v) dev_->release(ptr);
  p.sets.clear();
}

}  // namespace headroom::worker
