// Counting the elements a candidate never wrote (docs/eval.md, "Correctness"): the same call made
// twice under two poison bytes.
#include "headroom/eval/unwritten.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "headroom/util/error.hpp"
#include "headroom/util/parallel.hpp"

namespace headroom::eval {
namespace {

// One bit per element (of Word's size): whether it is the poison byte repeated. 64 elements a word,
// so that chunks on different threads never write the same word.
template <class Word>
std::vector<std::uint64_t> poisoned_bits(const std::vector<std::byte>& a, std::byte poison, unsigned threads) {
  Word pattern;
  std::memset(&pattern, int(poison), sizeof(Word));
  const std::size_t n = a.size() / sizeof(Word);
  std::vector<std::uint64_t> bits((n + 63) / 64);
  util::for_each_range(bits.size(), threads, [&](std::size_t begin, std::size_t end, std::size_t) {
    for (std::size_t w = begin; w < end; ++w) {
      std::uint64_t word = 0;
      for (std::size_t i = w * 64, last = std::min(n, i + 64); i < last; ++i) {
        Word x;
        std::memcpy(&x, a.data() + i * sizeof(Word), sizeof(Word));
        word |= std::uint64_t(x == pattern) << (i % 64);
      }
      bits[w] = word;
    }
  });
  return bits;
}

// Elements marked in `marks` that are the poison byte repeated in `b` too.
template <class Word>
std::int64_t count_poisoned(const std::vector<std::uint64_t>& marks, const std::vector<std::byte>& b, std::byte poison,
                            unsigned threads) {
  std::vector<std::uint64_t> second = poisoned_bits<Word>(b, poison, threads);
  std::int64_t n = 0;
  for (std::size_t w = 0; w < second.size(); ++w) n += std::popcount(marks[w] & second[w]);
  return n;
}

}  // namespace

poison_marks mark_poisoned(const tensor& with_poison_a, std::byte poison_a, unsigned threads) {
  validate(with_poison_a, "output of the first call");
  poison_marks m{with_poison_a.type, with_poison_a.shape, {}};
  switch (dtype_size(with_poison_a.type)) {
    case 1:
      m.bits = poisoned_bits<std::uint8_t>(with_poison_a.bytes, poison_a, threads);
      break;
    case 2:
      m.bits = poisoned_bits<std::uint16_t>(with_poison_a.bytes, poison_a, threads);
      break;
    case 4:
      m.bits = poisoned_bits<std::uint32_t>(with_poison_a.bytes, poison_a, threads);
      break;
    default:
      m.bits = poisoned_bits<std::uint64_t>(with_poison_a.bytes, poison_a, threads);
      break;
  }
  return m;
}

std::int64_t count_unwritten(const poison_marks& first, const tensor& with_poison_b, std::byte poison_b,
                             unsigned threads) {
  validate(with_poison_b, "output of the second call");
  if (first.type != with_poison_b.type || first.shape != with_poison_b.shape) {
    throw input_error(fmt::format("the candidate's two calls returned different outputs: {} {} and {} {}",
                                  dtype_name(first.type), format_shape(first.shape), dtype_name(with_poison_b.type),
                                  format_shape(with_poison_b.shape)));
  }
  switch (dtype_size(first.type)) {
    case 1:
      return count_poisoned<std::uint8_t>(first.bits, with_poison_b.bytes, poison_b, threads);
    case 2:
      return count_poisoned<std::uint16_t>(first.bits, with_poison_b.bytes, poison_b, threads);
    case 4:
      return count_poisoned<std::uint32_t>(first.bits, with_poison_b.bytes, poison_b, threads);
    default:
      return count_poisoned<std::uint64_t>(first.bits, with_poison_b.bytes, poison_b, threads);
  }
}

std::int64_t count_unwritten(const tensor& with_poison_a, std::byte poison_a, const tensor& with_poison_b,
                             std::byte poison_b, unsigned threads) {
  return count_unwritten(mark_poisoned(with_poison_a, poison_a, threads), with_poison_b, poison_b, threads);
}

}  // namespace headroom::eval
