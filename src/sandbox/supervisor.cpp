#include "supervisor.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "copy_tree.hpp"
#include "init_process.hpp"
#include "output_relay.hpp"
#include "proc_file.hpp"

namespace headroom::sandbox {
namespace {

int fail(const std::string& what) {
  std::fprintf(stderr, "headroom-sandbox: %s: %s\n", what.c_str(), std::strerror(errno));
  return 125;
}

bool is_open(int fd) { return ::fcntl(fd, F_GETFD) >= 0; }

// Exits as the program did.
[[noreturn]] void exit_as(int wait_status) {
  if (WIFSIGNALED(wait_status)) {
    int sig = WTERMSIG(wait_status);
    rlimit none{0, 0};
    ::setrlimit(RLIMIT_CORE, &none);
    ::signal(sig, SIG_DFL);
    sigset_t all;
    sigfillset(&all);
    ::sigprocmask(SIG_UNBLOCK, &all, nullptr);
    ::kill(::getpid(), sig);
    std::_Exit(128 + sig);
  }
  std::_Exit(WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 125);
}

}  // namespace

int supervise(const policy& p, const std::vector<std::string>& program) {
  // The program's channel (3-6), its announcements (7) and the freeze control (8, 9), as the parent
  // gave them. Slots the parent left empty are filled with /dev/null, so that the pipes made here
  // never take them.
  const bool controlled = is_open(first_private_fd) && is_open(first_private_fd + 1);
  for (int fd = 3; fd < first_private_fd + 2; ++fd)
    if (!is_open(fd)) {
      int null_fd = ::open("/dev/null", O_RDWR);
      if (null_fd >= 0 && null_fd != fd) {
        ::dup2(null_fd, fd);
        ::close(null_fd);
      }
    }

  identity who;
  who.host_root = ::geteuid() == 0;
  // The sandbox, not the judge, is what the kernel kills first when memory runs out.
  write_proc_file("/proc/self/oom_score_adj", "1000");
  if (who.host_root) {
    who.uid = sandbox_uid_base + static_cast<uid_t>(::getpid());
    who.gid = who.uid;
  } else {
    uid_t uid = ::getuid();
    gid_t gid = ::getgid();
    if (::unshare(CLONE_NEWUSER) != 0) return fail("a user namespace (needed to sandbox as a user other than root)");
    if (!write_proc_file("/proc/self/setgroups", "deny") ||
        !write_proc_file("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1") ||
        !write_proc_file("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1"))
      return fail("the user namespace's id maps");
  }

  char staging_template[] = "/tmp/headroom-sandbox-XXXXXX";
  const char* staging = ::mkdtemp(staging_template);
  if (!staging) return fail("a staging folder in /tmp");

  int status_pipe[2], leave_pipe[2], output_pipe[2];
  if (::pipe2(status_pipe, O_CLOEXEC) != 0 || ::pipe2(leave_pipe, O_CLOEXEC) != 0 ||
      ::pipe2(output_pipe, O_CLOEXEC) != 0)
    return fail("pipe");
  init_channels fds;
  fds.status = status_pipe[1];
  fds.leave = leave_pipe[0];
  fds.output = output_pipe[1];
  fds.control = controlled ? first_private_fd : -1;
  fds.acknowledge = controlled ? first_private_fd + 1 : -1;

  const long flags = CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | SIGCHLD;
  pid_t init = static_cast<pid_t>(::syscall(SYS_clone, flags, nullptr, nullptr, nullptr, nullptr));
  if (init < 0) {
    int e = errno;
    ::rmdir(staging);
    errno = e;
    return fail("new pid, mount, network, ipc and uts namespaces");
  }
  if (init == 0) {
    ::close(status_pipe[0]);
    ::close(leave_pipe[1]);
    ::close(output_pipe[0]);
    run_init(p, who, staging, program, fds);
  }
  ::close(status_pipe[1]);
  ::close(leave_pipe[0]);
  ::close(output_pipe[1]);
  // The channel and the control belong to the sandbox now: their ends close when it is gone.
  for (int fd = 3; fd < first_private_fd + 2; ++fd) ::close(fd);

  output_relay relay(2, p.limits.output_bytes);
  init_report got{};
  bool reported = false, output_open = true, status_open = true;
  std::vector<char> buf(1 << 16);
  std::chrono::steady_clock::time_point drain_until{};
  while (output_open && (status_open || !reported)) {
    pollfd polled[2] = {{output_pipe[0], POLLIN, 0}, {status_open ? status_pipe[0] : -1, POLLIN, 0}};
    int timeout_ms = -1;
    if (reported) {  // the program is gone and everything it started is dying: drain briefly
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(drain_until - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      timeout_ms = static_cast<int>(left.count());
    }
    int n = ::poll(polled, 2, timeout_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) break;
    if (polled[0].revents) {
      ssize_t r = ::read(output_pipe[0], buf.data(), buf.size());
      if (r > 0) relay.feed(std::string_view(buf.data(), static_cast<std::size_t>(r)));
      else if (r == 0 || errno != EINTR) output_open = false;
    }
    if (status_open && polled[1].revents) {
      ssize_t r = ::read(status_pipe[0], &got, sizeof got);
      if (r == static_cast<ssize_t>(sizeof got)) {
        reported = true;
        drain_until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
      } else if (r == 0 || errno != EINTR) {
        status_open = false;
      }
    }
    if (!status_open && !reported) break;  // init ended without a word: setup failed or it was killed
  }
  // Any report still pending once the output closed.
  if (!reported && status_open && ::read(status_pipe[0], &got, sizeof got) == static_cast<ssize_t>(sizeof got))
    reported = true;

  bool program_ended = reported && got.kind == init_report::program_ended;
  if (program_ended && !p.copy_out_inside.empty() && WIFEXITED(got.wait_status) && WEXITSTATUS(got.wait_status) == 0) {
    copy_report c = copy_tree("/proc/" + std::to_string(init) + "/root" + p.copy_out_inside, p.copy_out_host,
                              std::uint64_t{16} << 30);
    if (!c.ok) {
      std::fprintf(stderr, "headroom-sandbox: copying %s out: %s\n", p.copy_out_inside.c_str(), c.error.c_str());
      program_ended = false;
    }
  }
  ::close(leave_pipe[1]);
  int init_status = 0;
  while (::waitpid(init, &init_status, 0) < 0 && errno == EINTR) {}
  ::rmdir(staging);
  relay.finish();
  if (!program_ended) {
    if (reported && got.kind == init_report::program_ended) std::_Exit(125);  // the copy failed
    if (WIFSIGNALED(init_status)) exit_as(init_status);  // init killed: report as killed
    std::_Exit(125);
  }
  exit_as(got.wait_status);
}

}  // namespace headroom::sandbox
