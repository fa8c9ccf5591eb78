#pragma once
// Poisoning of fresh host allocations while a candidate runs, and the log of the host blocks handed
// out during a call: the hook on PyTorch's CPU allocator that poison_cpu.cpp defines (its
// posix_memalign). CUDA tensors are poisoned by the allocator cuda_poison.hpp loads.
#include "headroom/util/allocation_log.hpp"

namespace headroom::worker {

// The byte fresh host allocations are filled with; -1 turns it off.
void set_cpu_poison(int byte);
// Host blocks PyTorch's CPU allocator handed out during the current call.
util::allocation_log& cpu_allocations();
// Host blocks it handed out since the log was begun (at load, before the model's file is imported):
// the latest allocation_log::capacity of them.
util::allocation_log& cpu_lifetime_allocations();

}  // namespace headroom::worker
