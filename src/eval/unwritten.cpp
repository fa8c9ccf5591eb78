// Counting the elements a candidate never wrote (docs/eval.md, "Correctness"): the same call made
// twice under two poison bytes.
#include "headroom/eval/unwritten.hpp"

#include <cstring>
#include <numeric>

#include <fmt/format.h>

#include "headroom/util/error.hpp"
#include "headroom/util/parallel.hpp"

namespace headroom::eval {
namespace {

// Elements (of Word's size) that are the poison byte repeated in both outputs.
template <class Word>
std::int64_t count_poisoned(const std::vector<std::byte>& a, std::byte poison_a, const std::vector<std::byte>& b,
                            std::byte poison_b, unsigned threads) {
  Word pattern_a;
  Word pattern_b;
  std::memset(&pattern_a, int(poison_a), sizeof(Word));
  std::memset(&pattern_b, int(poison_b), sizeof(Word));
  const std::size_t n = a.size() / sizeof(Word);
  std::vector<std::int64_t> counts(util::chunk_count(n));
  util::for_each_range(n, threads, [&](std::size_t begin, std::size_t end, std::size_t chunk) {
    std::int64_t unwritten = 0;
    for (std::size_t i = begin; i < end; ++i) {
      Word x;
      Word y;
      std::memcpy(&x, a.data() + i * sizeof(Word), sizeof(Word));
      std::memcpy(&y, b.data() + i * sizeof(Word), sizeof(Word));
      unwritten += (x == pattern_a) & (y == pattern_b);
    }
    counts[chunk] = unwritten;
  });
  return std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
}

}  // namespace

std::int64_t count_unwritten(const tensor& with_poison_a, std::byte poison_a, const tensor& with_poison_b,
                             std::byte poison_b, unsigned threads) {
  validate(with_poison_a, "output of the first call");
  validate(with_poison_b, "output of the second call");
  if (with_poison_a.type != with_poison_b.type || with_poison_a.shape != with_poison_b.shape) {
    throw input_error(fmt::format("the candidate's two calls returned different outputs: {} {} and {} {}",
                                  dtype_name(with_poison_a.type), format_shape(with_poison_a.shape),
                                  dtype_name(with_poison_b.type), format_shape(with_poison_b.shape)));
  }
  const std::size_t size = dtype_size(with_poison_a.type);
  switch (size) {
    case 1: return count_poisoned<std::uint8_t>(with_poison_a.bytes, poison_a, with_poison_b.bytes, poison_b, threads);
    case 2: return count_poisoned<std::uint16_t>(with_poison_a.bytes, poison_a, with_poison_b.bytes, poison_b, threads);
    case 4: return count_poisoned<std::uint32_t>(with_poison_a.bytes, poison_a, with_poison_b.bytes, poison_b, threads);
    default: return count_poisoned<std::uint64_t>(with_poison_a.bytes, poison_a, with_poison_b.bytes, poison_b, threads);
  }
}

}  // namespace headroom::eval
