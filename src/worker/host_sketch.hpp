#pragma once
// The sketch of an output in host memory (fresh_inputs.hpp says what a sketch is): the CPU path's
// half of device::sketch. A timed call's outputs are sketched after every kept call, outside its
// timed window but inside its turn of paired rounds, so its cost sets how many calls a turn holds.
#include <array>
#include <cstddef>
#include <cstdint>

#include "headroom/util/dtype.hpp"
#include "headroom/worker/fresh_inputs.hpp"

namespace headroom::worker {

// sketch_width sums over numel elements of `type` at `data`, element i with the signs of
// sketch_signs(seed, i) (bit k set: -1 in sum k). Chunks of util::chunk_elements are summed on
// several threads and their sums added in chunk order, so the result does not depend on the
// threads.
std::array<double, sketch_width> host_sketch(const void* data, dtype type, std::size_t numel, std::uint64_t seed);

}  // namespace headroom::worker
