#pragma once
// Where a call's outputs live (docs/eval.md, "Integrity inside the worker" and "Outputs the
// candidate keeps"). An output is judged on its values only where the memory is provably the call's
// work:
// - fresh: in a block the harness's allocator handed out during the call (poisoned in the trials);
// - kept: in memory an earlier call returned and the candidate still holds, which the worker filled
//   with its pattern just before this call (kept_outputs.hpp); whatever still holds the pattern
//   afterwards was not rewritten (stale_output);
// - first returned: memory the harness's allocator handed out before this call (at load, or in an
//   earlier call) that no call returned yet, which the worker cannot have filled. Accepted in the
//   trials, whose every value is compared; from then on the worker fills it before each call.
// Anything else fails: an input's memory (output_aliases_input), memory no allocator of the harness
// handed out, a strided view of memory the call did not allocate, memory first returned by a timed
// call, memory that is not mapped readable, writable and private (foreign_output).
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "headroom/util/dtype.hpp"

namespace headroom::worker {

struct output_extent {
  const void* begin = nullptr;
  std::size_t bytes = 0;  // from the lowest to past the highest element the tensor's view reaches
  bool on_device = false;
  bool dense = true;  // its elements cover [begin, begin + bytes) exactly, each byte once
  dtype type = dtype::u8;
};

struct memory_span {
  const void* begin = nullptr;
  std::size_t bytes = 0;
  bool on_device = false;
};

// What the worker knows of the memory once a call has returned.
struct output_sources {
  // In a block the harness's allocators handed out during the call; since the model began loading.
  std::function<bool(const output_extent&)> allocated_during_call;
  std::function<bool(const output_extent&)> allocated_since_load;
  // Host memory mapped readable, writable and private to the process.
  std::function<bool(const output_extent&)> private_read_write;
  std::size_t blocks_during_call = 0;  // for the message
  std::vector<memory_span> inputs;  // the call's inputs (memory the worker owns)
  std::vector<memory_span> filled;  // kept outputs the worker filled with its pattern before the call
  bool first_return_allowed = false;  // the trials
};

enum class output_memory { fresh, kept, first_returned };

struct output_place {
  output_memory memory = output_memory::fresh;
  std::size_t filled = 0;  // kept: the index of its region among output_sources::filled
};

struct output_placement {
  std::vector<output_place> places;  // one per output, when none failed
  std::string code;  // empty, or why the first misplaced output fails: output_aliases_input, foreign_output
  std::string why;
  bool failed() const { return !code.empty(); }
};

output_placement place_outputs(const std::vector<output_extent>& outputs, const output_sources& sources);

// Whether [begin, begin + bytes) is mapped readable, writable and private in this process
// (/proc/self/maps): not filled only when first read (a fault handler behind a protected page) and
// not shared with another process that could write it after the call.
bool mapped_private_read_write(const void* begin, std::size_t bytes);

}  // namespace headroom::worker
