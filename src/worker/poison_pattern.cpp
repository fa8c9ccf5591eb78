// The host's fill and count of the pattern written over outputs a candidate keeps
// (include/headroom/worker/poison_pattern.hpp). Outputs reach gigabytes: both run in chunks on
// the worker's threads.
#include "headroom/worker/poison_pattern.hpp"

#include <cstring>
#include <vector>

#include "headroom/util/parallel.hpp"

namespace headroom::worker {

void fill_pattern_host(void* p, std::size_t bytes, const poison_pattern& pattern) {
  if (!p || bytes == 0) return;
  auto* out = static_cast<unsigned char*>(p);
  if (pattern.width == 1) {
    util::for_each_range(bytes, 0, [&](std::size_t begin, std::size_t end, std::size_t) {
      std::memset(out + begin, static_cast<int>(pattern.word & 0xffu), end - begin);
    });
    return;
  }
  // Words of the pattern's width; a tail shorter than a word (a size no tensor of that type has)
  // gets the word's first bytes.
  const std::size_t words = bytes / pattern.width;
  const std::uint64_t block = pattern_element(pattern, 8);
  util::for_each_range(words, 0, [&](std::size_t begin, std::size_t end, std::size_t) {
    unsigned char* at = out + begin * pattern.width;
    std::size_t n = (end - begin) * pattern.width;
    // Word by word to an 8-byte boundary of the output, then 8 bytes at a time.
    while (n > 0 && reinterpret_cast<std::uintptr_t>(at) % 8 != 0) {
      std::memcpy(at, &pattern.word, pattern.width);
      at += pattern.width;
      n -= pattern.width;
    }
    for (; n >= 8; n -= 8, at += 8) std::memcpy(at, &block, 8);
    for (; n >= pattern.width; n -= pattern.width, at += pattern.width) std::memcpy(at, &pattern.word, pattern.width);
  });
  if (std::size_t tail = bytes % pattern.width) std::memcpy(out + words * pattern.width, &pattern.word, tail);
}

std::size_t count_pattern_host(const void* p, std::size_t bytes, std::size_t element_bytes,
                               const poison_pattern& pattern) {
  if (!p || element_bytes == 0 || element_bytes > 8 || bytes < element_bytes) return 0;
  const auto* in = static_cast<const unsigned char*>(p);
  const std::size_t n = bytes / element_bytes;
  const std::uint64_t want = pattern_element(pattern, element_bytes);
  std::vector<std::size_t> counts(util::chunk_count(n));
  util::for_each_range(n, 0, [&](std::size_t begin, std::size_t end, std::size_t chunk) {
    std::size_t c = 0;
    for (std::size_t i = begin; i < end; ++i) {
      std::uint64_t v = 0;
      std::memcpy(&v, in + i * element_bytes, element_bytes);
      c += v == want;
    }
    counts[chunk] = c;
  });
  std::size_t total = 0;
  for (std::size_t c : counts) total += c;
  return total;
}

}  // namespace headroom::worker
