#pragma once
// Fresh inputs for every timed call, and a sketch of every timed output (docs/eval.md, "Integrity
// inside the worker"). The arithmetic both need, shared by the host's implementation
// (src/worker/host_device.cpp) and the GPU's (src/cuda/fresh_inputs.cu), so that a candidate's
// worker and the reference's make the same inputs from the same seed on the same kind of device.
//
// A floating input element is multiplied by a factor in (0.5, 1] drawn from (seed, its index): the
// values are new, so no cache keyed on content or on earlier calls can answer, while the sign, the
// zeros (a triangular or diagonal input, a mask), the domain of a function defined on [0, 1) or on
// the positives and, for an input symmetric in its last two dimensions, the symmetry are kept.
// A sketch is sketch_width sums of an output's elements, each element with a sign drawn from
// (seed, its index): a random projection, whose difference between two outputs estimates the norm
// of theirs, so that outputs can be compared without being moved.
#include <cstdint>

#if defined(__CUDACC__)
#define HEADROOM_HOST_DEVICE __host__ __device__
#else
#define HEADROOM_HOST_DEVICE
#endif

namespace headroom::worker {

inline constexpr int sketch_width = 16;

// splitmix64's finaliser: well-spread 64 bits from any 64.
HEADROOM_HOST_DEVICE inline std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The seed of input `m` of a call seeded `call_seed`.
HEADROOM_HOST_DEVICE inline std::uint64_t input_seed(std::uint64_t call_seed, std::uint64_t m) {
  return mix64(call_seed ^ mix64(m + 1));
}

// The index whose factor element `index` takes: itself, or for an input whose last two dimensions
// are n x n and symmetric, the same one for (i, j) and (j, i).
HEADROOM_HOST_DEVICE inline std::uint64_t factor_index(std::uint64_t index, std::uint64_t symmetric_n) {
  if (symmetric_n == 0) return index;
  std::uint64_t square = symmetric_n * symmetric_n;
  std::uint64_t b = index / square, r = (index / symmetric_n) % symmetric_n, c = index % symmetric_n;
  return b * square + (r < c ? r * symmetric_n + c : c * symmetric_n + r);
}

// The factor in (0.5, 1] of element `index` under `seed`.
HEADROOM_HOST_DEVICE inline double perturb_factor(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t h = mix64(seed ^ mix64(index));
  return 1.0 - 0.5 * static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);
}

// Bit k set: element `index` enters sketch k with the sign -1.
HEADROOM_HOST_DEVICE inline std::uint32_t sketch_signs(std::uint64_t seed, std::uint64_t index) {
  return static_cast<std::uint32_t>(mix64(seed ^ mix64(index)) & 0xffffu);
}

}  // namespace headroom::worker
