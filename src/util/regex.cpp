#include "headroom/util/regex.hpp"

#include <re2/re2.h>

#include <fmt/format.h>

#include "headroom/util/error.hpp"

namespace headroom::util {

regex::regex(std::string_view pattern, std::string_view what) : pattern_(pattern) {
  RE2::Options options;
  options.set_log_errors(false);
  // Kernel names run to tens of kilobytes; a pattern's automaton may use more than the default 8 MB.
  options.set_max_mem(std::int64_t{64} << 20);
  auto re = std::make_shared<const RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!re->ok()) {
    throw input_error(fmt::format("{} '{}' is not a valid regular expression: {}", what, pattern, re->error()));
  }
  re_ = std::move(re);
}

bool regex::search(std::string_view text) const {
  return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *re_);
}

}  // namespace headroom::util
