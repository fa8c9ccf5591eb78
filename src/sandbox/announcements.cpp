#include "headroom/sandbox/announcements.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace headroom::sandbox {
namespace {

double seconds_ms(const timespec& t) {
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
}

// The kernel stamps on CLOCK_REALTIME; the parent's log runs on the steady clock (CLOCK_MONOTONIC).
// A stamp's age, read on the realtime clock now, moves it onto the monotonic clock now.
double steady_ms_of(const timespec& stamp) {
  timespec real{}, mono{};
  ::clock_gettime(CLOCK_REALTIME, &real);
  ::clock_gettime(CLOCK_MONOTONIC, &mono);
  const double age = seconds_ms(real) - seconds_ms(stamp);
  return seconds_ms(mono) - (age > 0 ? age : 0);
}

double steady_now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

announcement_socket make_announcement_socket() {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0)
    throw std::runtime_error(fmt::format("socketpair: {}", std::strerror(errno)));
  const int on = 1;
  if (::setsockopt(fds[0], SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) != 0 ||
      ::fcntl(fds[0], F_SETFL, ::fcntl(fds[0], F_GETFL) | O_NONBLOCK) != 0) {
    const int e = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(fmt::format("the announcement socket's stamps: {}", std::strerror(e)));
  }
  return {fds[0], fds[1]};
}

bool announce(int fd, std::string_view text) {
  if (fd < 0 || text.size() > 256) return false;
  for (;;) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n == static_cast<ssize_t>(text.size())) return true;
    if (n < 0 && errno == EINTR) continue;
    return false;
  }
}

std::vector<announcement> read_announcements(int fd) {
  std::vector<announcement> out;
  if (fd < 0) return out;
  for (;;) {
    char text[512];
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
    iovec io{text, sizeof text};
    msghdr m{};
    m.msg_iov = &io;
    m.msg_iovlen = 1;
    m.msg_control = control;
    m.msg_controllen = sizeof control;
    const ssize_t n = ::recvmsg(fd, &m, MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // nothing waiting (EAGAIN), or the worker's end is closed
    announcement a{std::string(text, static_cast<std::size_t>(n)), steady_now_ms()};
    for (cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
        timespec stamp{};
        std::memcpy(&stamp, CMSG_DATA(c), sizeof stamp);
        a.sent_ms = std::min(a.sent_ms, steady_ms_of(stamp));
      }
    if (m.msg_flags & MSG_TRUNC) a.text += "...";  // longer than any the harness sends
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace headroom::sandbox
