#pragma once
// Why a request could not be served, as the request loop answers it: a runtime error with the
// text, or tensors too large for the parent's limit on them.
#include <cstdint>
#include <stdexcept>

namespace headroom::worker {

// A request could not be served; the text goes back as a runtime error.
struct request_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Tensors larger than the parent's limit for them (the memory budget, docs/eval.md "Memory"): they
// are not copied out, and the answer says how large they are.
struct too_large : std::runtime_error {
  explicit too_large(std::uint64_t n) : std::runtime_error("tensors larger than the memory budget allows"), bytes(n) {}
  std::uint64_t bytes;
};

}  // namespace headroom::worker
