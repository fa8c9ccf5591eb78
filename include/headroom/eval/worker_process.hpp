#pragma once
// The parent's handle on one headroom-worker process: started in its own process group with a pipe
// pair and its stderr in a log file, asked one request at a time with a deadline, killed as a group.
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "headroom/eval/channel.hpp"

namespace headroom::eval {

struct worker_launch {
  std::filesystem::path worker;         // the headroom-worker executable
  std::string python;                   // the interpreter whose environment the worker embeds
  std::filesystem::path log;            // the worker's stderr goes here
  std::map<std::string, std::string> env;  // added to (or replacing in) the parent's environment
};

// How a request ended when it did not end with an answer.
enum class worker_failure { none, timeout, died, tampering };

struct worker_reply {
  worker_failure failure = worker_failure::none;
  message msg;          // the answer, when failure == none
  std::string detail;   // for failures: "killed by signal 11 (SIGSEGV)", "exit status 1", ...
};

class worker_process {
 public:
  explicit worker_process(const worker_launch& launch);
  ~worker_process();  // kills the group if still running
  worker_process(const worker_process&) = delete;
  worker_process& operator=(const worker_process&) = delete;

  // Sends a request (a JSON object without the nonce; the worker's answers must carry `nonce`)
  // and its payload, gathered from `parts`, and waits for the answer until `timeout`. On timeout
  // the process group is killed. The answer's payload is read into a buffer from `take` (see
  // read_message), when given.
  worker_reply request(const std::string& header, std::span<const std::span<const std::byte>> parts,
                       std::chrono::duration<double> timeout, const buffer_source& take = {});
  // Asks the worker to end, then reaps it (killing it after a grace period).
  void stop();
  // The last `bytes` of the worker's log.
  std::string log_tail(std::size_t bytes = 4000) const;
  const std::string& nonce() const { return nonce_; }

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
};

}  // namespace headroom::eval
