#include "worker/allocation_watch.hpp"

#include <fmt/format.h>

#include "worker/poison_cpu.hpp"

namespace headroom::worker {

void allocation_watch::set_poison(int byte, bool cuda_device) {
  set_cpu_poison(cuda_device ? -1 : byte);
  if (poison_) poison_->set(byte);
}

void allocation_watch::begin_log() {
  cpu_allocations().begin();
  if (poison_) poison_->begin_log();
}

void allocation_watch::end_log() {
  cpu_allocations().end();
  if (poison_) poison_->end_log();
}

void allocation_watch::begin_lifetime_log() {
  cpu_lifetime_allocations().begin();
  if (poison_) poison_->begin_lifetime_log();
}

std::string allocation_watch::failure_text() const {
  return fmt::format("CUDA out of memory: {} device allocation(s) failed during the call",
                     failed_allocations() - failed_before_);
}

}  // namespace headroom::worker
