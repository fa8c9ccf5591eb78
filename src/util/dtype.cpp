#include "headroom/util/dtype.hpp"

#include <array>
#include <stdexcept>

namespace headroom {
namespace {

struct dtype_info {
  dtype type;
  std::string_view name;
  std::size_t size;
  bool floating;
};

constexpr std::array<dtype_info, 10> dtypes{{
    {dtype::f64, "float64", 8, true},
    {dtype::f32, "float32", 4, true},
    {dtype::f16, "float16", 2, true},
    {dtype::bf16, "bfloat16", 2, true},
    {dtype::i64, "int64", 8, false},
    {dtype::i32, "int32", 4, false},
    {dtype::i16, "int16", 2, false},
    {dtype::i8, "int8", 1, false},
    {dtype::u8, "uint8", 1, false},
    {dtype::boolean, "bool", 1, false},
}};

const dtype_info& info(dtype t) {
  for (const auto& d : dtypes) {
    if (d.type == t) return d;
  }
  throw std::invalid_argument("unknown dtype value");
}

}  // namespace

std::string_view dtype_name(dtype t) { return info(t).name; }

std::optional<dtype> parse_dtype(std::string_view name) {
  // torch prints dtypes as "torch.float32"; accept that spelling too.
  if (name.starts_with("torch.")) name.remove_prefix(6);
  for (const auto& d : dtypes) {
    if (d.name == name) return d.type;
  }
  return std::nullopt;
}

std::size_t dtype_size(dtype t) { return info(t).size; }

bool is_floating(dtype t) { return info(t).floating; }

}  // namespace headroom
