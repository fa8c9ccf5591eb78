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
#include "headroom/util/spawn.hpp"
#include "freezer.hpp"
#include "output_relay.hpp"
#include <simdjson.h>

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
  if (log_fd < 0)
    throw std::runtime_error(fmt::format("cannot write {}: {}", launch.log.string(), std::strerror(errno)));

  // The worker's announcements of each timed call's start and end, stamped by the kernel when sent.
  const announcement_socket announcements = make_announcement_socket();
  announcements_ = announcements.parent;

  // The sandbox's freeze control: commands to its init process, acknowledgements back.
  int control[2] = {-1, -1}, acknowledge[2] = {-1, -1};
  if (launch.isolation && (pipe2(control, O_CLOEXEC) != 0 || pipe2(acknowledge, O_CLOEXEC) != 0))
    throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));

  util::spawn_spec spec;
  if (launch.isolation) {
    spec.environment = {"PATH=/usr/bin:/bin"};  // the supervisor's own; the program's is the policy's
  } else {
    spec.environment = util::environment_with({launch.env.begin(), launch.env.end()});
  }
  if (launch.isolation) {
    spec.argv.push_back(launch.sandbox.string());
    for (std::string& a : to_arguments(*launch.isolation)) spec.argv.push_back(std::move(a));
    spec.argv.push_back("--");
    spec.argv.push_back(launch.worker_inside);
  } else {
    spec.argv.push_back(launch.worker.string());
  }
  for (const char* a : {"--python"}) spec.argv.emplace_back(a);
  spec.argv.push_back(launch.python);
  for (const char* a : {"--in", "3", "--out", "4", "--announce", "7"}) spec.argv.emplace_back(a);
  if (down_region_.fd >= 0 && up_region_.fd >= 0) {
    for (const char* a : {"--payload-in", "5", "--payload-out", "6"}) spec.argv.emplace_back(a);
  }
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd < 0) throw std::runtime_error(fmt::format("cannot open /dev/null: {}", std::strerror(errno)));
  spec.descriptors = {{null_fd, 0}, {log_fd, 1}, {log_fd, 2}, {down[0], 3}, {up[1], 4}, {announcements.worker, 7}};
  if (down_region_.fd >= 0 && up_region_.fd >= 0) {
    spec.descriptors.emplace_back(down_region_.fd, 5);
    spec.descriptors.emplace_back(up_region_.fd, 6);
  }
  if (control[0] >= 0 && acknowledge[1] >= 0) {  // headroom-sandbox's freeze control (sandbox_main.cpp)
    spec.descriptors.emplace_back(control[0], 8);
    spec.descriptors.emplace_back(acknowledge[1], 9);
  }
  // Its own session, and so its own process group: a timeout kills the worker (or its sandbox) and
  // anything it started. The session also gives it a scheduling group of its own where the kernel
  // groups tasks by session (autogroup): a sandboxed program starts a session of its own
  // (init_process.cpp), and a worker left in the judge's session competed for the CPU beside the
  // judge's other work, where the candidate's competed as a group of one (a compile in the judge's
  // session slowed the candidate's timed calls and not the reference's: docs/eval.md, "Paired
  // rounds"). Every worker in a session of its own, the two sides compete alike.
  spec.grouping = util::process_grouping::own_session;
  spec.die_with_parent = true;  // an interrupted `headroom eval` must not leave a hung candidate running
  const auto child = util::spawn(spec);  // the worker's program is found by its path: no PATH lookup
  ::close(null_fd);
  if (child.exec_error != 0) {
    // As a worker that died at once: its first request fails with the log's last line as the reason.
    const auto line = fmt::format("cannot run {}: {}\n", spec.argv.front(), std::strerror(child.exec_error));
    [[maybe_unused]] auto written = ::write(log_fd, line.data(), line.size());
    dead_ = true;
  }
  pid_ = child.pid;  // -1 when dead_: kill_group and reap_status leave it alone
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

namespace {

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

bool worker_process::freeze() {
  if (frozen_) return true;
  // Counted from before the request: a sandbox that stopped but answered late was frozen meanwhile.
  const std::int64_t since = steady_ns();
  frozen_ = signal_sandbox('F');
  if (frozen_) frozen_since_ns_ = since;
  return frozen_;
}

bool worker_process::thaw() {
  if (!frozen_) return true;
  frozen_ = !signal_sandbox('T');
  if (!frozen_) {
    if (const std::int64_t since = frozen_since_ns_.exchange(0); since > 0) frozen_total_ns_ += steady_ns() - since;
  }
  return !frozen_;
}

std::chrono::nanoseconds worker_process::frozen_time() const {
  const std::int64_t since = frozen_since_ns_;
  return std::chrono::nanoseconds(frozen_total_ns_ + (since > 0 ? steady_ns() - since : 0));
}

std::chrono::steady_clock::time_point worker_process::unfrozen_deadline(std::chrono::steady_clock::time_point start,
                                                                        std::chrono::nanoseconds frozen_at_start,
                                                                        std::chrono::duration<double> span) const {
  return start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(span) +
         (frozen_time() - frozen_at_start);
}

bool worker_process::wait_readable(std::chrono::steady_clock::time_point start,
                                   std::chrono::nanoseconds frozen_at_start,
                                   std::chrono::duration<double> timeout) const {
  for (;;) {
    const auto deadline = unfrozen_deadline(start, frozen_at_start, timeout);
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return false;
    // At most a second at a time: a freeze that begins meanwhile moves the deadline.
    pollfd p{from_worker_, POLLIN, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (r > 0 || (r < 0 && errno != EINTR)) return true;  // readable, closed or failed: the read says which
  }
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
  const auto start = std::chrono::steady_clock::now();
  const auto frozen_at_start = frozen_time();
  // The deadline of a message under way: the time not frozen left when it began to arrive.
  auto read_next = [&]() -> read_result {
    if (!wait_readable(start, frozen_at_start, timeout)) return {read_status::timeout, {}, {}};
    return read_message(from_worker_, unfrozen_deadline(start, frozen_at_start, timeout), take, 0, up_region_);
  };
  bool sent = write_message(to_worker_, header, parts, down_region_, 0);
  read_result r = sent ? read_next() : read_result{read_status::closed, {}, {}};
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
    r = read_next();
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
  // A sandbox may still copy a build out after its worker has exited (policy::copy_out_inside), for
  // up to 10 s of time not frozen (a measurement elsewhere may freeze it meanwhile).
  const auto grace = std::chrono::milliseconds(control_ >= 0 ? 10000 : 2000);
  const auto start = std::chrono::steady_clock::now();
  const auto frozen_at_start = frozen_time();
  while (std::chrono::steady_clock::now() < unfrozen_deadline(start, frozen_at_start, grace)) {
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
