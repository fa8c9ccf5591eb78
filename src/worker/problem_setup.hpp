#pragma once
// Setting a worker up for its problem: hello (the device, the poisoning allocator, the driver and
// PyTorch, the operator record) and load (the problem file or the candidate's, its model), then
// compile_baseline (the reference's model under torch.compile). It keeps the operator record.
#include <memory>
#include <optional>
#include <string>

#include <simdjson.h>

#include "headroom/worker/device.hpp"
#include "worker/op_record_loader.hpp"

namespace headroom::worker {

class allocation_watch;
class error_replies;
class parent_channel;
class python_driver;
class request_memory;
struct loaded_problem;

class problem_setup {
 public:
  struct parts {
    std::unique_ptr<device>& dev;  // made by hello
    parent_channel& channel;
    const error_replies& errors;
    python_driver& python;
    allocation_watch& allocations;
    request_memory& memory;
    loaded_problem& problem;
  };
  explicit problem_setup(const parts& p) : p_(p) {}

  void hello(simdjson::dom::element req);
  void load(simdjson::dom::element req);
  void compile_baseline();

  // The C++ operator record, when its library loaded and saw this torch.
  const op_record& record() const { return op_record_; }

 private:
  // The device's CUDA allocation hook (the tracker on PyTorch's caching allocator where the parent
  // named one and it loads, else the pluggable allocator), the driver imported and set up: the
  // environment's JSON, or none when the failure was answered.
  std::optional<std::string> setup_device(simdjson::dom::element req, const std::string& dev_name);
  // The C++ operator record and PyTorch's Python switches of RecordFunction taken away from
  // candidate code: why the record is unavailable, or an empty string.
  std::string load_op_record(simdjson::dom::element req);
  // The problem's model, its constants and its init_inputs; false when a Python error was answered.
  bool build_model(simdjson::dom::element req, const std::string& cls, std::string& init);
  void take_current_stream();

  parts p_;
  op_record op_record_;
};

}  // namespace headroom::worker
