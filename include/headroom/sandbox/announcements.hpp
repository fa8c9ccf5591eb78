#pragma once
// Announcements (docs/eval.md, "Integrity inside the worker"): the worker's word that a timed call
// starts now, or is done now, each one datagram on an AF_UNIX SOCK_SEQPACKET socket whose parent
// end has SO_TIMESTAMPNS set, so that the kernel stamps every datagram with the time it was
// *written*. The parent may read them milliseconds later (a busy machine is late to wake it); the
// stamps still say when the worker sent them. A byte stream (a pipe, SOCK_STREAM) carries no stamp.
#include <string>
#include <string_view>
#include <vector>

namespace headroom::sandbox {

struct announcement {
  std::string text;
  double sent_ms = 0;  // when it was written, on the steady clock (std::chrono::steady_clock), in ms
};

// A connected pair: `parent` stamped and non-blocking, `worker` blocking; both close-on-exec.
// Throws std::runtime_error when the system refuses the socket or the stamps.
struct announcement_socket {
  int parent = -1;
  int worker = -1;
};
announcement_socket make_announcement_socket();

// The worker's side: one datagram of `text` (at most 256 bytes). False when it could not be sent.
bool announce(int fd, std::string_view text);

// The parent's side: every datagram waiting on `fd`, oldest first, each with its send time. A
// datagram without a stamp gets the time it was read (never earlier than it was sent).
std::vector<announcement> read_announcements(int fd);

}  // namespace headroom::sandbox
