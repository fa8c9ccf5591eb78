#include "headroom/util/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace headroom::util {

terminal_progress::terminal_progress(std::string label)
    : label_(std::move(label)),
      enabled_(isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

terminal_progress::~terminal_progress() {
  if (drawn_) std::fputs("\r\033[K", stderr);
}

progress_fn terminal_progress::fn() {
  return [this](std::uint64_t done, std::uint64_t total) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    const double secs = std::chrono::duration<double>(now - start_).count();
    const double mb = static_cast<double>(done) / 1e6;
    if (total > 0) {
      std::fprintf(stderr, "\r\033[K%s  %3.0f%%  %.0f MB  %.0f MB/s", label_.c_str(),
                   100.0 * static_cast<double>(done) / static_cast<double>(total), mb, secs > 0 ? mb / secs : 0.0);
    } else {
      std::fprintf(stderr, "\r\033[K%s  %.0f MB  %.0f MB/s", label_.c_str(), mb, secs > 0 ? mb / secs : 0.0);
    }
    drawn_ = true;
  };
}

}  // namespace headroom::util
