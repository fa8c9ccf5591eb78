#pragma once
// The pattern the worker writes over output memory a candidate keeps from one call to the next,
// before the next call (docs/eval.md, "Outputs the candidate keeps"). Memory the candidate returned
// once and returns again is only proven rewritten by the call if the worker filled it first: an
// element that still holds the pattern afterwards was not written. Shared by the host's fill and
// count (src/worker/poison_pattern.cpp) and the GPU's (src/cuda/poison_pattern.cu).
//
// For a floating output the pattern is a signalling NaN of its type whose payload is drawn for
// each call: arithmetic never produces one (it produces quiet NaNs), a finite honest element never
// equals it, and the candidate cannot know it before the call. Integer and boolean outputs get the
// call's poison byte (the one fresh allocations get), whose unwritten elements the parent finds
// by comparing the two calls of a trial, as it does for fresh memory.
#include <cstddef>
#include <cstdint>

#include "headroom/util/dtype.hpp"

#if defined(__CUDACC__)
#define HEADROOM_POISON_HD __host__ __device__
#else
#define HEADROOM_POISON_HD
#endif

namespace headroom::worker {

struct poison_pattern {
  std::uint32_t word = 0;  // its low `width` bytes, in memory order (little-endian), repeated
  std::uint8_t width = 1;  // 1, 2 or 4
  // The pattern is a NaN of the output's type: any element that holds it was not written.
  bool detectable = false;
};

// The pattern for an output of `type`: a signalling NaN whose payload comes from `random` for the
// floating types, `byte` repeated for the others.
inline poison_pattern pattern_for(dtype type, std::uint64_t random, std::uint8_t byte) {
  const auto r = static_cast<std::uint32_t>(random ^ (random >> 32));
  switch (type) {
    case dtype::f32:  // exponent all ones, quiet bit (22) clear, payload nonzero
      return {0x7f800000u | (r & 0x003fffffu) | 1u, 4, true};
    case dtype::f64:  // both halves 0x7ffXXXXX: exponent all ones, quiet bit (51) clear, payload nonzero
      return {0x7ff00000u | (r & 0x0007ffffu) | 1u, 4, true};
    case dtype::f16:  // exponent 11111, quiet bit (9) clear
      return {0x7c00u | (r & 0x01ffu) | 1u, 2, true};
    case dtype::bf16:  // exponent all ones, quiet bit (6) clear
      return {0x7f80u | (r & 0x003fu) | 1u, 2, true};
    default:
      return {byte, 1, false};
  }
}

// The pattern as the bytes of one element of `element_bytes` (1, 2, 4 or 8), as an integer read
// from memory (little-endian).
HEADROOM_POISON_HD inline std::uint64_t pattern_element(const poison_pattern& p, std::size_t element_bytes) {
  std::uint64_t v = 0;
  for (std::size_t at = 0; at < element_bytes; at += p.width) {
    const std::uint64_t word = p.width == 4 ? p.word : p.width == 2 ? (p.word & 0xffffu) : (p.word & 0xffu);
    v |= word << (8 * at);
  }
  return v;
}

// The host's fill and count (the CPU path, and tests).
void fill_pattern_host(void* p, std::size_t bytes, const poison_pattern& pattern);
// How many of the `bytes / element_bytes` elements at `p` hold the pattern throughout.
std::size_t count_pattern_host(const void* p, std::size_t bytes, std::size_t element_bytes,
                               const poison_pattern& pattern);

}  // namespace headroom::worker
