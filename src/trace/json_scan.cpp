#include "json_scan.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace headroom::trace::detail {
namespace {

// Index of the closing quote of a string whose opening quote is at data[open], or npos.
std::size_t string_end(const char* data, std::size_t open, std::size_t end) {
  std::size_t p = open + 1;
  for (;;) {
    const void* q = std::memchr(data + p, '"', end - p);
    if (q == nullptr) return static_cast<std::size_t>(-1);
    const std::size_t at = static_cast<std::size_t>(static_cast<const char*>(q) - data);
    // The quote is escaped when an odd run of backslashes precedes it.
    std::size_t slashes = 0;
    while (at - slashes > open + 1 && data[at - slashes - 1] == '\\') ++slashes;
    if ((slashes & 1) == 0) return at;
    p = at + 1;
  }
}

// Next '"', '{', '}', '[' or ']' at or after p. OR-ing 0x20 folds '[' ']' onto '{' '}', so three
// compares cover five characters.
[[maybe_unused]] const char* next_structural(const char* p, const char* e) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i open = _mm_set1_epi8('{');
  const __m128i close = _mm_set1_epi8('}');
  const __m128i fold = _mm_set1_epi8(0x20);
  while (e - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i f = _mm_or_si128(v, fold);
    const __m128i m =
        _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_or_si128(_mm_cmpeq_epi8(f, open), _mm_cmpeq_epi8(f, close)));
    const int mask = _mm_movemask_epi8(m);
    if (mask != 0) return p + __builtin_ctz(static_cast<unsigned>(mask));
    p += 16;
  }
#endif
  for (; p < e; ++p) {
    const char c = *p;
    if (c == '"' || c == '{' || c == '}' || c == '[' || c == ']') return p;
  }
  return e;
}

bool is_scalar_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '-' || c == '+' || c == '.' || (c >= 'A' && c <= 'Z');
}

#if defined(__SSE2__)
std::uint64_t eq_mask(const char* p, char c) {
  const __m128i k = _mm_set1_epi8(c);
  std::uint64_t m = 0;
  for (int i = 0; i < 4; ++i) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
    m |= static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, k)))) << (16 * i);
  }
  return m;
}

// Bit i set: the byte is '{'/'[' (open) or '}'/']' (close); OR-ing 0x20 folds '[' ']' onto '{' '}'.
void bracket_masks(const char* p, std::uint64_t& open, std::uint64_t& close) {
  const __m128i fold = _mm_set1_epi8(0x20), o = _mm_set1_epi8('{'), c = _mm_set1_epi8('}');
  open = close = 0;
  for (int i = 0; i < 4; ++i) {
    const __m128i v = _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i)), fold);
    open |= static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, o)))) << (16 * i);
    close |= static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, c))))
             << (16 * i);
  }
}

std::uint64_t prefix_xor(std::uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

// The end of an object or array, 64 bytes at a time: quotes that no backslash escapes toggle
// "inside a string"; brackets outside strings move the depth. Reads up to 63 bytes past `end`
// (callers keep padding there); bits past `end` are ignored.
scan_result scan_container_blocks(const char* data, std::size_t begin, std::size_t end) {
  std::uint64_t in_string_carry = 0;  // all ones when the previous block ended inside a string
  bool escape_carry = false;  // the previous block ended on an unescaped backslash
  std::int64_t depth = 0;
  for (std::size_t at = begin; at < end; at += 64) {
    const char* p = data + at;
    const std::size_t valid = std::min<std::size_t>(64, end - at);
    const std::uint64_t valid_mask = valid == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << valid) - 1;
    std::uint64_t quotes = eq_mask(p, '"') & valid_mask;
    const std::uint64_t slashes = eq_mask(p, '\\') & valid_mask;
    if (slashes != 0 || escape_carry) {
      // Rare in traces: work out which bytes a backslash escapes, one byte at a time.
      std::uint64_t escaped = 0;
      bool pending = escape_carry;
      for (std::size_t i = 0; i < valid; ++i) {
        if (pending) {
          escaped |= std::uint64_t{1} << i;
          pending = false;
        } else if (p[i] == '\\') {
          pending = true;
        }
      }
      escape_carry = pending;
      quotes &= ~escaped;
    }
    const std::uint64_t in_string = prefix_xor(quotes) ^ in_string_carry;
    in_string_carry = static_cast<std::uint64_t>(static_cast<std::int64_t>(in_string) >> 63);
    std::uint64_t open, close;
    bracket_masks(p, open, close);
    open &= ~in_string & valid_mask;
    close &= ~in_string & valid_mask;
    std::uint64_t brackets = open | close;
    while (brackets != 0) {
      const int i = __builtin_ctzll(brackets);
      const std::uint64_t bit = std::uint64_t{1} << i;
      if (open & bit) {
        ++depth;
      } else if (--depth == 0) {
        return {scan_status::complete, at + static_cast<std::size_t>(i) + 1};
      }
      brackets &= brackets - 1;
    }
  }
  return {scan_status::incomplete, end};
}
#endif

}  // namespace

scan_result scan_value(const char* data, std::size_t begin, std::size_t end) {
  const char c = data[begin];
  if (c == '"') {
    const std::size_t q = string_end(data, begin, end);
    if (q == static_cast<std::size_t>(-1)) return {scan_status::incomplete, end};
    return {scan_status::complete, q + 1};
  }
  if (c != '{' && c != '[') {
    if (!is_scalar_char(c)) return {scan_status::invalid, begin};
    std::size_t p = begin;
    while (p < end && is_scalar_char(data[p])) ++p;
    // A scalar ends at a delimiter; at the end of the data it may go on in the next chunk.
    if (p == end) return {scan_status::incomplete, end};
    return {scan_status::complete, p};
  }
#if defined(__SSE2__)
  return scan_container_blocks(data, begin, end);
#endif
  std::size_t depth = 0;
  const char* p = data + begin;
  const char* e = data + end;
  for (;;) {
    p = next_structural(p, e);
    if (p == e) return {scan_status::incomplete, end};
    switch (*p) {
      case '"': {
        const std::size_t q = string_end(data, static_cast<std::size_t>(p - data), end);
        if (q == static_cast<std::size_t>(-1)) return {scan_status::incomplete, end};
        p = data + q + 1;
        continue;
      }
      case '{':
      case '[':
        ++depth;
        break;
      default:  // '}' or ']'
        if (--depth == 0) return {scan_status::complete, static_cast<std::size_t>(p - data) + 1};
        break;
    }
    ++p;
  }
}

}  // namespace headroom::trace::detail
