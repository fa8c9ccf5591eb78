#pragma once
// Output memory a candidate keeps from one call to the next (docs/eval.md, "Outputs the candidate
// keeps"): an out= buffer, two buffers used in turn, a CUDA graph's static output. After each call
// the worker notes every output: a weak handle of its storage (which keeps nothing alive) and the
// memory it spans. Before the next call it fills the memory of every noted output whose storage is
// still alive with a pattern drawn for that call (poison_pattern.hpp), so that an output of the
// next call in that memory is proven rewritten where it no longer holds the pattern, and one left
// as an earlier call wrote it shows as the pattern (stale_output) rather than as right values.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "headroom/worker/device.hpp"
#include "headroom/worker/poison_pattern.hpp"
#include "worker/output_memory.hpp"
#include "worker/python_ref.hpp"

namespace headroom::worker {

class python_tensors;

class kept_outputs {
 public:
  kept_outputs(const std::unique_ptr<device>& dev, const python_tensors& python) : dev_(dev), python_(python) {}
  kept_outputs(const kept_outputs&) = delete;
  kept_outputs& operator=(const kept_outputs&) = delete;

  // Before a call: the memory of every noted output whose storage is alive and still holds it is
  // filled (on the device's stream); integer and boolean outputs with `byte` (the call's poison
  // byte). Notes whose storage is gone are dropped.
  void fill(std::uint8_t byte);
  // The memory filled before this call, in order.
  const std::vector<memory_span>& filled() const { return filled_spans_; }
  // After a call: its outputs (forward's result, and their extents as placed) are noted.
  void note(const py_ref& result, const std::vector<output_extent>& extents);
  // The elements of output `x`, which lies in filled region `k`, that still hold its pattern: not
  // written by the call. -1 where the pattern cannot tell (an integer output; a view of another type).
  long long unwritten(const output_extent& x, std::size_t k) const;
  // The message that the first kept output of a call (placed in `placed`, with `extents`) that still
  // holds its pattern is stale; empty when none does (or none can tell).
  std::string stale(const output_placement& placed, const std::vector<output_extent>& extents) const;
  // A new model: every note dropped.
  void clear();

 private:
  struct noted {
    std::uintptr_t handle = 0;  // the storage's weak handle (python_tensors::storage_handles)
    output_extent extent;
  };
  struct filled_region {
    poison_pattern pattern;
    dtype type = dtype::u8;
  };
  // A candidate that keeps more outputs than this alive has its oldest forgotten (an output in
  // forgotten memory is memory no call returned, refused outside the trials).
  static constexpr std::size_t max_notes = 4096;

  void drop(std::size_t i);

  const std::unique_ptr<device>& dev_;
  const python_tensors& python_;
  std::vector<noted> notes_;
  std::vector<memory_span> filled_spans_;
  std::vector<filled_region> filled_;
  std::mt19937_64 random_{std::random_device{}()};
};

}  // namespace headroom::worker
