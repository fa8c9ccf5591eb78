#pragma once
// Tensors in worker messages: a JSON array of {"dtype","shape","bytes"} in the header, the bytes
// concatenated in the payload in the same order.
#include <cstddef>
#include <string>
#include <vector>

#include <simdjson.h>

#include "headroom/eval/tensor.hpp"

namespace headroom::eval::wire {

// The JSON array for `tensors`; appends their bytes to `payload`.
std::string encode(const std::vector<tensor>& tensors, std::vector<std::byte>& payload);
// Reads tensors described by `metas` starting at `offset` in `payload`; advances `offset`.
// Throws std::runtime_error when the sizes do not add up.
std::vector<tensor> decode(simdjson::dom::array metas, const std::vector<std::byte>& payload, std::size_t& offset);

}  // namespace headroom::eval::wire
