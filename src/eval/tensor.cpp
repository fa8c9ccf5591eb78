#include "headroom/eval/tensor.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "eval/tensor_access.hpp"
#include "headroom/util/error.hpp"

namespace headroom::eval {
namespace {

// Rounds a double to a binary format of `exponent_bits` and `mantissa_bits` (IEEE layout: sign,
// biased exponent, fraction), to nearest with ties to even. Working on the double's own significand
// avoids the double rounding a detour through float would cause (1 + 2^-8 + 2^-40 must go up in
// bfloat16; through float it becomes the tie 1 + 2^-8 and goes down).
std::uint32_t encode_narrow(double x, int exponent_bits, int mantissa_bits) {
  const auto bits = std::bit_cast<std::uint64_t>(x);
  const std::uint32_t sign = std::uint32_t(bits >> 63) << (exponent_bits + mantissa_bits);
  const std::uint32_t exponent_ones = (1u << exponent_bits) - 1;
  const std::uint32_t infinity = exponent_ones << mantissa_bits;
  const int e = int((bits >> 52) & 0x7ff);
  const std::uint64_t fraction = bits & ((std::uint64_t{1} << 52) - 1);
  if (e == 0x7ff) {
    if (fraction == 0) return sign | infinity;
    // NaN: quiet, keeping the top of the payload.
    return sign | infinity | (1u << (mantissa_bits - 1)) | std::uint32_t(fraction >> (52 - mantissa_bits));
  }
  if (e == 0) return sign;  // zero or a double subnormal: far below half the smallest narrow subnormal
  const int bias = (1 << (exponent_bits - 1)) - 1;
  const int unbiased = e - 1023;
  if (unbiased + bias >= int(exponent_ones)) return sign | infinity;
  const int min_exponent = 1 - bias;
  const int shift = 52 - mantissa_bits + (unbiased < min_exponent ? min_exponent - unbiased : 0);
  if (shift >= 54) return sign;  // below half the smallest subnormal: rounds to zero
  const std::uint64_t significand = (std::uint64_t{1} << 52) | fraction;
  std::uint64_t q = significand >> shift;
  const std::uint64_t rest = significand & ((std::uint64_t{1} << shift) - 1);
  const std::uint64_t half = std::uint64_t{1} << (shift - 1);
  if (rest > half || (rest == half && (q & 1))) ++q;
  // A subnormal result is q itself (a carry into 2^mantissa_bits is the smallest normal); a normal
  // one adds the exponent, and a carry out of the significand bumps the exponent by itself.
  std::uint64_t magnitude = q;
  if (unbiased >= min_exponent) magnitude = (std::uint64_t(unbiased + bias - 1) << mantissa_bits) + q;
  if (magnitude >= infinity) return sign | infinity;
  return sign | std::uint32_t(magnitude);
}

template <class Int>
void store_integer(double value, std::byte* base, std::size_t i) {
  // torch's float -> int conversion truncates toward zero; NaN and out-of-range values are
  // undefined there, here they are 0 and the nearest representable value.
  constexpr double low = double(std::numeric_limits<Int>::min());
  constexpr double high_exclusive =
      std::is_signed_v<Int> ? -low : double(std::numeric_limits<Int>::max()) + 1.0;  // powers of two: exact
  Int v = 0;
  if (std::isnan(value)) {
    v = 0;
  } else if (value >= high_exclusive) {
    v = std::numeric_limits<Int>::max();
  } else if (value <= low - 1.0) {
    v = std::numeric_limits<Int>::min();
  } else {
    v = static_cast<Int>(std::trunc(value));
  }
  std::memcpy(base + i * sizeof(Int), &v, sizeof(Int));
}

}  // namespace

namespace detail {

void store_value(dtype t, double value, std::byte* base, std::size_t i) {
  switch (t) {
    case dtype::f64:
      std::memcpy(base + i * 8, &value, 8);
      return;
    case dtype::f32: {
      const auto v = static_cast<float>(value);  // the hardware conversion rounds to nearest even
      std::memcpy(base + i * 4, &v, 4);
      return;
    }
    case dtype::f16: {
      const std::uint16_t v = float16_bits(value);
      std::memcpy(base + i * 2, &v, 2);
      return;
    }
    case dtype::bf16: {
      const std::uint16_t v = bfloat16_bits(value);
      std::memcpy(base + i * 2, &v, 2);
      return;
    }
    case dtype::i64:
      store_integer<std::int64_t>(value, base, i);
      return;
    case dtype::i32:
      store_integer<std::int32_t>(value, base, i);
      return;
    case dtype::i16:
      store_integer<std::int16_t>(value, base, i);
      return;
    case dtype::i8:
      store_integer<std::int8_t>(value, base, i);
      return;
    case dtype::u8:
      store_integer<std::uint8_t>(value, base, i);
      return;
    case dtype::boolean: {
      const std::uint8_t v = value != 0.0 ? 1 : 0;  // NaN is true, as bool(float('nan')) in Python
      std::memcpy(base + i, &v, 1);
      return;
    }
  }
}

}  // namespace detail

std::int64_t tensor::numel() const {
  std::int64_t n = 1;
  for (const auto d : shape) n *= d;
  return n;
}

double tensor::element(std::size_t i) const {
  if (i >= bytes.size() / dtype_size(type)) throw std::out_of_range("tensor::element index out of range");
  return detail::dispatch_dtype(type, [&](auto t) { return detail::load<decltype(t)::value>(bytes.data(), i); });
}

tensor make_tensor(dtype type, std::vector<std::int64_t> shape, const std::vector<double>& values) {
  tensor t;
  t.type = type;
  t.shape = std::move(shape);
  const std::int64_t n = t.numel();
  if (n < 0 || std::size_t(n) != values.size()) {
    throw std::invalid_argument(fmt::format("make_tensor: {} values for a shape of {} elements", values.size(), n));
  }
  t.bytes.resize(values.size() * dtype_size(type));
  for (std::size_t i = 0; i < values.size(); ++i) detail::store_value(type, values[i], t.bytes.data(), i);
  return t;
}

std::uint16_t float16_bits(double x) { return std::uint16_t(encode_narrow(x, 5, 10)); }

double float16_value(std::uint16_t bits) { return detail::half_to_float(bits); }

std::uint16_t bfloat16_bits(double x) { return std::uint16_t(encode_narrow(x, 8, 7)); }

double bfloat16_value(std::uint16_t bits) { return detail::bfloat16_to_float(bits); }

std::string format_shape(const std::vector<std::int64_t>& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

void validate(const tensor& t, std::string_view what) {
  std::uint64_t n = 1;
  for (const auto d : t.shape) {
    if (d < 0) throw input_error(fmt::format("{}: negative dimension {} in its shape", what, d));
    if (__builtin_mul_overflow(n, std::uint64_t(d), &n)) {
      throw input_error(fmt::format("{}: shape has more elements than fit in 64 bits", what));
    }
  }
  const std::uint64_t size = dtype_size(t.type);
  if (n > std::numeric_limits<std::uint64_t>::max() / size || t.bytes.size() != n * size) {
    throw input_error(fmt::format("{}: {} bytes for {} elements of {} ({} bytes each)", what, t.bytes.size(), n,
                                  dtype_name(t.type), size));
  }
}

std::uint64_t symmetric_size(const tensor& t) {
  if (!is_floating(t.type) || t.shape.size() < 2) return 0;
  const std::int64_t n = t.shape.back();
  if (n < 2 || t.shape[t.shape.size() - 2] != n) return 0;
  const std::size_t square = static_cast<std::size_t>(n * n);
  const std::size_t size = dtype_size(t.type);
  const std::size_t batches = static_cast<std::size_t>(t.numel()) / square;
  for (std::size_t b = 0; b < batches; ++b)
    for (std::int64_t r = 0; r < n; ++r)
      for (std::int64_t c = r + 1; c < n; ++c) {
        const std::byte* x = t.bytes.data() + (b * square + static_cast<std::size_t>(r * n + c)) * size;
        const std::byte* y = t.bytes.data() + (b * square + static_cast<std::size_t>(c * n + r)) * size;
        if (std::memcmp(x, y, size) != 0) return 0;
      }
  return static_cast<std::uint64_t>(n);
}

}  // namespace headroom::eval
