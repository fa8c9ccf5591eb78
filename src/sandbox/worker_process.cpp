#include "headroom/sandbox/worker_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "headroom/sandbox/announcements.hpp"
#include "headroom/util/phase_trace.hpp"
#include "freezer.hpp"
#include "output_relay.hpp"
#include <simdjson.h>

extern char** environ;

namespace headroom::sandbox {
namespace {

std::string random_nonce() {
  std::random_device rd;
  return fmt::format("{:08x}{:08x}{:08x}{:08x}", rd(), rd(), rd(), rd());
}

}  // namespace

worker_process::worker_process(const worker_launch& launch) : nonce_(random_nonce()), log_(launch.log) {
  int down[2], up[2];
  if (pipe2(down, O_CLOEXEC) != 0 || pipe2(up, O_CLOEXEC) != 0)
    throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  // Larger pipe buffers: KernelBench tensors reach gigabytes, and 64 KiB per read is slow.
  for (int fd : {down[1], up[0]}) fcntl(fd, F_SETPIPE_SZ, 1 << 20);
  // Big payloads go through two regions the worker inherits (one each way), their pages kept from
  // one message to the next. Without memfd both stay -1 and payload files in /dev/shm are used.
  down_region_ = make_shared_region("headroom-to-worker");
  up_region_ = make_shared_region("headroom-from-worker");
  if (down_region_.fd < 0 || up_region_.fd < 0) {  // both or neither: the worker is told of both
    for (shared_region* r : {&down_region_, &up_region_}) {
      if (r->fd >= 0) ::close(r->fd);
      r->fd = -1;
    }
  }
  std::filesystem::create_directories(launch.log.parent_path());
  int log_fd = ::open(launch.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) throw std::runtime_error(fmt::format("cannot write {}: {}", launch.log.string(), std::strerror(errno)));

  // The worker's announcements of each timed call's start and end, stamped by the kernel when sent.
  const announcement_socket announcements = make_announcement_socket();
  announcements_ = announcements.parent;

  // The sandbox's freeze control: commands to its init process, acknowledgements back.
  int control[2] = {-1, -1}, acknowledge[2] = {-1, -1};
  if (launch.isolation && (pipe2(control, O_CLOEXEC) != 0 || pipe2(acknowledge, O_CLOEXEC) != 0))
    throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));

  // Everything the child needs is prepared before fork: after it only async-signal-safe calls.
  std::vector<std::string> env_strings;
  if (launch.isolation) {
    env_strings.push_back("PATH=/usr/bin:/bin");  // the supervisor's own; the program's is the policy's
  } else {
    for (char** e = environ; *e; ++e) {
      std::string kv = *e;
      auto eq = kv.find('=');
      if (eq != std::string::npos && launch.env.count(kv.substr(0, eq))) continue;
      env_strings.push_back(kv);
    }
    for (const auto& [k, v] : launch.env) env_strings.push_back(k + "=" + v);
  }
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args;
  if (launch.isolation) {
    args.push_back(launch.sandbox.string());
    for (std::string& a : to_arguments(*launch.isolation)) args.push_back(std::move(a));
    args.push_back("--");
    args.push_back(launch.worker_inside);
  } else {
    args.push_back(launch.worker.string());
  }
  for (const char* a : {"--python"}) args.emplace_back(a);
  args.push_back(launch.python);
  for (const char* a : {"--in", "3", "--out", "4", "--announce", "7"}) args.emplace_back(a);
  if (down_region_.fd >= 0 && up_region_.fd >= 0) {
    for (const char* a : {"--payload-in", "5", "--payload-out", "6"}) args.emplace_back(a);
  }
  std::string exe = args.front();
  std::vector<char*> argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);

  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  if (pid_ == 0) {
    // Its own session, and so its own process group: a timeout kills the worker (or its sandbox)
    // and anything it started. The session also gives it a scheduling group of its own where the
    // kernel groups tasks by session (autogroup): a sandboxed program starts a session of its own
    // (init_process.cpp), and a worker left in the judge's session competed for the CPU beside the
    // judge's other work, where the candidate's competed as a group of one (a compile in the
    // judge's session slowed the candidate's timed calls and not the reference's: docs/eval.md,
    // "Paired rounds"). Every worker in a session of its own, the two sides compete alike.
    setsid();
    // An interrupted `headroom eval` must not leave a hung candidate running.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int null_fd = ::open("/dev/null", O_RDONLY);
    dup2(null_fd, 0);
    dup2(log_fd, 1);
    dup2(log_fd, 2);
    // Move the ends out of the way first: any may already sit on 3-9, and dup2 onto itself would
    // keep its close-on-exec flag.
    int in_copy = fcntl(down[0], F_DUPFD, 10);
    int out_copy = fcntl(up[1], F_DUPFD, 10);
    int region_in_copy = down_region_.fd >= 0 ? fcntl(down_region_.fd, F_DUPFD, 10) : -1;
    int region_out_copy = up_region_.fd >= 0 ? fcntl(up_region_.fd, F_DUPFD, 10) : -1;
    int announce_copy = fcntl(announcements.worker, F_DUPFD, 10);
    int control_copy = control[0] >= 0 ? fcntl(control[0], F_DUPFD, 10) : -1;
    int acknowledge_copy = acknowledge[1] >= 0 ? fcntl(acknowledge[1], F_DUPFD, 10) : -1;
    dup2(in_copy, 3);
    dup2(out_copy, 4);
    if (region_in_copy >= 0 && region_out_copy >= 0) {
      dup2(region_in_copy, 5);
      dup2(region_out_copy, 6);
    }
    dup2(announce_copy, 7);
    if (control_copy >= 0 && acknowledge_copy >= 0) {  // headroom-sandbox's freeze control (sandbox_main.cpp)
      dup2(control_copy, 8);
      dup2(acknowledge_copy, 9);
    }
    execve(exe.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  // No setpgid here (as the other launchers do, whichever runs first): a process group leader
  // cannot start a session. Until the child's setsid, kill_group's kill(pid) still reaches it.
  ::close(log_fd);
  ::close(announcements.worker);
  ::close(down[0]);
  ::close(up[1]);
  if (launch.isolation) {
    ::close(control[0]);
    ::close(acknowledge[1]);
    control_ = control[1];
    acknowledge_ = acknowledge[0];
    registry_add(this);
  }
  to_worker_ = down[1];
  from_worker_ = up[0];
  signal(SIGPIPE, SIG_IGN);  // a dead worker shows as a failed write, not as our death
}

worker_process::~worker_process() {
  if (control_ >= 0) registry_remove(this);
  if (!dead_) {
    kill_group();
    reap_status(true);
  }
  if (to_worker_ >= 0) ::close(to_worker_);
  if (from_worker_ >= 0) ::close(from_worker_);
  for (int fd : {down_region_.fd, up_region_.fd, control_, acknowledge_, announcements_})
    if (fd >= 0) ::close(fd);
}

bool worker_process::signal_sandbox(char command) {
  if (control_ < 0 || dead_) return true;
  if (::write(control_, &command, 1) != 1) return false;
  pollfd p{acknowledge_, POLLIN, 0};
  if (::poll(&p, 1, 1000) != 1) return false;
  char ack = 0;
  return ::read(acknowledge_, &ack, 1) == 1 && ack == command + ('a' - 'A');
}

bool worker_process::freeze() {
  if (frozen_) return true;
  frozen_ = signal_sandbox('F');
  return frozen_;
}

bool worker_process::thaw() {
  if (!frozen_) return true;
  frozen_ = !signal_sandbox('T');
  return !frozen_;
}

std::uint64_t worker_process::dropped_output() const { return dropped_from_log(log_tail(1 << 17)); }

void worker_process::kill_group() {
  if (pid_ > 0) {
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
  }
}

std::string worker_process::reap_status(bool wait) {
  if (dead_) return "exited";
  int status = 0;
  pid_t r = waitpid(pid_, &status, wait ? 0 : WNOHANG);
  if (r != pid_) return "";
  dead_ = true;
  ::kill(-pid_, SIGKILL);  // whatever the worker left behind in its group goes with it
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    return fmt::format("killed by signal {} ({})", sig, sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
  }
  if (WIFEXITED(status)) return fmt::format("exit status {}", WEXITSTATUS(status));
  return "ended";
}

worker_reply worker_process::request(const std::string& header, std::span<const std::span<const std::byte>> parts,
                                     std::chrono::duration<double> timeout, const buffer_source& take,
                                     const ask_handler& on_ask) {
  worker_reply out;
  if (dead_) {
    out.failure = worker_failure::died;
    out.detail = "the worker had already ended";
    return out;
  }
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout);
  bool sent = write_message(to_worker_, header, parts, down_region_, 0);
  read_result r = sent ? read_message(from_worker_, deadline, take, 0, up_region_) : read_result{read_status::closed, {}, {}};
  simdjson::dom::parser parser;
  while (r.status == read_status::ok) {
    simdjson::padded_string padded(r.msg.header);
    simdjson::dom::element doc;
    std::string_view nonce;
    if (parser.parse(padded).get(doc) || doc["nonce"].get_string().get(nonce) || nonce != nonce_) {
      out.failure = worker_failure::tampering;
      out.detail = "an answer on the result channel did not carry this worker's nonce";
      kill_group();
      reap_status(true);
      return out;
    }
    std::string_view question;
    if (!on_ask || doc["ask"].get_string().get(question)) {
      out.msg = std::move(r.msg);
      return out;
    }
    // A question within the request: answered at once, then the request goes on.
    std::string reply = "{" + on_ask(doc) + "}";
    if (!write_message(to_worker_, reply, {}, down_region_, 0)) {
      r = read_result{read_status::closed, {}, {}};
      break;
    }
    r = read_message(from_worker_, deadline, take, 0, up_region_);
  }
  if (r.status == read_status::timeout) {
    out.failure = worker_failure::timeout;
    out.detail = fmt::format("no answer within {:.0f} s", timeout.count());
    kill_group();
    reap_status(true);
    return out;
  }
  if (r.status == read_status::malformed) {
    out.failure = worker_failure::tampering;
    out.detail = "the result channel carried bytes that are not a message (" + r.problem + ")";
    kill_group();
    reap_status(true);
    return out;
  }
  // The pipe closed: the worker died. Give it a moment to be reaped for its status.
  out.failure = worker_failure::died;
  for (int i = 0; i < 200 && out.detail.empty(); ++i) {
    out.detail = reap_status(false);
    if (out.detail.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (out.detail.empty()) {
    kill_group();
    out.detail = "closed its channel; " + reap_status(true);
  }
  return out;
}

void worker_process::stop() {
  if (dead_) return;
  util::phase_trace trace("stop the worker");
  message m{R"({"op":"bye"})", {}};
  if (write_message(to_worker_, m))
    read_message(from_worker_, std::chrono::steady_clock::now() + std::chrono::seconds(5));
  // A sandbox may still copy a build out after its worker has exited (policy::copy_out_inside).
  for (int i = 0, waits = control_ >= 0 ? 500 : 100; i < waits; ++i) {
    if (!reap_status(false).empty()) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill_group();
  reap_status(true);
}

std::string worker_process::log_tail(std::size_t bytes) const {
  std::ifstream f(log_, std::ios::binary);
  if (!f) return "";
  f.seekg(0, std::ios::end);
  auto size = static_cast<std::size_t>(f.tellg());
  std::size_t from = size > bytes ? size - bytes : 0;
  f.seekg(static_cast<std::streamoff>(from));
  std::string s(size - from, '\0');
  f.read(s.data(), static_cast<std::streamsize>(s.size()));
  return s;
}

}  // namespace headroom::sandbox
