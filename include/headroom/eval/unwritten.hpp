#pragma once
// Elements a candidate never wrote (docs/eval.md, "Correctness").
#include <cstddef>
#include <cstdint>

#include "headroom/eval/tensor.hpp"

namespace headroom::eval {

// Elements the candidate never wrote: the same call made twice on the same inputs, once with every
// fresh allocation filled with byte `poison_a` and once with `poison_b`; an element whose bytes are
// all `poison_a` in the first output and all `poison_b` in the second was never written. The two
// outputs must have the same dtype and shape (input_error otherwise: compare each with the
// reference first).
std::int64_t count_unwritten(const tensor& with_poison_a, std::byte poison_a, const tensor& with_poison_b,
                             std::byte poison_b, unsigned threads = 0);

}  // namespace headroom::eval
