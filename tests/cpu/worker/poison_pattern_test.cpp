// The pattern the worker writes over output memory a candidate keeps (worker/poison_pattern.hpp): a
// signalling NaN of each floating type that no arithmetic produces, drawn anew for each call; the
// call's poison byte for the other types; filled and counted element by element.
#include "headroom/worker/poison_pattern.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <vector>

namespace {

using headroom::dtype;
using namespace headroom::worker;

TEST(PoisonPattern, FloatingPatternsAreSignallingNaNsDrawnPerCall) {
  std::set<std::uint32_t> seen;
  for (std::uint64_t r : {0ull, 1ull, 0x123456789abcdefull, ~0ull}) {
    poison_pattern p = pattern_for(dtype::f32, r, 0xff);
    ASSERT_EQ(p.width, 4);
    EXPECT_TRUE(p.detectable);
    float f;
    std::memcpy(&f, &p.word, 4);
    EXPECT_TRUE(std::isnan(f));
    EXPECT_EQ(p.word & 0x00400000u, 0u) << "the quiet bit is clear: arithmetic never makes this NaN";
    std::uint32_t quiet;
    float q = std::numeric_limits<float>::quiet_NaN();
    std::memcpy(&quiet, &q, 4);
    EXPECT_NE(p.word, quiet);
    seen.insert(p.word);

    std::vector<unsigned char> d(8);
    poison_pattern p64 = pattern_for(dtype::f64, r, 0xff);
    fill_pattern_host(d.data(), 8, p64);
    double x;
    std::memcpy(&x, d.data(), 8);
    EXPECT_TRUE(std::isnan(x));
    std::uint64_t bits;
    std::memcpy(&bits, &x, 8);
    EXPECT_EQ(bits & (1ull << 51), 0u);

    for (dtype t : {dtype::f16, dtype::bf16}) {
      poison_pattern h = pattern_for(t, r, 0xff);
      ASSERT_EQ(h.width, 2);
      const std::uint16_t w = static_cast<std::uint16_t>(h.word);
      if (t == dtype::f16) {
        EXPECT_EQ(w & 0x7c00u, 0x7c00u);
        EXPECT_NE(w & 0x03ffu, 0u);
        EXPECT_EQ(w & 0x0200u, 0u);
      } else {
        EXPECT_EQ(w & 0x7f80u, 0x7f80u);
        EXPECT_NE(w & 0x007fu, 0u);
        EXPECT_EQ(w & 0x0040u, 0u);
      }
    }
  }
  EXPECT_GT(seen.size(), 1u) << "the payload comes from the call's random draw";
}

TEST(PoisonPattern, IntegerOutputsGetTheCallsPoisonByte) {
  for (dtype t : {dtype::i64, dtype::i32, dtype::i8, dtype::u8, dtype::boolean}) {
    poison_pattern p = pattern_for(t, 42, 0x7f);
    EXPECT_EQ(p.width, 1);
    EXPECT_EQ(p.word, 0x7fu);
    EXPECT_FALSE(p.detectable);
  }
}

TEST(PoisonPattern, FillAndCountElementByElement) {
  // 1000 float32 elements, an odd offset into the buffer so that the fill starts unaligned to 8.
  std::vector<float> buf(1001, 1.5f);
  poison_pattern p = pattern_for(dtype::f32, 7, 0xff);
  fill_pattern_host(buf.data() + 1, 1000 * 4, p);
  EXPECT_EQ(buf[0], 1.5f);
  EXPECT_EQ(count_pattern_host(buf.data() + 1, 1000 * 4, 4, p), 1000u);
  buf[10] = 2.0f;
  buf[999] = 0.0f;
  EXPECT_EQ(count_pattern_host(buf.data() + 1, 1000 * 4, 4, p), 998u);
  // A NaN the arithmetic made is not the pattern.
  buf[500] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(count_pattern_host(buf.data() + 1, 1000 * 4, 4, p), 997u);

  // float64: both halves must hold the pattern.
  std::vector<double> d(300);
  poison_pattern p64 = pattern_for(dtype::f64, 9, 0xff);
  fill_pattern_host(d.data(), d.size() * 8, p64);
  EXPECT_EQ(count_pattern_host(d.data(), d.size() * 8, 8, p64), 300u);
  std::memset(reinterpret_cast<char*>(&d[3]) + 4, 0, 4);  // half written
  EXPECT_EQ(count_pattern_host(d.data(), d.size() * 8, 8, p64), 299u);

  // bfloat16 and a byte pattern.
  std::vector<std::uint16_t> h(777);
  poison_pattern ph = pattern_for(dtype::bf16, 3, 0xff);
  fill_pattern_host(h.data(), h.size() * 2, ph);
  EXPECT_EQ(count_pattern_host(h.data(), h.size() * 2, 2, ph), 777u);
  std::vector<std::int32_t> n(64, 5);
  poison_pattern pb = pattern_for(dtype::i32, 0, 0x7f);
  fill_pattern_host(n.data(), n.size() * 4, pb);
  EXPECT_EQ(n[17], 0x7f7f7f7f);
  EXPECT_EQ(count_pattern_host(n.data(), n.size() * 4, 4, pb), 64u);
}

TEST(PoisonPattern, LargeFillsSpanChunks) {
  // More elements than one chunk of the worker's threads (util::chunk_elements), not a multiple of it.
  std::vector<float> buf((1u << 19) + 13, 0.0f);
  poison_pattern p = pattern_for(dtype::f32, 11, 0xff);
  fill_pattern_host(buf.data(), buf.size() * 4, p);
  EXPECT_EQ(count_pattern_host(buf.data(), buf.size() * 4, 4, p), buf.size());
}

}  // namespace
