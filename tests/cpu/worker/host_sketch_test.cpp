// The CPU path's output sketch (worker/host_sketch.hpp): the number its definition gives, for every
// element type, to the bit; and an output that differs in one element is told apart.
#include "worker/host_sketch.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "headroom/util/parallel.hpp"

namespace {

using headroom::dtype;
using headroom::worker::host_sketch;
using headroom::worker::sketch_signs;
using headroom::worker::sketch_width;
using sketch = std::array<double, sketch_width>;

// The definition, read plainly: per chunk of util::chunk_elements, element i added to sum k, or
// subtracted where bit k of its signs is set; the chunks' sums added in chunk order.
template <class T, class Widen>
sketch by_definition(const std::vector<T>& x, std::uint64_t seed, Widen widen) {
  sketch total{};
  for (std::size_t begin = 0; begin < x.size(); begin += headroom::util::chunk_elements) {
    sketch part{};
    for (std::size_t i = begin; i < std::min(x.size(), begin + headroom::util::chunk_elements); ++i) {
      const double v = widen(x[i]);
      const std::uint32_t signs = sketch_signs(seed, i);
      for (int k = 0; k < sketch_width; ++k) part[k] += (signs >> k) & 1u ? -v : v;
    }
    for (int k = 0; k < sketch_width; ++k) total[k] += part[k];
  }
  return total;
}

void expect_bitwise_equal(const sketch& a, const sketch& b) {
  for (int k = 0; k < sketch_width; ++k)
    EXPECT_EQ(std::bit_cast<std::uint64_t>(a[k]), std::bit_cast<std::uint64_t>(b[k])) << "sum " << k;
}

// Two and a half chunks: the chunks' sums are combined, the last one partial.
constexpr std::size_t numel = 5 * headroom::util::chunk_elements / 2;
constexpr std::uint64_t seed = 0x5eed5eedULL;

TEST(HostSketch, IsItsDefinitionToTheBitForEveryElementType) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal(0.0, 3.0);
  auto widen = [](auto v) { return static_cast<double>(v); };

  std::vector<double> f64(numel);
  std::vector<float> f32(numel);
  std::vector<_Float16> f16(numel);
  std::vector<std::uint16_t> bf16(numel);
  std::vector<std::int64_t> i64(numel);
  std::vector<std::int8_t> i8(numel);
  std::vector<std::uint8_t> boolean(numel);
  for (std::size_t i = 0; i < numel; ++i) {
    const double v = normal(rng);
    f64[i] = v;
    f32[i] = static_cast<float>(v);
    f16[i] = static_cast<_Float16>(v);
    bf16[i] = static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(static_cast<float>(v)) >> 16);
    i64[i] = static_cast<std::int64_t>(v * 1e12);
    i8[i] = static_cast<std::int8_t>(static_cast<int>(v * 40) % 128);
    boolean[i] = v > 0;
  }
  expect_bitwise_equal(host_sketch(f64.data(), dtype::f64, numel, seed), by_definition(f64, seed, widen));
  expect_bitwise_equal(host_sketch(f32.data(), dtype::f32, numel, seed), by_definition(f32, seed, widen));
  expect_bitwise_equal(host_sketch(f16.data(), dtype::f16, numel, seed), by_definition(f16, seed, widen));
  expect_bitwise_equal(host_sketch(bf16.data(), dtype::bf16, numel, seed),
                       by_definition(bf16, seed, [](std::uint16_t b) {
                         return static_cast<double>(std::bit_cast<float>(std::uint32_t{b} << 16));
                       }));
  expect_bitwise_equal(host_sketch(i64.data(), dtype::i64, numel, seed), by_definition(i64, seed, widen));
  expect_bitwise_equal(host_sketch(i8.data(), dtype::i8, numel, seed), by_definition(i8, seed, widen));
  expect_bitwise_equal(host_sketch(boolean.data(), dtype::boolean, numel, seed), by_definition(boolean, seed, widen));
}

TEST(HostSketch, AnOutputWrongInOneElementOrSignIsToldApart) {
  std::vector<float> x(numel, 0.25f);
  const sketch right = host_sketch(x.data(), dtype::f32, numel, seed);
  x[numel - 3] = 1.25f;  // one element off by one, in the partial last chunk
  const sketch wrong = host_sketch(x.data(), dtype::f32, numel, seed);
  int moved = 0;
  for (int k = 0; k < sketch_width; ++k) moved += std::abs(wrong[k] - right[k]) == 1.0;
  EXPECT_EQ(moved, sketch_width);  // every sum moves by exactly the difference
  x[numel - 3] = 0.25f;
  for (float& v : x) v = -v;  // a sign flipped throughout
  const sketch negated = host_sketch(x.data(), dtype::f32, numel, seed);
  for (int k = 0; k < sketch_width; ++k) EXPECT_EQ(negated[k], -right[k]);
  EXPECT_NE(host_sketch(x.data(), dtype::f32, numel, seed + 1), negated);  // the seed picks the signs
}

TEST(HostSketch, NothingToSketchIsZero) { EXPECT_EQ(host_sketch(nullptr, dtype::f32, 0, seed), sketch{}); }

}  // namespace
