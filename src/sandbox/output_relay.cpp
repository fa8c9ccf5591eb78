#include "output_relay.hpp"

#include <unistd.h>

#include <cerrno>
#include <charconv>

namespace headroom::sandbox {

namespace {
constexpr std::string_view note_prefix = "\n[headroom-sandbox: ";
}

std::string dropped_note(std::uint64_t dropped, std::uint64_t cap) {
  return std::string(note_prefix) + std::to_string(dropped) + " bytes of output dropped beyond the cap of " +
         std::to_string(cap) + " bytes; the last of them follow]\n";
}

std::uint64_t dropped_from_log(std::string_view log_tail) {
  std::size_t at = log_tail.rfind(note_prefix);
  if (at == std::string_view::npos) return 0;
  std::string_view rest = log_tail.substr(at + note_prefix.size());
  std::uint64_t n = 0;
  std::from_chars(rest.data(), rest.data() + rest.size(), n);
  return n;
}

void output_relay::write_out(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t w = ::write(fd_, bytes.data(), bytes.size());
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;  // the log is gone or full: the output is lost, the program goes on
    bytes.remove_prefix(static_cast<std::size_t>(w));
  }
}

void output_relay::feed(std::string_view bytes) {
  if (written_ < cap_) {
    std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(bytes.size(), cap_ - written_));
    write_out(bytes.substr(0, n));
    written_ += n;
    bytes.remove_prefix(n);
  }
  if (bytes.empty()) return;
  dropped_ += bytes.size();
  if (bytes.size() >= keep_tail) {
    tail_.assign(bytes.substr(bytes.size() - keep_tail));
    tail_start_ = 0;
    return;
  }
  for (char c : bytes) {  // a ring: at most keep_tail bytes, oldest first from tail_start_
    if (tail_.size() < keep_tail) {
      tail_.push_back(c);
    } else {
      tail_[tail_start_] = c;
      tail_start_ = (tail_start_ + 1) % keep_tail;
    }
  }
}

void output_relay::finish() {
  if (dropped_ == 0) return;
  write_out(dropped_note(dropped_, cap_));
  write_out(std::string_view(tail_).substr(tail_start_));
  write_out(std::string_view(tail_).substr(0, tail_start_));
}

}  // namespace headroom::sandbox
