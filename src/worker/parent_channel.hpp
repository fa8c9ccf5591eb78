#pragma once
// The conversation with the parent (docs/eval.md, "Processes"): requests read from the pipe (and
// the shared region for big payloads), the pending answer with its nonce, and questions asked
// within a request. An answer is written once its request's handler has returned: the request
// loop writes it (write_pending) between what happens before and after every answer.
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <simdjson.h>

#include "headroom/sandbox/channel.hpp"

namespace headroom::worker {

class parent_channel {
 public:
  parent_channel(int in_fd, int out_fd, sandbox::shared_region in_region, sandbox::shared_region out_region)
      : in_(in_fd), out_(out_fd), in_region_(in_region), out_region_(out_region) {}

  // The next request, read into the buffer of an earlier payload.
  sandbox::read_result read_request(std::vector<std::byte>&& reuse);

  // Every answer carries it (hello's); an answer without it is tampering.
  void set_nonce(std::string nonce) { nonce_ = std::move(nonce); }

  // The answer, sent once the request's handler has returned: its payload is bytes the worker
  // keeps, gathered from `parts` as it is written. An answer still pending is sent first, through
  // `send_pending` (set by the request loop).
  void reply(const std::string& fields, std::span<const std::span<const std::byte>> parts = {});
  void reply(const std::string& fields, const std::vector<std::byte>& payload);
  void on_reply_over_pending(std::function<void()> send_pending) { send_pending_ = std::move(send_pending); }
  bool pending() const { return pending_.has_value(); }
  // Writes the pending answer; the worker ends (exit 4) when it cannot.
  void write_pending();

  // A question to the parent within a request (the timing loop's plan of a call); its answer,
  // parsed into `parser`.
  simdjson::dom::element ask(simdjson::dom::parser& parser, const char* what, int call);

 private:
  int in_, out_;
  sandbox::shared_region in_region_, out_region_;  // big payloads each way (fd -1: files in /dev/shm)
  std::string nonce_;
  struct pending_reply {
    std::string header;
    std::vector<std::span<const std::byte>> parts;
  };
  std::optional<pending_reply> pending_;
  std::function<void()> send_pending_;
};

}  // namespace headroom::worker
