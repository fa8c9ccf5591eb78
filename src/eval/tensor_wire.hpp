#pragma once
// Tensors in worker messages: a JSON array of {"dtype","shape","bytes"} in the header, the bytes
// concatenated in the payload in the same order.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include <simdjson.h>

#include "headroom/eval/tensor.hpp"

namespace headroom::eval::wire {

// The JSON array for `tensors`; appends views of their bytes to `parts` (the channel gathers them
// as it writes, so they must outlive the request).
std::string encode(const std::vector<tensor>& tensors, std::vector<std::span<const std::byte>>& parts);
// The same JSON array alone, for a request whose worker already holds the bytes.
std::string describe(const std::vector<tensor>& tensors);
// Reads tensors described by `metas` starting at `offset` in `payload`; advances `offset`.
// Throws std::runtime_error when the sizes do not add up.
std::vector<tensor> decode(simdjson::dom::array metas, const std::vector<std::byte>& payload, std::size_t& offset);
// The same for a payload that holds exactly the tensors of `metas`: the largest takes over the
// payload's buffer (moved to its front when it is not first) instead of being copied.
std::vector<tensor> decode(simdjson::dom::array metas, std::vector<std::byte>&& payload);

}  // namespace headroom::eval::wire
