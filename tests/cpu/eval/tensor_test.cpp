#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "headroom/eval/tensor.hpp"
#include "headroom/util/error.hpp"

namespace {

using namespace headroom::eval;

constexpr dtype all_dtypes[] = {dtype::f64, dtype::f32, dtype::f16, dtype::bf16, dtype::i64,
                                dtype::i32, dtype::i16, dtype::i8,  dtype::u8,   dtype::boolean};

TEST(Dtype, NamesAreTorchsAndParseBack) {
  for (const dtype t : all_dtypes) {
    const auto parsed = parse_dtype(dtype_name(t));
    ASSERT_TRUE(parsed.has_value()) << dtype_name(t);
    EXPECT_EQ(*parsed, t);
  }
  EXPECT_EQ(dtype_name(dtype::bf16), "bfloat16");
  EXPECT_EQ(dtype_name(dtype::f16), "float16");
  EXPECT_EQ(dtype_name(dtype::boolean), "bool");
  EXPECT_EQ(dtype_name(dtype::u8), "uint8");
  EXPECT_EQ(parse_dtype("torch.float32"), dtype::f32);  // as str(tensor.dtype) prints it
  EXPECT_FALSE(parse_dtype("complex64").has_value());
  EXPECT_FALSE(parse_dtype("").has_value());
}

TEST(Dtype, SizesAndFloatingMatchTorch) {
  EXPECT_EQ(dtype_size(dtype::f64), 8u);
  EXPECT_EQ(dtype_size(dtype::f32), 4u);
  EXPECT_EQ(dtype_size(dtype::bf16), 2u);
  EXPECT_EQ(dtype_size(dtype::i16), 2u);
  EXPECT_EQ(dtype_size(dtype::boolean), 1u);
  EXPECT_TRUE(is_floating(dtype::bf16));
  EXPECT_FALSE(is_floating(dtype::i64));
  EXPECT_FALSE(is_floating(dtype::boolean));
}

TEST(Tensor, ScalarShapeHasOneElementAndEmptyDimensionNone) {
  tensor scalar = make_tensor(dtype::f32, {}, {2.5});
  EXPECT_EQ(scalar.numel(), 1);
  EXPECT_EQ(scalar.bytes.size(), 4u);
  EXPECT_EQ(scalar.element(0), 2.5);
  tensor empty = make_tensor(dtype::f32, {0, 7}, {});
  EXPECT_EQ(empty.numel(), 0);
}

TEST(Tensor, MakeTensorConvertsLikeTorch) {
  // float -> int truncates toward zero; bool is nonzero-ness.
  const tensor ints = make_tensor(dtype::i32, {4}, {2.9, -2.9, 1e12, -0.5});
  EXPECT_EQ(ints.element(0), 2);
  EXPECT_EQ(ints.element(1), -2);
  EXPECT_EQ(ints.element(2), double(std::numeric_limits<std::int32_t>::max()));  // clamped, not UB
  EXPECT_EQ(ints.element(3), 0);
  const tensor flags = make_tensor(dtype::boolean, {3}, {0.0, 0.25, -3.0});
  EXPECT_EQ(flags.element(0), 0);
  EXPECT_EQ(flags.element(1), 1);
  EXPECT_EQ(flags.element(2), 1);
  const tensor halves = make_tensor(dtype::f16, {2}, {1.0 / 3.0, 70000.0});
  EXPECT_EQ(halves.element(0), 0x1.554p-2);  // 1/3 to 11 significant bits
  EXPECT_TRUE(std::isinf(halves.element(1)));
}

TEST(Tensor, ValidateRejectsBytesThatDoNotMatchTheShape) {
  tensor t = make_tensor(dtype::f32, {2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_NO_THROW(validate(t, "output 0"));
  t.bytes.pop_back();
  EXPECT_THROW(validate(t, "output 0"), headroom::input_error);
  t = make_tensor(dtype::f32, {2}, {1, 2});
  t.shape = {-2, -1};
  EXPECT_THROW(validate(t, "output 0"), headroom::input_error);
}

// ---- binary16 ----

TEST(Float16, EveryBitPatternRoundTripsThroughDouble) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const double v = float16_value(std::uint16_t(h));
    if (std::isnan(v)) {
      EXPECT_TRUE(std::isnan(float16_value(float16_bits(v)))) << std::hex << h;
    } else {
      EXPECT_EQ(float16_bits(v), h) << std::hex << h;
    }
  }
}

TEST(Float16, RoundsToNearestWithTiesToEven) {
  EXPECT_EQ(float16_value(float16_bits(1.0 + 0x1p-11)), 1.0);  // tie, 1.0 is even
  EXPECT_EQ(float16_value(float16_bits(1.0 + 3 * 0x1p-11)), 1.0 + 0x1p-9);  // tie, goes up to even
  EXPECT_EQ(float16_value(float16_bits(1.0 + 0x1p-11 + 0x1p-40)), 1.0 + 0x1p-10);  // just above the tie
  EXPECT_EQ(float16_value(float16_bits(-(1.0 + 0x1p-11 + 0x1p-40))), -(1.0 + 0x1p-10));
  EXPECT_EQ(float16_value(float16_bits(65519.0)), 65504.0);  // below the tie with 2^16: largest finite
  EXPECT_TRUE(std::isinf(float16_value(float16_bits(65520.0))));  // the tie rounds to "even" 2^16: inf
  EXPECT_EQ(float16_value(float16_bits(0x1p-25)), 0.0);  // half the smallest subnormal: tie to 0
  EXPECT_EQ(float16_value(float16_bits(0x1p-25 + 0x1p-60)), 0x1p-24);
  EXPECT_EQ(float16_value(float16_bits(3 * 0x1p-25)), 2 * 0x1p-24);  // subnormal tie to even
  EXPECT_EQ(float16_value(float16_bits(0x1p-14 - 0x1p-25)), 0x1p-14);  // largest subnormal carries to normal
  EXPECT_EQ(float16_bits(-0.0), 0x8000);
  EXPECT_EQ(float16_bits(1e-300), 0);
  EXPECT_EQ(float16_bits(std::numeric_limits<double>::infinity()), 0x7c00);
  EXPECT_EQ(float16_bits(-std::numeric_limits<double>::infinity()), 0xfc00);
  EXPECT_TRUE(std::isnan(float16_value(float16_bits(std::nan("")))));
}

TEST(Float16, WideningIsExactForSubnormalsAndSpecials) {
  EXPECT_EQ(float16_value(0x0001), 0x1p-24);
  EXPECT_EQ(float16_value(0x03ff), 1023 * 0x1p-24);
  EXPECT_EQ(float16_value(0x0400), 0x1p-14);
  EXPECT_EQ(float16_value(0x3c00), 1.0);
  EXPECT_EQ(float16_value(0x7bff), 65504.0);
  EXPECT_EQ(float16_value(0xc000), -2.0);
  EXPECT_TRUE(std::isinf(float16_value(0x7c00)) && float16_value(0x7c00) > 0);
  EXPECT_TRUE(std::isnan(float16_value(0x7e00)));
  EXPECT_TRUE(std::signbit(float16_value(0x8000)));
}

#ifdef __FLT16_MAX__
// The compiler's own _Float16 (libgcc's conversions) as an independent implementation.
TEST(Float16, AgreesWithTheCompilersFloat16OnRandomAndTieValues) {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const double mine = float16_value(std::uint16_t(h));
    const double theirs = double(std::bit_cast<_Float16>(std::uint16_t(h)));
    if (std::isnan(theirs)) {
      EXPECT_TRUE(std::isnan(mine));
    } else {
      EXPECT_EQ(mine, theirs) << std::hex << h;
    }
  }
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mantissa(-2.0, 2.0);
  std::uniform_int_distribution<int> exponent(-30, 18);
  for (int k = 0; k < 200000; ++k) {
    const double x = std::ldexp(mantissa(rng), exponent(rng));
    ASSERT_EQ(float16_bits(x), std::bit_cast<std::uint16_t>(static_cast<_Float16>(x))) << x;
  }
  // Exact midpoints between neighbours, where only the tie rule decides.
  for (std::uint32_t h = 0; h < 0x7bff; ++h) {
    const double mid = (float16_value(std::uint16_t(h)) + float16_value(std::uint16_t(h + 1))) / 2;
    ASSERT_EQ(float16_bits(mid), std::bit_cast<std::uint16_t>(static_cast<_Float16>(mid))) << std::hex << h;
  }
}
#endif

// ---- bfloat16 ----

TEST(BFloat16, EveryBitPatternRoundTripsThroughDouble) {
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const double v = bfloat16_value(std::uint16_t(b));
    if (std::isnan(v)) {
      EXPECT_TRUE(std::isnan(bfloat16_value(bfloat16_bits(v)))) << std::hex << b;
    } else {
      EXPECT_EQ(bfloat16_bits(v), b) << std::hex << b;
    }
  }
}

TEST(BFloat16, WideningIsExact) {
  EXPECT_EQ(bfloat16_value(0x3f80), 1.0);
  EXPECT_EQ(bfloat16_value(0x3fc0), 1.5);
  EXPECT_EQ(bfloat16_value(0x0001), 0x1p-133);  // smallest subnormal
  EXPECT_EQ(bfloat16_value(0x7f7f), 0x1.fep127);
  EXPECT_TRUE(std::isinf(bfloat16_value(0xff80)) && bfloat16_value(0xff80) < 0);
}

TEST(BFloat16, RoundsToNearestEvenStraightFromDouble) {
  EXPECT_EQ(bfloat16_value(bfloat16_bits(1.0 + 0x1p-8)), 1.0);  // tie, 1.0 is even
  EXPECT_EQ(bfloat16_value(bfloat16_bits(1.0 + 3 * 0x1p-8)), 1.0 + 0x1p-6);  // tie, up to even
  // Just above the tie but within float's rounding of it: through float this would become the tie and
  // go down; directly from double it goes up.
  EXPECT_EQ(bfloat16_value(bfloat16_bits(1.0 + 0x1p-8 + 0x1p-40)), 1.0 + 0x1p-7);
  EXPECT_EQ(bfloat16_value(bfloat16_bits(0x1.fep127 + 0x1p119)), std::numeric_limits<double>::infinity());
  EXPECT_EQ(bfloat16_value(bfloat16_bits(0x1.fep127 + 0x1p118)), 0x1.fep127);
  EXPECT_EQ(bfloat16_value(bfloat16_bits(0x1p-134)), 0.0);  // tie with the smallest subnormal
  EXPECT_EQ(bfloat16_value(bfloat16_bits(3 * 0x1p-134)), 0x1p-132);  // subnormal tie to even
  EXPECT_TRUE(std::isnan(bfloat16_value(bfloat16_bits(-std::nan("")))));
}

TEST(BFloat16, AgreesWithTheFloatBitTrickOnRandomFloats) {
  // For values that are floats, the classic rounding of the float's bits (add 0x7fff plus the lowest
  // kept bit, truncate) is an independent implementation of round-to-nearest-even.
  std::mt19937 rng(11);
  for (int k = 0; k < 500000; ++k) {
    std::uint32_t bits = rng();
    const float f = std::bit_cast<float>(bits);
    if (std::isnan(f)) continue;
    const std::uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16;
    // The trick overflows into inf exactly as IEEE rounding does; it only breaks for NaN.
    ASSERT_EQ(bfloat16_bits(double(f)), std::uint16_t(rounded)) << std::hex << bits;
  }
}

}  // namespace
