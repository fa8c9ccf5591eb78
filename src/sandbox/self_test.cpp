#include "self_test.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "headroom/sandbox/policy.hpp"
#include "init_process.hpp"
#include "supervisor.hpp"

namespace headroom::sandbox {
namespace {

std::string status_field(const std::string& name) {
  std::ifstream f("/proc/self/status");
  for (std::string line; std::getline(f, line);)
    if (line.rfind(name + ":", 0) == 0) {
      std::size_t at = line.find_first_not_of(" \t", name.size() + 1);
      return at == std::string::npos ? "" : line.substr(at);
    }
  return "";
}

bool check(bool ok, const char* what) {
  std::printf("%s %s\n", ok ? "ok     " : "MISSING", what);
  return ok;
}

}  // namespace

int self_test() {
  bool all = true;
  all &= check(::getuid() != 0 && ::geteuid() != 0, "an unprivileged user");
  all &= check(status_field("CapEff") == "0000000000000000" && status_field("CapBnd") == "0000000000000000",
               "no capabilities");
  all &= check(status_field("NoNewPrivs") == "1", "no new privileges");
  all &= check(status_field("Seccomp") == "2", "a system-call filter");
  errno = 0;
  all &= check(::ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) == -1 && errno == EPERM, "ptrace denied");
  all &= check(::getppid() == 1 || ::getppid() == 0, "its own pid namespace");
  // A fresh pid namespace holds init, this process and its threads' nothing else.
  int visible = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc"))
    if (std::isdigit(static_cast<unsigned char>(e.path().filename().string().front()))) ++visible;
  all &= check(visible <= 4, "the host's processes out of sight");
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(9);
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool no_net = s < 0 || ::connect(s, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0;
  if (s >= 0) ::close(s);
  all &= check(no_net && errno == ENETUNREACH, "no network (its own, down)");
  all &= check(::access("/tmp", W_OK) == 0, "a private writable /tmp");
  all &= check(::access("/usr", W_OK) != 0, "the system read-only");
  return all ? 0 : 1;
}

int check_isolation() {
  char self[4096];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) {
    std::perror("headroom-sandbox: /proc/self/exe");
    return 1;
  }
  self[n] = 0;
  policy p;
  p.binds.push_back({self, "/sandbox/bin/headroom-sandbox", false});
  p.scratch.push_back({"/tmp", 16 << 20});
  p.environment = {"PATH=/usr/bin:/bin"};
  std::fflush(stdout);
  pid_t pid = ::fork();
  if (pid == 0) {
    for (int fd = 3; fd < first_private_fd + 2; ++fd) ::close(fd);
    std::_Exit(supervise(p, {"/sandbox/bin/headroom-sandbox", "--self-test"}));
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    std::printf("this machine can sandbox candidates\n");
    return 0;
  }
  std::printf("this machine cannot sandbox candidates%s\n",
              WIFEXITED(status) && WEXITSTATUS(status) == 125 ? " (the sandbox could not be set up: see above)" : "");
  return 1;
}

}  // namespace headroom::sandbox
