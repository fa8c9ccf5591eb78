#include <cstdint>
#include <optional>
#include <string_view>

#include "headroom/trace/kineto.hpp"

namespace headroom::trace {
namespace {

// 36 decimal digits need 128 bits; GCC and Clang both have the type.
__extension__ typedef unsigned __int128 u128;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace

std::optional<time_ns> microseconds_text_to_ns(std::string_view text) {
  text = trim(text);
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') text = trim(text.substr(1, text.size() - 2));
  std::size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';

  // Decimal digits as an exact integer mantissa and a power of ten; 36 digits fit in 128 bits.
  u128 mantissa = 0;
  int digits = 0;
  int scale = 0;  // value = mantissa * 10^scale microseconds
  bool any = false;
  auto take = [&](char c) {
    if (digits == 0 && c == '0') return true;  // leading zeros carry nothing
    if (digits >= 36) return false;
    mantissa = mantissa * 10 + static_cast<unsigned>(c - '0');
    ++digits;
    return true;
  };
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    any = true;
    if (!take(text[i])) return std::nullopt;
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      any = true;
      if (digits >= 36) continue;  // far below a nanosecond
      if (!take(text[i])) return std::nullopt;
      --scale;
    }
  }
  if (!any) return std::nullopt;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) exp_negative = text[i++] == '-';
    int exponent = 0;
    bool exp_any = false;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      exp_any = true;
      if (exponent < 1000) exponent = exponent * 10 + (text[i] - '0');
    }
    if (!exp_any) return std::nullopt;
    scale += exp_negative ? -exponent : exponent;
  }
  if (i != text.size()) return std::nullopt;

  scale += 3;  // microseconds to nanoseconds
  constexpr u128 limit = static_cast<u128>(INT64_MAX);
  if (mantissa == 0) return time_ns{0};
  if (scale >= 0) {
    for (int k = 0; k < scale; ++k) {
      mantissa *= 10;
      if (mantissa > limit) return std::nullopt;
    }
  } else {
    if (scale < -38) return time_ns{0};
    u128 divisor = 1;
    for (int k = 0; k < -scale; ++k) divisor *= 10;
    mantissa = (mantissa + divisor / 2) / divisor;  // half up, in magnitude
    if (mantissa > limit) return std::nullopt;
  }
  const auto magnitude = static_cast<time_ns>(mantissa);
  return negative ? -magnitude : magnitude;
}

}  // namespace headroom::trace
