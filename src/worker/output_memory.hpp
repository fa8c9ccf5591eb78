#pragma once
// Where a call's outputs live (docs/eval.md, "Integrity inside the worker"): every output must be
// memory the harness's allocator handed out during that very call, readable and writable as it
// was handed out. Anything else (a region the candidate mapped itself, read-protected until a fault
// handler fills it, a view of an earlier call's output or of an input) did not come from the call.
#include <cstddef>
#include <string>
#include <vector>

#include "headroom/util/allocation_log.hpp"

namespace headroom::worker {

class cuda_poison;

struct output_extent {
  const void* begin = nullptr;
  std::size_t bytes = 0;  // from the lowest to past the highest element the tensor's view reaches
  bool on_device = false;
};

// Empty when every output is such memory; otherwise what is wrong with the first that is not.
std::string check_output_memory(const std::vector<output_extent>& outputs, const util::allocation_log& host,
                                const cuda_poison* device);

// Whether [begin, begin + bytes) is mapped readable and writable in this process (/proc/self/maps).
bool mapped_read_write(const void* begin, std::size_t bytes);

}  // namespace headroom::worker
