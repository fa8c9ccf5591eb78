#pragma once
// The timing sets a worker keeps (docs/eval.md, "Timing" and "Memory"): the reference's worker
// makes them (its inputs requests with keep_set) and keeps them for the problem; every worker that
// times gets them from it through the parent, one set at a time. Each set in a buffer of its own:
// one set of gigabytes is never copied to make room for the next.
#include <cstddef>
#include <memory>
#include <vector>

#include <simdjson.h>

#include "headroom/worker/device.hpp"
#include "worker/tensor_meta.hpp"

namespace headroom::worker {

class parent_channel;
class request_memory;

class timing_sets {
 public:
  timing_sets(const std::unique_ptr<device>& dev, parent_channel& channel, request_memory& memory)
      : dev_(dev), channel_(channel), memory_(memory) {}

  // The requests: set k from the parent (set), and set k given to the parent to pass on (get_set).
  void keep(simdjson::dom::element req, std::vector<std::byte>& sent);
  void send(simdjson::dom::element req);
  // Keeps set k (0 starts the sets afresh; they arrive in order).
  void store(std::size_t k, std::vector<meta> metas, std::vector<std::byte>&& bytes);

  std::size_t size() const { return metas_.size(); }
  bool empty() const { return metas_.empty(); }
  const std::vector<meta>& metas(std::size_t k) const { return metas_[k]; }
  const std::vector<std::byte>& bytes(std::size_t k) const { return bytes_[k]; }

  // The kept sets' pristine copies on the device; each call makes its fresh inputs from one. On
  // the host the kept bytes are that copy already.
  struct pristine {
    std::vector<std::vector<void*>> sets;
    bool owned = false;  // allocated on the device (released with release)
    std::vector<void*>& operator[](std::size_t k) { return sets[k]; }
  };
  pristine upload();
  void release(pristine& p);

 private:
  const std::unique_ptr<device>& dev_;
  parent_channel& channel_;
  request_memory& memory_;
  std::vector<std::vector<meta>> metas_;  // one per set
  std::vector<std::vector<std::byte>> bytes_;  // one buffer per set
};

}  // namespace headroom::worker
