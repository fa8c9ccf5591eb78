#pragma once
// The memory a worker keeps from one request to the next (docs/eval.md, "Memory"): the payload
// buffers (the last inputs, the last answer's outputs, a buffer to read the next request into) and
// when they, and the heap's free pages, go back.
#include <cstddef>
#include <vector>

namespace headroom::worker {

class device;

class request_memory {
 public:
  // The last inputs request's tensors, or the last run's inputs; the last answer's output tensors;
  // a payload buffer to read the next request into.
  std::vector<std::byte>& inputs() { return inputs_; }
  std::vector<std::byte>& outputs() { return outputs_; }
  std::vector<std::byte>& spare() { return spare_; }

  // Lean: the load asked to keep no payload buffer from one request to the next.
  bool lean() const { return lean_; }
  void set_lean(bool lean) { lean_ = lean; }
  // A timed request asks to keep the heap mapped for the next one.
  void keep_heap(bool keep) { keep_heap_ = keep; }
  // A trial's run lets its outputs go once answered, and its inputs too when `inputs` (the
  // reference's trials); a lean worker's always.
  void release_after_answer(bool inputs) {
    release_inputs_ = inputs;
    release_after_reply_ = release_inputs_ || lean_;
  }

  // Around the answer's write: the heap's free pages given back first (unless kept), and what a
  // trial asked to let go after.
  void before_answer(device* dev);
  void after_answer();

 private:
  std::vector<std::byte> inputs_;
  std::vector<std::byte> outputs_;
  std::vector<std::byte> spare_;
  bool lean_ = false;
  bool keep_heap_ = false;
  bool release_after_reply_ = false;
  bool release_inputs_ = false;
};

}  // namespace headroom::worker
