#pragma once
// Typed access to a tensor's bytes, shared by the tensor and the checker: one loop body is compiled
// per dtype (dispatch_dtype), so the hot loops of compare() have no per-element switch.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "headroom/eval/tensor.hpp"

namespace headroom::eval::detail {

// The C++ type whose bytes an element of each dtype has (f16/bf16 as their bit patterns).
template <dtype T>
struct storage;
template <>
struct storage<dtype::f64> {
  using type = double;
};
template <>
struct storage<dtype::f32> {
  using type = float;
};
template <>
struct storage<dtype::f16> {
  using type = std::uint16_t;
};
template <>
struct storage<dtype::bf16> {
  using type = std::uint16_t;
};
template <>
struct storage<dtype::i64> {
  using type = std::int64_t;
};
template <>
struct storage<dtype::i32> {
  using type = std::int32_t;
};
template <>
struct storage<dtype::i16> {
  using type = std::int16_t;
};
template <>
struct storage<dtype::i8> {
  using type = std::int8_t;
};
template <>
struct storage<dtype::u8> {
  using type = std::uint8_t;
};
template <>
struct storage<dtype::boolean> {
  using type = std::uint8_t;
};
template <dtype T>
using storage_t = typename storage<T>::type;

// binary16 -> float through the bits: exact, and cheaper in a loop than the general decoder.
inline float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fu;
  const std::uint32_t mantissa = h & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24 is exact in float
    const float magnitude = float(mantissa) * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

inline float bfloat16_to_float(std::uint16_t b) { return std::bit_cast<float>(std::uint32_t(b) << 16); }

template <dtype T>
inline storage_t<T> load_raw(const std::byte* base, std::size_t i) {
  storage_t<T> v;
  std::memcpy(&v, base + i * sizeof(v), sizeof(v));
  return v;
}

template <dtype T>
inline double load(const std::byte* base, std::size_t i) {
  const auto v = load_raw<T>(base, i);
  if constexpr (T == dtype::f16) {
    return half_to_float(v);
  } else if constexpr (T == dtype::bf16) {
    return bfloat16_to_float(v);
  } else if constexpr (T == dtype::boolean) {
    return v != 0 ? 1.0 : 0.0;
  } else {
    return static_cast<double>(v);
  }
}

// Calls f(std::integral_constant<dtype, T>{}) for the runtime dtype t.
template <class F>
decltype(auto) dispatch_dtype(dtype t, F&& f) {
  switch (t) {
    case dtype::f64:
      return f(std::integral_constant<dtype, dtype::f64>{});
    case dtype::f32:
      return f(std::integral_constant<dtype, dtype::f32>{});
    case dtype::f16:
      return f(std::integral_constant<dtype, dtype::f16>{});
    case dtype::bf16:
      return f(std::integral_constant<dtype, dtype::bf16>{});
    case dtype::i64:
      return f(std::integral_constant<dtype, dtype::i64>{});
    case dtype::i32:
      return f(std::integral_constant<dtype, dtype::i32>{});
    case dtype::i16:
      return f(std::integral_constant<dtype, dtype::i16>{});
    case dtype::i8:
      return f(std::integral_constant<dtype, dtype::i8>{});
    case dtype::u8:
      return f(std::integral_constant<dtype, dtype::u8>{});
    case dtype::boolean:
      return f(std::integral_constant<dtype, dtype::boolean>{});
  }
  return f(std::integral_constant<dtype, dtype::f32>{});  // unreachable for a valid enum value
}

// Stores `value` rounded to the dtype as element i (see store_value in tensor.cpp for the rules).
void store_value(dtype t, double value, std::byte* base, std::size_t i);

}  // namespace headroom::eval::detail
