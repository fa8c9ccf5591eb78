#include "worker/request_loop.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include <fmt/format.h>

#include "headroom/worker/requests.hpp"
#include "worker/process_memory.hpp"
#include "worker/request_error.hpp"

namespace headroom::worker {

request_loop::request_loop(int in_fd, int out_fd, int announce_fd, sandbox::shared_region in_region,
                           sandbox::shared_region out_region)
    : trace_(std::getenv("HEADROOM_WORKER_TRACE") != nullptr),
      channel_(in_fd, out_fd, in_region, out_region),
      tensors_(python_),
      errors_(channel_, python_, allocations_),
      bridge_(dev_, tensors_),
      outputs_(dev_, tensors_, allocations_),
      kept_(dev_, tensors_),
      sets_(dev_, channel_, memory_),
      setup_({dev_, channel_, errors_, python_, allocations_, memory_, problem_}),
      trials_({dev_, channel_, errors_, python_, bridge_, outputs_, sets_, allocations_, memory_, problem_,
               setup_.record(), kept_}),
      timing_({dev_, channel_, errors_, python_, bridge_, outputs_, sets_, allocations_, memory_, problem_, kept_,
               announce_fd, trace_}),
      ceilings_({dev_, channel_, python_, bridge_, outputs_, sets_, problem_}),
      probe_({dev_, channel_}) {
  channel_.on_reply_over_pending([this] { send_reply(); });
}

int request_loop::serve() {
  for (;;) {
    // Into the buffer of an earlier payload: gigabytes of fresh pages cost more than the copy.
    sandbox::read_result r = channel_.read_request(std::move(memory_.spare()));
    if (r.status != sandbox::read_status::ok) return r.status == sandbox::read_status::closed ? 0 : 3;
    simdjson::dom::parser parser;
    simdjson::padded_string padded(r.msg.header);
    simdjson::dom::element req;
    if (parser.parse(padded).get(req)) return 3;
    std::string_view op = req["op"].get_string().value_unsafe();
    if (op == "bye") {
      channel_.reply(R"("ok":true)");
      send_reply();
      return 0;
    }
    double began = host_ms();
    const std::size_t payload_bytes = r.msg.payload.size();
    allocations_.begin_request();
    try {
      handle(op, req, r.msg.payload);
      if (trace_)
        std::fprintf(stderr, "headroom-worker: %.*s took %.1f ms (payload %zu bytes in; %s before trimming)\n",
                     static_cast<int>(op.size()), op.data(), host_ms() - began, payload_bytes, memory_now().c_str());
    } catch (const std::exception& e) {
      errors_.exception(e);
    }
    // Lean: the request's payload buffer (or what a run swapped into it) goes before the reply's
    // trimming instead of being kept to read the next payload into.
    if (memory_.lean()) std::vector<std::byte>().swap(r.msg.payload);
    send_reply();
    if (!memory_.lean()) memory_.spare() = std::move(r.msg.payload);
  }
}

void request_loop::handle(std::string_view op, simdjson::dom::element req, std::vector<std::byte>& payload) {
  if (!find_request(op)) throw request_error(fmt::format("unknown request {}", op));
  if (op == "hello") return setup_.hello(req);
  if (op == "load") {
    kept_.clear();  // a new model keeps nothing yet
    return setup_.load(req);
  }
  if (op == "inputs") return trials_.inputs(req);
  if (op == "run") return trials_.run(req, payload);
  if (op == "set") return sets_.keep(req, payload);
  if (op == "get_set") return sets_.send(req);
  if (op == "time") return timing_.time(req);
  if (op == "compile_baseline") return setup_.compile_baseline();
  if (op == "replay") return timing_.replay(req);
  if (op == "flops") return ceilings_.flops();
  if (op == "ceilings") return ceilings_.measure();
  if (op == "dependence") return ceilings_.dependence(req);
  if (op == "transfers") return ceilings_.transfers(req);
  if (op == "probe") return probe_.probe(req);
  throw request_error(fmt::format("request {} is listed (requests.hpp) but not served here", op));
}

void request_loop::send_reply() {
  if (!channel_.pending()) return;
  memory_.before_answer(dev_.get());
  channel_.write_pending();
  memory_.after_answer();
}

}  // namespace headroom::worker
