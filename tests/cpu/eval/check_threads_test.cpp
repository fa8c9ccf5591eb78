// The parent's passes over outputs shared among threads (src/eval/parallel.hpp) give the same
// verdict, the same figures to the last bit and the same first mismatches whatever the thread
// count: the elements are cut into fixed chunks whose partial results are combined in index order.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "headroom/util/parallel.hpp"
#include "headroom/eval/check.hpp"
#include "headroom/eval/unwritten.hpp"

namespace {

using namespace headroom::eval;
using headroom::util::chunk_elements;

// Three chunks and an odd tail: every chunk boundary and a partial last chunk are crossed.
constexpr std::size_t odd_size = 3 * chunk_elements + 4097;

std::vector<float> uniform_floats(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(rng);
  return v;
}

tensor f32(const std::vector<float>& v) {
  tensor t;
  t.type = dtype::f32;
  t.shape = {std::int64_t(v.size())};
  t.bytes.resize(v.size() * 4);
  std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
  return t;
}

// What a reordered float32 kernel returns: each element off by a few float ulps.
std::vector<float> reordered(std::vector<float> v, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> ulps(-3, 3);
  for (auto& x : v) x = std::bit_cast<float>(std::bit_cast<std::int32_t>(x) + ulps(rng));
  return v;
}

// Equal to the bit (NaN compares by its bits), not approximately.
void expect_same_double(double a, double b, const char* what) {
  EXPECT_EQ(std::bit_cast<std::uint64_t>(a), std::bit_cast<std::uint64_t>(b)) << what << ": " << a << " vs " << b;
}

void expect_same(const tensor_check& a, const tensor_check& b) {
  EXPECT_EQ(a.pass, b.pass);
  ASSERT_EQ(a.reasons.size(), b.reasons.size());
  for (std::size_t i = 0; i < a.reasons.size(); ++i) {
    EXPECT_EQ(a.reasons[i].code, b.reasons[i].code);
    EXPECT_EQ(a.reasons[i].detail, b.reasons[i].detail);
  }
  expect_same_double(a.normwise_error, b.normwise_error, "normwise_error");
  expect_same_double(a.max_abs_error, b.max_abs_error, "max_abs_error");
  expect_same_double(a.reference_rms, b.reference_rms, "reference_rms");
  EXPECT_EQ(a.elements, b.elements);
  EXPECT_EQ(a.mismatched, b.mismatched);
  EXPECT_EQ(a.nonfinite, b.nonfinite);
  ASSERT_EQ(a.first_mismatches.size(), b.first_mismatches.size());
  for (std::size_t i = 0; i < a.first_mismatches.size(); ++i) {
    EXPECT_EQ(a.first_mismatches[i].index, b.first_mismatches[i].index);
    expect_same_double(a.first_mismatches[i].expected, b.first_mismatches[i].expected, "expected");
    expect_same_double(a.first_mismatches[i].got, b.first_mismatches[i].got, "got");
  }
}

TEST(CompareThreads, AReorderedFloat32OutputGetsTheSameFiguresFromOneThreadAndMany) {
  const auto values = uniform_floats(odd_size, 1);
  const tensor r = f32(values);
  const tensor c = f32(reordered(values, 2));
  const tensor_check one = compare(r, c, 1);
  EXPECT_TRUE(one.pass);
  EXPECT_GT(one.normwise_error, 0);
  for (unsigned threads : {2u, 3u, 7u, 0u}) {
    SCOPED_TRACE(threads);
    expect_same(one, compare(r, c, threads));
  }
}

TEST(CompareThreads, FailuresInSeveralChunksAreCountedOnceAndTheEarliestComeFirst) {
  auto r_values = uniform_floats(odd_size, 3);
  auto c_values = r_values;
  // Late in the output, six elements where the reference is +inf and the candidate is finite (a
  // class mismatch, found by the first pass); earlier, two elements far outside the tolerance
  // (found by the second pass) and one NaN where the reference is finite.
  for (std::size_t k = 0; k < 6; ++k) {
    const std::size_t i = 3 * chunk_elements + 11 * k;
    r_values[i] = std::numeric_limits<float>::infinity();
    c_values[i] = 1.0f;
  }
  c_values[chunk_elements + 5] += 0.5f;
  c_values[2 * chunk_elements - 1] -= 0.75f;
  c_values[2 * chunk_elements + 17] = std::numeric_limits<float>::quiet_NaN();
  const tensor r = f32(r_values);
  const tensor c = f32(c_values);

  const tensor_check one = compare(r, c, 1);
  EXPECT_FALSE(one.pass);
  EXPECT_EQ(one.mismatched, 6 + 2);
  EXPECT_EQ(one.nonfinite, 1);
  ASSERT_EQ(one.first_mismatches.size(), 5u);
  EXPECT_EQ(one.first_mismatches[0].index, std::int64_t(chunk_elements + 5));
  EXPECT_EQ(one.first_mismatches[1].index, std::int64_t(2 * chunk_elements - 1));
  EXPECT_EQ(one.first_mismatches[2].index, std::int64_t(2 * chunk_elements + 17));
  EXPECT_TRUE(std::isnan(one.first_mismatches[2].got));
  EXPECT_EQ(one.first_mismatches[3].index, std::int64_t(3 * chunk_elements));
  EXPECT_EQ(one.first_mismatches[4].index, std::int64_t(3 * chunk_elements + 11));
  for (unsigned threads : {2u, 5u}) {
    SCOPED_TRACE(threads);
    expect_same(one, compare(r, c, threads));
  }
}

TEST(CompareThreads, AnExactDtypeNamesTheSameFirstDifferenceFromOneThreadAndMany) {
  tensor r;
  r.type = dtype::i32;
  r.shape = {std::int64_t(odd_size)};
  r.bytes.resize(odd_size * 4);
  for (std::size_t i = 0; i < odd_size; ++i) {
    const auto v = std::int32_t(i * 2654435761u);
    std::memcpy(r.bytes.data() + i * 4, &v, 4);
  }
  tensor c = r;
  for (std::size_t i : {2 * chunk_elements + 3, chunk_elements + 1, odd_size - 1}) {
    const std::int32_t v = -7;
    std::memcpy(c.bytes.data() + i * 4, &v, 4);
  }
  const tensor_check one = compare(r, c, 1);
  EXPECT_EQ(one.mismatched, 3);
  ASSERT_FALSE(one.reasons.empty());
  EXPECT_NE(one.reasons[0].detail.find("got -7"), std::string::npos) << one.reasons[0].detail;
  EXPECT_EQ(one.first_mismatches.at(0).index, std::int64_t(chunk_elements + 1));
  expect_same(one, compare(r, c, 4));
}

TEST(CountUnwrittenThreads, CountsTheSameUntouchedElementsFromOneThreadAndMany) {
  // Every 1000th element left as the poison the allocator wrote, in both calls.
  const auto values = uniform_floats(odd_size, 4);
  tensor a = f32(values);
  tensor b = a;
  std::int64_t expected = 0;
  for (std::size_t i = 0; i < odd_size; i += 1000, ++expected) {
    std::memset(a.bytes.data() + i * 4, 0xff, 4);
    std::memset(b.bytes.data() + i * 4, 0x7f, 4);
  }
  EXPECT_EQ(count_unwritten(a, std::byte{0xff}, b, std::byte{0x7f}, 1), expected);
  EXPECT_EQ(count_unwritten(a, std::byte{0xff}, b, std::byte{0x7f}, 3), expected);
}

TEST(AllFinite, FindsOneNanInTheLastChunkTail) {
  auto values = uniform_floats(odd_size, 5);
  EXPECT_TRUE(all_finite(f32(values)));
  values[odd_size - 2] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(all_finite(f32(values)));
  tensor ints;
  ints.type = dtype::i64;
  ints.shape = {2};
  ints.bytes.assign(16, std::byte{0xff});
  EXPECT_TRUE(all_finite(ints));
}

}  // namespace
