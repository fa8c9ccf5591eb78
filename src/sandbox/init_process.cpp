#include "init_process.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "mount_tree.hpp"

namespace headroom::sandbox {
namespace {

void report(int fd, init_report::kind_t kind, int status) {
  init_report r{kind, status};
  while (::write(fd, &r, sizeof r) < 0 && errno == EINTR) {}
}

// Every process of the namespace but this one; twice, so a fork that raced the first is caught
// (the kernel restarts a fork that a group signal interrupts, so once is enough in practice).
void signal_all(int sig) {
  ::kill(-1, sig);
  ::kill(-1, sig);
}

void close_from(int first) { ::syscall(SYS_close_range, first, ~0u, 0); }

}  // namespace

void run_init(const policy& p, const identity& who, const std::string& staging, const std::vector<std::string>& program,
              init_channels fds) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // the supervisor killed: the whole sandbox goes with it
  ::prctl(PR_SET_DUMPABLE, 0);  // its descriptors and memory out of the program's reach
  ::sethostname("sandbox", 7);
  if (std::string e = build_root(p, staging); !e.empty()) {
    std::fprintf(stderr, "headroom-sandbox: %s\n", e.c_str());
    report(fds.status, init_report::setup_failed, 0);
    std::_Exit(125);
  }
  sigset_t child;
  sigemptyset(&child);
  sigaddset(&child, SIGCHLD);
  ::sigprocmask(SIG_BLOCK, &child, nullptr);
  int child_fd = ::signalfd(-1, &child, SFD_CLOEXEC | SFD_NONBLOCK);

  pid_t program_pid = ::fork();
  if (program_pid < 0) {
    std::perror("headroom-sandbox: fork");
    report(fds.status, init_report::setup_failed, 0);
    std::_Exit(125);
  }
  if (program_pid == 0) {
    ::sigprocmask(SIG_UNBLOCK, &child, nullptr);
    ::setsid();
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    ::dup2(fds.output, 1);
    ::dup2(fds.output, 2);
    close_from(first_private_fd);
    confine_and_exec(p, who, program);
  }
  // Only the program holds the channel to the parent and the output's write end: their ends close
  // when it (and whatever it started) is gone.
  for (int fd = 3; fd < first_private_fd; ++fd)
    if (fd != fds.control && fd != fds.acknowledge) ::close(fd);
  ::close(fds.output);

  int status = 0;
  bool ended = false;
  while (!ended) {
    pollfd polled[2] = {{child_fd, POLLIN, 0}, {fds.control, POLLIN, 0}};
    int n = ::poll(polled, fds.control >= 0 ? 2 : 1, -1);
    if (n < 0 && errno == EINTR) continue;
    if (polled[0].revents) {
      signalfd_siginfo info;
      while (::read(child_fd, &info, sizeof info) > 0) {}
      for (int ws;;) {
        pid_t r = ::waitpid(-1, &ws, WNOHANG);
        if (r <= 0) break;
        if (r == program_pid) {
          status = ws;
          ended = true;
        }
      }
    }
    if (fds.control >= 0 && (polled[1].revents & (POLLIN | POLLHUP))) {
      char c = 0;
      ssize_t got = ::read(fds.control, &c, 1);
      if (got <= 0) {  // the parent is gone: nothing more will be asked
        ::close(fds.control);
        fds.control = -1;
      } else if (c == 'F' || c == 'T') {
        signal_all(c == 'F' ? SIGSTOP : SIGCONT);
        char ack = c == 'F' ? 'f' : 't';
        while (::write(fds.acknowledge, &ack, 1) < 0 && errno == EINTR) {}
      }
    }
  }
  // Whatever the program started dies with it, stopped or not.
  ::kill(-1, SIGKILL);
  while (::waitpid(-1, nullptr, 0) > 0 || errno == EINTR) {}
  report(fds.status, init_report::program_ended, status);
  char c;
  while (::read(fds.leave, &c, 1) < 0 && errno == EINTR) {}
  std::_Exit(0);
}

}  // namespace headroom::sandbox
