#pragma once
// The element types of tensors that cross between a worker and the parent: torch's names, sizes,
// and whether a type is floating. Shared by the checker (eval) and the worker.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace headroom {

enum class dtype : std::uint8_t { f64, f32, f16, bf16, i64, i32, i16, i8, u8, boolean };

std::string_view dtype_name(dtype t);  // "float32", "bfloat16", "int64", "bool", ... (torch's names)
std::optional<dtype> parse_dtype(std::string_view name);
std::size_t dtype_size(dtype t);
bool is_floating(dtype t);

}  // namespace headroom
