#pragma once
// The allocators' side of a candidate's call: poisoning of fresh allocations (poison_cpu.hpp, cuda_poison.hpp), the
// log of the blocks handed out during the call (output_memory.hpp) and the device allocations that
// failed. PyTorch's pluggable allocator hands the candidate a tensor at address 0 instead of
// raising, so whatever failed next (an illegal address, usually) is a consequence: a request
// during which an allocation failed is reported as out of memory.
#include <memory>
#include <string>

#include "worker/cuda_poison.hpp"

namespace headroom::worker {

class allocation_watch {
 public:
  // The CUDA allocation hook at `path` (hello, on a CUDA device): the pluggable allocator before
  // torch is imported, or the tracker after (cuda_poison.hpp); whether it loaded.
  bool load_cuda_poison(const std::string& path) {
    poison_ = std::make_unique<cuda_poison>(path);
    return poison_->loaded();
  }
  bool cuda_poison_available() const { return poison_ && poison_->available(); }
  bool cuda_tracker() const { return poison_ && poison_->is_tracker(); }
  // The tracker attached, once CUDA is initialised; false when it could not be.
  bool attach_cuda_tracker() { return poison_ && poison_->attach(); }
  const cuda_poison* cuda() const { return poison_.get(); }

  // Fresh allocations filled with `byte` (-1: off); on a CUDA device the host's are left alone.
  void set_poison(int byte, bool cuda_device);

  // The blocks the allocators hand out between the two are logged.
  void begin_log();
  void end_log();
  // Every block the allocators hand out from now on is logged too, in a log of its own (at load,
  // before the model's file is imported): memory a candidate keeps must be in one
  // (output_memory.hpp).
  void begin_lifetime_log();

  // Failed device allocations are counted from the start of each request.
  void begin_request() { failed_before_ = failed_allocations(); }
  bool allocation_failed() const { return failed_allocations() > failed_before_; }
  std::string failure_text() const;

 private:
  unsigned long long failed_allocations() const { return poison_ ? poison_->failed_allocations() : 0; }

  std::unique_ptr<cuda_poison> poison_;
  unsigned long long failed_before_ = 0;
};

}  // namespace headroom::worker
