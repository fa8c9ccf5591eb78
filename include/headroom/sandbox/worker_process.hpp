#pragma once
// The parent's handle on one headroom-worker process: started in its own process group with a pipe
// pair and its stderr in a log file, asked one request at a time with a deadline, killed as a group.
// An isolated worker (worker_launch::isolation) is started through headroom-sandbox, which the
// handle can freeze and thaw as a whole (docs/eval.md, "Sandbox").
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <simdjson.h>

#include "headroom/sandbox/announcements.hpp"
#include "headroom/sandbox/channel.hpp"
#include "headroom/sandbox/policy.hpp"

namespace headroom::sandbox {

struct worker_launch {
  std::filesystem::path worker;  // the headroom-worker executable
  std::string python;  // the interpreter whose environment the worker embeds
  std::filesystem::path log;  // the worker's stderr goes here
  std::map<std::string, std::string> env;  // added to (or replacing in) the parent's environment
  // Set: the worker runs in a sandbox of this policy, started by `sandbox` (headroom-sandbox), as
  // `worker_inside` (its path there); `env` is then ignored, the policy's environment is the whole.
  std::optional<policy> isolation;
  std::filesystem::path sandbox;
  std::string worker_inside;
};

// How a request ended when it did not end with an answer.
enum class worker_failure { none, timeout, died, tampering };

struct worker_reply {
  worker_failure failure = worker_failure::none;
  message msg;  // the answer, when failure == none
  std::string detail;  // for failures: "killed by signal 11 (SIGSEGV)", "exit status 1", ...
};

class worker_process {
 public:
  explicit worker_process(const worker_launch& launch);
  ~worker_process();  // kills the group if still running
  worker_process(const worker_process&) = delete;
  worker_process& operator=(const worker_process&) = delete;

  // Sends a request (a JSON object without the nonce; the worker's answers must carry `nonce`)
  // and its payload, gathered from `parts`, and waits for the answer until `timeout`. On timeout
  // the process group is killed. Time the worker spends frozen (freeze) does not count: a build
  // frozen through other evaluations' measurements has its whole timeout of running time. The
  // answer's payload is read into a buffer from `take` (see read_message), when given.
  //
  // While it works on a request, the worker may ask the parent something (a message with an "ask"
  // field, the nonce on it too): `on_ask` gets the parsed question and returns the fields of the
  // reply (JSON without braces), sent back at once; the request's answer is the first message
  // without "ask". Without `on_ask`, a question is an answer like any other.
  using ask_handler = std::function<std::string(simdjson::dom::element question)>;
  worker_reply request(const std::string& header, std::span<const std::span<const std::byte>> parts,
                       std::chrono::duration<double> timeout, const buffer_source& take = {},
                       const ask_handler& on_ask = {});
  // Asks the worker to end, then reaps it (killing it after a grace period).
  void stop();
  // The last `bytes` of the worker's log.
  std::string log_tail(std::size_t bytes = 4000) const;
  const std::string& nonce() const { return nonce_; }
  bool isolated() const { return control_ >= 0; }
  bool alive() const { return !dead_; }
  // Stops (SIGSTOP) or continues every process of an isolated worker's sandbox, and waits until it
  // is done; nothing for a worker that is not isolated or has ended. False when the sandbox did not
  // answer within a second.
  bool freeze();
  bool thaw();
  // How long the sandbox has been frozen in all, the freeze in progress included.
  std::chrono::nanoseconds frozen_time() const;
  // The worker's announcements sent since the last call, oldest first, each with its send time
  // (announcements.hpp).
  std::vector<announcement> announcements() const { return read_announcements(announcements_); }
  // Bytes of output the sandbox dropped beyond its cap (read from the log's end).
  std::uint64_t dropped_output() const;

 private:
  void kill_group();
  std::string reap_status(bool wait);

  pid_t pid_ = -1;
  int to_worker_ = -1;
  int from_worker_ = -1;
  shared_region down_region_, up_region_;  // payloads to and from the worker (channel.hpp)
  std::string nonce_;
  std::filesystem::path log_;
  bool dead_ = false;
  int control_ = -1, acknowledge_ = -1;  // to and from the sandbox's init (isolated workers)
  int announcements_ = -1;  // the parent's end of the announcement socket
  bool frozen_ = false;
  // Frozen time, read by the thread that asks the worker while another freezes and thaws it:
  // steady-clock nanoseconds, the current freeze's start (0: not frozen) and the ended freezes' sum.
  std::atomic<std::int64_t> frozen_since_ns_{0};
  std::atomic<std::int64_t> frozen_total_ns_{0};
  bool signal_sandbox(char command);
  // `span` of time not frozen after `start` (`frozen_at_start`: frozen_time() then) ends here, as
  // far as is known now: a freeze still to come moves it.
  std::chrono::steady_clock::time_point unfrozen_deadline(std::chrono::steady_clock::time_point start,
                                                          std::chrono::nanoseconds frozen_at_start,
                                                          std::chrono::duration<double> span) const;
  // Waits until the worker has written to its channel, or until `timeout` of time not frozen has
  // passed since `start` (`frozen_at_start`: frozen_time() then). False on the timeout.
  bool wait_readable(std::chrono::steady_clock::time_point start, std::chrono::nanoseconds frozen_at_start,
                     std::chrono::duration<double> timeout) const;
};

}  // namespace headroom::sandbox
