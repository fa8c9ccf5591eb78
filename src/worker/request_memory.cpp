#include "worker/request_memory.hpp"

#include <malloc.h>

#include <utility>

#include "headroom/worker/device.hpp"

namespace headroom::worker {

// The heap keeps what a request frees (main: no trimming, no mmap), so that the calls within a
// request reuse pages already mapped; between requests it goes back to the kernel, before the
// answer, while the parent waits and nothing else is measured. Kept, the pages of every request's
// temporaries added up: a reference worker held 6.2 GiB for a problem of 0.5 GiB in and 0.5 out.
// A timed request of a problem with memory to spare keeps it (keep_heap): the next one's calls then
// land on pages already mapped, in the reference's worker as in a candidate's.
void request_memory::before_answer(device* dev) {
  if (!std::exchange(keep_heap_, false)) {
    if (dev) dev->release_cached();
    malloc_trim(0);
  }
}

void request_memory::after_answer() {
  if (!release_after_reply_) return;
  // A trial's outputs are not asked for again, and the worker waits, holding them, while the
  // other side works (docs/eval.md, "Memory"); nor are the reference's inputs of a trial. Only
  // after a trial's run: what the parent does next is never a measurement on another worker.
  if (release_inputs_) std::vector<std::byte>().swap(inputs_);
  std::vector<std::byte>().swap(outputs_);
  malloc_trim(0);
  release_after_reply_ = release_inputs_ = false;
}

}  // namespace headroom::worker
