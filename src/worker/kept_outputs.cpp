#include "worker/kept_outputs.hpp"

#include <optional>

#include <fmt/format.h>

#include "worker/python_tensors.hpp"

namespace headroom::worker {

void kept_outputs::drop(std::size_t i) {
  python_.drop_storage_handle(notes_[i].handle);
  notes_.erase(notes_.begin() + static_cast<std::ptrdiff_t>(i));
}

void kept_outputs::fill(std::uint8_t byte) {
  filled_spans_.clear();
  filled_.clear();
  for (std::size_t i = 0; i < notes_.size();) {
    const output_extent& x = notes_[i].extent;
    // Held while the memory is filled: a storage the candidate lets go of meanwhile stays alive
    // until the fill is done (on a GPU its memory is given back in stream order, after the fill).
    std::optional<python_tensors::held_storage> held = python_.hold_storage(notes_[i].handle);
    const auto at = reinterpret_cast<std::uintptr_t>(x.begin);
    if (!held || at < held->data || at + x.bytes > held->data + held->bytes) {
      drop(i);  // gone, or the storage's memory moved (resized): nothing of it to fill
      continue;
    }
    const poison_pattern pattern = pattern_for(x.type, random_(), byte);
    dev_->fill_pattern(const_cast<void*>(x.begin), x.bytes, pattern);
    filled_spans_.push_back({x.begin, x.bytes, x.on_device});
    filled_.push_back({pattern, x.type});
    ++i;
  }
}

void kept_outputs::note(const py_ref& result, const std::vector<output_extent>& extents) {
  std::vector<std::uintptr_t> handles = python_.storage_handles(result);
  for (std::size_t o = 0; o < handles.size(); ++o) {
    if (!handles[o]) continue;
    if (o >= extents.size() || extents[o].bytes == 0 || !extents[o].dense) {
      python_.drop_storage_handle(handles[o]);  // nothing the fill could prove rewritten
      continue;
    }
    const output_extent& x = extents[o];
    // The same memory noted again: the newer handle names the storage that holds it now.
    for (std::size_t i = 0; i < notes_.size(); ++i) {
      const output_extent& y = notes_[i].extent;
      if (y.begin == x.begin && y.bytes == x.bytes && y.on_device == x.on_device && y.type == x.type) {
        drop(i);
        break;
      }
    }
    if (notes_.size() == max_notes) drop(0);
    notes_.push_back({handles[o], x});
  }
}

long long kept_outputs::unwritten(const output_extent& x, std::size_t k) const {
  if (k >= filled_.size() || !filled_[k].pattern.detectable || filled_[k].type != x.type) return -1;
  return static_cast<long long>(dev_->count_pattern(x.begin, x.bytes, dtype_size(x.type), filled_[k].pattern));
}

std::string kept_outputs::stale(const output_placement& placed, const std::vector<output_extent>& extents) const {
  for (std::size_t i = 0; i < placed.places.size() && i < extents.size(); ++i) {
    if (placed.places[i].memory != output_memory::kept) continue;
    const long long n = unwritten(extents[i], placed.places[i].filled);
    if (n <= 0) continue;
    return fmt::format(
        "output {} ({} bytes at {}) is memory an earlier call returned, which the harness filled with a NaN "
        "pattern just before this call: {} of its {} elements still hold it, so the call did not write them "
        "(an earlier result left in place, or work skipped)",
        i, extents[i].bytes, extents[i].begin, n, extents[i].bytes / dtype_size(extents[i].type));
  }
  return {};
}

void kept_outputs::clear() {
  for (const noted& n : notes_) python_.drop_storage_handle(n.handle);
  notes_.clear();
  filled_spans_.clear();
  filled_.clear();
}

}  // namespace headroom::worker
