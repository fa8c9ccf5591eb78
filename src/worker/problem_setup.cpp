#include "worker/problem_setup.hpp"

#include <fmt/format.h>

#include "headroom/util/json.hpp"
#include "worker/allocation_watch.hpp"
#include "worker/error_replies.hpp"
#include "worker/loaded_problem.hpp"
#include "worker/parent_channel.hpp"
#include "worker/python_driver.hpp"
#include "worker/request_error.hpp"
#include "worker/request_memory.hpp"

namespace headroom::worker {

using util::json_string;

void problem_setup::hello(simdjson::dom::element req) {
  p_.channel.set_nonce(std::string(req["nonce"].get_string().value()));
  std::string dev_name(req["device"].get_string().value());
  p_.dev = make_device(dev_name);
  std::optional<std::string> env = setup_device(req, dev_name);
  if (!env) return;
  std::string record_missing = load_op_record(req);
  if (!record_missing.empty()) {
    // The Python record stands in; its first use is slow on some torch builds, so it is paid now
    // unless this worker never records operators.
    bool warm_record = true;
    if (req["warm_record"].get_bool().get(warm_record)) warm_record = true;
    if (warm_record && !p_.python.warm_up_operator_record()) return p_.errors.python("setup");
  }
  if (!p_.python.snapshot_guarded_functions()) return p_.errors.python("setup");
  take_current_stream();
  p_.channel.reply(fmt::format(
      R"("ok":true,"env":{},"driver":{},"runtime":{},"clocks":{},"poison_allocator":{},"cuda_hook":"{}","op_record":"{}","op_record_missing":{})",
      *env, json_string(p_.dev->driver_version()), json_string(p_.dev->runtime_version()),
      json_string(p_.dev->clocks()), p_.allocations.cuda_poison_available() ? "true" : "false",
      !p_.dev->is_cuda()              ? ""
      : p_.allocations.cuda_tracker() ? "tracker"
                                      : "pluggable",
      op_record_.available() ? "dispatcher" : "python", json_string(record_missing)));
}

std::optional<std::string> problem_setup::setup_device(simdjson::dom::element req, const std::string& dev_name) {
  std::string allocator(req["poison_allocator"].get_string().value());
  std::string_view tracker;
  if (req["alloc_tracker"].get_string().get(tracker)) tracker = "";
  const bool cuda = p_.dev->is_cuda();
  // The pluggable allocator is installed before CUDA is initialised; the tracker needs torch's own
  // libraries loaded, so it is loaded after torch is imported (and attached once CUDA is).
  if (cuda && tracker.empty()) p_.allocations.load_cuda_poison(allocator);
  // The driver module, from the copy compiled into this binary.
  if (std::string failed = p_.python.import_driver(); !failed.empty()) {
    p_.channel.reply(fmt::format(R"("ok":false,"error":"setup","kind":"","message":{},"traceback":"")",
                                 json_string("cannot import torch in this Python: " + failed)));
    return std::nullopt;
  }
  bool use_tracker = cuda && !tracker.empty() && p_.allocations.load_cuda_poison(std::string(tracker));
  if (cuda && !tracker.empty() && !use_tracker) p_.allocations.load_cuda_poison(allocator);  // it did not load
  std::optional<std::string> env =
      p_.python.setup(dev_name, !use_tracker && p_.allocations.cuda_poison_available() ? allocator : std::string());
  if (!env) {
    p_.errors.python("setup");
    return std::nullopt;
  }
  // A tracker that cannot attach (PyTorch's allocator is another backend) leaves the device unpoisoned,
  // which the parent refuses (hello's poison_allocator).
  if (use_tracker) p_.allocations.attach_cuda_tracker();
  return env;
}

std::string problem_setup::load_op_record(simdjson::dom::element req) {
  std::string_view path;
  if (req["op_record"].get_string().get(path)) path = "";
  std::string missing = op_record_.load(
      std::string(path), [this] { return p_.python.record_probe(); }, "add");
  if (!missing.empty()) return missing;
  return p_.python.replace_record_switches();
}

void problem_setup::take_current_stream() {
  if (std::optional<std::uintptr_t> stream = p_.python.current_stream()) p_.dev->set_stream(*stream);
}

void problem_setup::load(simdjson::dom::element req) {
  std::string path(req["path"].get_string().value());
  std::string build_dir(req["build_dir"].get_string().value());
  std::string cls(req["class"].get_string().value());
  bool compile_only = req["compile_only"].get_bool().value();
  p_.problem.check_memory = cls == "ModelNew";
  bool lean = false;
  if (req["lean"].get_bool().get(lean)) lean = false;
  p_.memory.set_lean(lean);
  if (p_.problem.check_memory) p_.allocations.begin_lifetime_log();
  p_.problem.module = p_.python.import_file(path, build_dir);
  if (!p_.problem.module) {
    python_error e = p_.python.take_error();
    // load_inline raises RuntimeError("Error building extension ...") when the compiler fails.
    bool build = e.message.find("Error building extension") != std::string::npos ||
                 e.message.find("Error compiling objects") != std::string::npos;
    return p_.channel.reply(fmt::format(R"("ok":false,"error":"{}","kind":"{}","message":{},"traceback":{})",
                                        build ? "compile_error" : "load_error", e.kind, json_string(e.message),
                                        json_string(e.traceback)));
  }
  if (compile_only) return p_.channel.reply(R"("ok":true)");
  std::string init;
  if (!build_model(req, cls, init)) return;
  take_current_stream();
  p_.channel.reply(
      fmt::format(R"("ok":true,"init_inputs":{},"tampered":{})", json_string(init), p_.python.tampered_json()));
}

bool problem_setup::build_model(simdjson::dom::element req, const std::string& cls, std::string& init) {
  if (auto v = req["init_inputs"].get_string(); !v.error()) init = std::string(v.value());
  if (init.empty()) {
    std::optional<std::string> s = p_.python.init_inputs(p_.problem.module);
    if (!s) {
      p_.errors.python("load_error");
      return false;
    }
    init = *s;
  }
  // The problem's arguments that are not tensors (the reference worker has them from get_inputs).
  if (std::string_view c; !req["constants"].get_string().get(c)) {
    py_ref parsed = p_.python.parse_constants(std::string(c));
    if (!parsed) {
      p_.errors.python("load_error");
      return false;
    }
    p_.problem.constants = parsed;
  }
  p_.problem.model = p_.python.build_model(p_.problem.module, cls, init, req["seed"].get_int64().value());
  if (!p_.problem.model) {
    p_.errors.python("load_error");
    return false;
  }
  return true;
}

void problem_setup::compile_baseline() {
  py_ref compiled;
  if (!p_.python.compile_model(p_.problem.model, compiled)) return p_.errors.python("runtime_error");
  if (!compiled) return p_.channel.reply(R"("ok":true,"available":false)");
  if (!p_.problem.eager_model) p_.problem.eager_model = p_.problem.model;  // replays run the eager model
  p_.problem.model = compiled;
  p_.channel.reply(R"("ok":true,"available":true)");
}

}  // namespace headroom::worker
