// The requests the parent sends and the worker's replies (docs/eval.md, "Processes").
#include "worker/worker.hpp"

#include <cstdio>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "headroom/util/embedded.hpp"
#include "headroom/util/phase_trace.hpp"

namespace headroom::util {
std::span<const embedded_file> worker_python_files();
}

namespace headroom::worker {

std::string shape_json(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += fmt::format("{}{}", i ? "," : "", shape[i]);
  return s + "]";
}

std::string meta_json(const meta& m) {
  return fmt::format(R"({{"dtype":"{}","shape":{},"bytes":{}}})", dtype_name(m.type), shape_json(m.shape), m.bytes);
}

std::vector<meta> parse_metas(simdjson::dom::array arr) {
  std::vector<meta> out;
  for (simdjson::dom::element e : arr) {
    meta m;
    std::string_view name = e["dtype"].get_string().value();
    auto t = parse_dtype(name);
    if (!t) throw request_error(fmt::format("unknown dtype {}", name));
    m.type = *t;
    // Named arrays: a range-for over `.value()` of a temporary simdjson result dangles.
    simdjson::dom::array shape = e["shape"].get_array().value();
    for (simdjson::dom::element d : shape) m.shape.push_back(d.get_int64().value());
    m.bytes = static_cast<std::size_t>(e["bytes"].get_uint64().value());
    out.push_back(std::move(m));
  }
  return out;
}

int worker::serve() {
  for (;;) {
    // Into the buffer of an earlier payload: gigabytes of fresh pages cost more than the copy.
    // Bulk copies run on the worker's chunk_pool (installed in main), never on new threads.
    read_result r = read_message(in_, std::nullopt, std::move(spare_), 0, in_region_);
    if (r.status != read_status::ok) return r.status == read_status::closed ? 0 : 3;
    simdjson::dom::parser parser;
    simdjson::padded_string padded(r.msg.header);
    simdjson::dom::element req;
    if (parser.parse(padded).get(req)) return 3;
    std::string_view op = req["op"].get_string().value_unsafe();
    if (op == "bye") {
      reply(R"("ok":true)");
      return 0;
    }
    double began = host_ms();
    failed_before_ = failed_allocations();
    try {
      handle(op, req, r.msg.payload);
      if (trace_) std::fprintf(stderr, "headroom-worker: %.*s took %.1f ms (payload %zu bytes in)\n",
                               static_cast<int>(op.size()), op.data(), host_ms() - began, r.msg.payload.size());
    } catch (const request_error& e) {
      reply(fmt::format(R"("ok":false,"error":"runtime_error","kind":"","message":{})", json_string(e.what())));
    } catch (const std::exception& e) {
      // A CUDA call of ours failed: almost always a sticky error a candidate kernel caused.
      std::string what = e.what();
      std::string kind = what.find("illegal") != std::string::npos || what.find("misaligned") != std::string::npos
                             ? "illegal_address"
                             : (what.find("out of memory") != std::string::npos ? "out_of_memory" : "");
      if (allocation_failed()) {
        kind = "out_of_memory";
        what = allocation_failure_text() + "; then: " + what;
      }
      reply(fmt::format(R"("ok":false,"error":"runtime_error","kind":"{}","message":{})", kind, json_string(what)));
    }
    spare_ = std::move(r.msg.payload);
  }
}

// The payload is gathered from `parts` as it is written (bytes the worker keeps, or one buffer).
void worker::reply(const std::string& fields, std::span<const std::span<const std::byte>> parts) {
  if (!write_message(out_, fmt::format(R"({{"nonce":{},{}}})", json_string(nonce_), fields), parts, out_region_, 0))
    std::_Exit(4);
}

void worker::reply(const std::string& fields, const std::vector<std::byte>& payload) {
  const std::span<const std::byte> part(payload);
  reply(fields, std::span(&part, 1));
}

std::string worker::allocation_failure_text() const {
  return fmt::format("CUDA out of memory: {} device allocation(s) failed during the call",
                     failed_allocations() - failed_before_);
}

void worker::reply_python_error(const char* error) {
  python_error e = take_python_error(fn("describe_exception").get());
  if (allocation_failed()) {
    e.kind = "out_of_memory";
    e.message = allocation_failure_text() + "; then: " + e.message;
  }
  reply(fmt::format(R"("ok":false,"error":"{}","kind":"{}","message":{},"traceback":{})", error, e.kind,
                    json_string(e.message), json_string(e.traceback)));
}

py_ref worker::fn(const char* name) {
  auto it = functions_.find(name);
  if (it != functions_.end()) return it->second;
  return {};
}

// Calls a driver function; a Python exception becomes request_error unless the caller handles it.
py_ref worker::call(const char* name, std::initializer_list<PyObject*> args) {
  py_ref f = fn(name);
  py_ref tuple(PyTuple_New(static_cast<Py_ssize_t>(args.size())));
  Py_ssize_t i = 0;
  for (PyObject* a : args) {
    Py_INCREF(a);
    PyTuple_SET_ITEM(tuple.get(), i++, a);
  }
  return py_ref(PyObject_CallObject(f.get(), tuple.get()));
}

void worker::handle(std::string_view op, simdjson::dom::element req, std::vector<std::byte>& payload) {
  if (op == "hello") return hello(req);
  if (op == "load") return load(req);
  if (op == "inputs") return inputs(req);
  if (op == "run") return run(req, payload);
  if (op == "time") return time(req, payload);
  if (op == "compile_baseline") return compile_baseline();
  if (op == "replay") return replay(req);
  if (op == "flops") return flops(req, payload);
  if (op == "ceilings") return ceilings();
  throw request_error(fmt::format("unknown request {}", op));
}

void worker::hello(simdjson::dom::element req) {
  nonce_ = std::string(req["nonce"].get_string().value());
  std::string dev_name(req["device"].get_string().value());
  std::string allocator(req["poison_allocator"].get_string().value());
  dev_ = make_device(dev_name);
  if (dev_->is_cuda()) poison_ = std::make_unique<cuda_poison>(allocator);
  // The driver module, from the copy compiled into this binary.
  auto files = util::worker_python_files();
  py_ref code(Py_CompileString(std::string(files[0].contents).c_str(), "headroom_driver.py", Py_file_input));
  if (!code) throw request_error("driver did not compile: " + take_python_error(nullptr).message);
  py_ref module(PyImport_ExecCodeModule("headroom_driver", code.get()));
  if (!module) {
    python_error e = take_python_error(nullptr);
    reply(fmt::format(R"("ok":false,"error":"setup","kind":"","message":{},"traceback":"")",
                      json_string("cannot import torch in this Python: " + e.message)));
    return;
  }
  for (const char* name : {"setup", "import_file", "init_inputs", "build_model", "compile_model", "make_inputs",
                           "parse_constants", "to_capsules", "output_capsules", "from_capsule", "call", "noop", "current_stream", "count_flops",
                           "matmul_rate", "guarded_functions", "changed_functions", "describe_exception",
                           "collect"}) {
    py_ref f(PyObject_GetAttrString(module.get(), name));
    if (!f) throw request_error(std::string("driver lacks ") + name);
    functions_[name] = f;
  }
  py_ref alloc_arg(PyUnicode_FromString(poison_ && poison_->available() ? allocator.c_str() : ""));
  py_ref dev_arg(PyUnicode_FromString(dev_name.c_str()));
  bool warm_record = true;  // false: this worker never records operators (driver.setup)
  if (req["warm_record"].get_bool().get(warm_record)) warm_record = true;
  py_ref warm_arg(PyBool_FromLong(warm_record ? 1 : 0));
  py_ref env = call("setup", {dev_arg.get(), alloc_arg.get(), warm_arg.get()});
  if (!env) return reply_python_error("setup");
  snapshot_ = call("guarded_functions", {});
  if (!snapshot_) return reply_python_error("setup");
  py_ref stream = call("current_stream", {});
  if (stream) dev_->set_stream(static_cast<std::uintptr_t>(PyLong_AsUnsignedLongLong(stream.get())));
  PyErr_Clear();
  reply(fmt::format(R"("ok":true,"env":{},"driver":{},"runtime":{},"clocks":{},"poison_allocator":{})",
                    to_string(env.get()), json_string(dev_->driver_version()),
                    json_string(dev_->runtime_version()), json_string(dev_->clocks()),
                    poison_ && poison_->available() ? "true" : "false"));
}

void worker::load(simdjson::dom::element req) {
  std::string path(req["path"].get_string().value());
  std::string build_dir(req["build_dir"].get_string().value());
  std::string cls(req["class"].get_string().value());
  bool compile_only = req["compile_only"].get_bool().value();
  // A candidate's outputs must be memory its calls got from the harness's allocators; the
  // reference's may be views of its inputs (a reshape), which is the problem's business.
  check_memory_ = cls == "ModelNew";
  py_ref path_arg(PyUnicode_FromString(path.c_str()));
  py_ref dir_arg(PyUnicode_FromString(build_dir.c_str()));
  module_ = call("import_file", {path_arg.get(), dir_arg.get()});
  if (!module_) {
    python_error e = take_python_error(fn("describe_exception").get());
    // load_inline raises RuntimeError("Error building extension ...") when the compiler fails.
    bool build = e.message.find("Error building extension") != std::string::npos ||
                 e.message.find("Error compiling objects") != std::string::npos;
    reply(fmt::format(R"("ok":false,"error":"{}","kind":"{}","message":{},"traceback":{})",
                      build ? "compile_error" : "load_error", e.kind, json_string(e.message),
                      json_string(e.traceback)));
    return;
  }
  if (compile_only) return reply(R"("ok":true)");
  std::string init;
  if (auto v = req["init_inputs"].get_string(); !v.error()) init = std::string(v.value());
  if (init.empty()) {
    py_ref s = call("init_inputs", {module_.get()});
    if (!s) return reply_python_error("load_error");
    init = to_string(s.get());
  }
  // The problem's arguments that are not tensors (the reference worker has them from get_inputs).
  if (std::string_view c; !req["constants"].get_string().get(c) && !set_constants(std::string(c)))
    return reply_python_error("load_error");
  py_ref init_arg(PyUnicode_FromString(init.c_str()));
  py_ref cls_arg(PyUnicode_FromString(cls.c_str()));
  py_ref seed(PyLong_FromLongLong(req["seed"].get_int64().value()));
  model_ = call("build_model", {module_.get(), cls_arg.get(), init_arg.get(), seed.get()});
  if (!model_) return reply_python_error("load_error");
  py_ref stream = call("current_stream", {});
  if (stream) dev_->set_stream(static_cast<std::uintptr_t>(PyLong_AsUnsignedLongLong(stream.get())));
  PyErr_Clear();
  reply(fmt::format(R"("ok":true,"init_inputs":{},"tampered":{})", json_string(init), tampered_json()));
}

std::string worker::tampered_json() {
  py_ref changed = call("changed_functions", {snapshot_.get()});
  if (!changed) {
    PyErr_Clear();
    return R"(["guard check failed"])";
  }
  std::string s = "[";
  Py_ssize_t n = PyList_Size(changed.get());
  for (Py_ssize_t i = 0; i < n; ++i)
    s += (i ? "," : "") + json_string(to_string(PyList_GetItem(changed.get(), i)));
  return s + "]";
}

// Outputs of the reference worker's problem: get_inputs() under a seed and a distribution.
void worker::inputs(simdjson::dom::element req) {
  py_ref seed(PyLong_FromLongLong(req["seed"].get_int64().value()));
  py_ref dist(PyLong_FromLongLong(req["distribution"].get_int64().value()));
  py_ref made;
  {
    util::phase_trace p("worker: get_inputs");
    made = call("make_inputs", {module_.get(), seed.get(), dist.get()});
  }
  if (!made) return reply_python_error("runtime_error");
  PyObject* list = PyTuple_GetItem(made.get(), 0);
  std::string constants = to_string(PyTuple_GetItem(made.get(), 1));
  // Parsed back from the JSON the candidate's worker gets: both call forward with the same values
  // (a tuple arrives as a list on either side).
  if (!set_constants(constants)) return reply_python_error("runtime_error");
  util::phase_trace p("worker: inputs to host");
  // Kept for the reference's forward on them ("kept_inputs"): the parent need not send back
  // what it was just sent, gigabytes for some problems.
  inputs_.clear();
  std::string metas;
  if (!read_tensors(list, inputs_, metas)) return reply_python_error("runtime_error");
  const std::span<const std::byte> part(inputs_);
  reply(fmt::format(R"("ok":true,"tensors":[{}],"constants":{})", metas, json_string(constants)),
        std::span(&part, 1));
}

// The arguments of every forward call that are not tensors, as JSON [[position, value], ...]
// (driver.make_inputs). False with the Python error set when they do not parse.
bool worker::set_constants(const std::string& json) {
  py_ref text(PyUnicode_FromString(json.c_str()));
  py_ref parsed = call("parse_constants", {text.get()});
  if (!parsed) return false;
  constants_ = parsed;
  return true;
}

void worker::set_poison(int byte) {
  set_cpu_poison(dev_->is_cuda() ? -1 : byte);
  if (poison_) poison_->set(byte);
}

// kept_inputs: on the inputs this worker holds (its inputs request's, or its previous run's: a
// candidate's second call on a trial's inputs), not on the payload.
void worker::run(simdjson::dom::element req, std::vector<std::byte>& sent) {
  if (!model_) throw request_error("no model loaded");
  auto metas = parse_metas(req["inputs"].get_array().value());
  bool kept = false;
  if (req["kept_inputs"].get_bool().get(kept)) kept = false;
  if (!kept) inputs_.swap(sent);  // the earlier inputs' buffer goes back to be read into
  const std::vector<std::byte>& payload = inputs_;
  std::size_t total = 0;
  for (const meta& m : metas) total += m.bytes;
  if (total != payload.size()) throw request_error("the inputs' sizes do not add up to the payload");
  int poison = static_cast<int>(req["poison"].get_int64().value());
  bool record_ops = req["record_ops"].get_bool().value();
  std::optional<util::phase_trace> phase(std::in_place, "worker: inputs to the device");
  built_inputs in = build_inputs(metas, payload.data(), false);
  phase.reset();
  py_ref args_list(PySequence_List(in.tuple.get()));
  py_ref record(PyBool_FromLong(record_ops));
  phase.emplace("worker: device done before forward");
  dev_->synchronize();
  phase.emplace("worker: forward returned");
  int threads_before = count_threads();
  set_poison(poison);
  begin_allocation_log();
  py_ref result = call("call", {model_.get(), args_list.get(), record.get()});
  end_allocation_log();
  set_poison(-1);
  if (!result) return reply_python_error("runtime_error");
  phase.emplace("worker: forward's device work done");
  dev_->synchronize();
  if (allocation_failed())
    return reply(fmt::format(R"("ok":false,"error":"runtime_error","kind":"out_of_memory","message":{})",
                             json_string(allocation_failure_text())));
  phase.reset();
  int threads_after = count_threads();
  ++calls_;
  // Threads PyTorch starts for itself appear during the first call; a thread still alive after
  // a later call returned is the candidate's, finishing work after the call (docs/eval.md).
  int added = calls_ > 1 ? std::max(0, threads_after - threads_before) : 0;
  std::string mutated;
  std::size_t at = 0;
  phase.emplace("worker: inputs unmodified?");
  for (std::size_t i = 0; i < metas.size(); ++i) {
    if (!dev_->equals_host(in.data[i], payload.data() + at, metas[i].bytes))
      mutated += fmt::format("{}{}", mutated.empty() ? "" : ",", i);
    at += metas[i].bytes;
  }
  PyObject* outputs = PyTuple_GetItem(result.get(), 0);
  PyObject* ops = PyTuple_GetItem(result.get(), 1);
  std::string ops_json = "null";
  if (ops != Py_None) {
    ops_json = "[";
    for (Py_ssize_t i = 0; i < PyList_Size(ops); ++i)
      ops_json += (i ? "," : "") + json_string(to_string(PyList_GetItem(ops, i)));
    ops_json += "]";
  }
  std::string common = fmt::format(R"("mutated":[{}],"threads_added":{},"tampered":{},"ops":{})", mutated, added,
                                   tampered_json(), ops_json);
  if (PyUnicode_Check(outputs))
    return reply(fmt::format(R"("ok":true,"invalid":{},"outputs":[],{})", json_string(to_string(outputs)), common));
  if (check_memory_) {
    std::string not_tensor;
    if (std::string foreign = foreign_outputs(outputs, not_tensor); !foreign.empty())
      return reply(fmt::format(R"("ok":true,"foreign":{},"outputs":[],{})", json_string(foreign), common));
  }
  std::vector<std::byte>& out_payload = outputs_;  // its pages are mapped after the first call
  out_payload.clear();
  std::string out_metas;
  phase.emplace("worker: outputs to host");
  if (!read_tensors(outputs, out_payload, out_metas)) return reply_python_error("runtime_error");
  phase.reset();
  reply(fmt::format(R"("ok":true,"outputs":[{}],{})", out_metas, common), out_payload);
}

void worker::compile_baseline() {
  py_ref compiled = call("compile_model", {model_.get()});
  if (!compiled) return reply_python_error("runtime_error");
  if (compiled.get() == Py_None) return reply(R"("ok":true,"available":false)");
  if (!eager_model_) eager_model_ = model_;  // replays run the eager model
  model_ = compiled;
  reply(R"("ok":true,"available":true)");
}

// kept_sets: on the first set of the previous timing request (its leading bytes), not the payload.
void worker::flops(simdjson::dom::element req, const std::vector<std::byte>& sent) {
  if (!model_) throw request_error("no model loaded");
  auto metas = parse_metas(req["inputs"].get_array().value());
  bool kept = false;
  if (req["kept_sets"].get_bool().get(kept)) kept = false;
  const std::vector<std::byte>& payload = kept ? timing_inputs_ : sent;
  std::size_t total = 0;
  for (const meta& m : metas) total += m.bytes;
  if (total > payload.size()) throw request_error("the inputs' sizes exceed the payload");
  built_inputs in = build_inputs(metas, payload.data(), false);
  py_ref list(PySequence_List(in.tuple.get()));
  py_ref n = call("count_flops", {model_.get(), list.get()});
  if (!n) {
    PyErr_Clear();
    return reply(R"("ok":true,"flops":-1)");
  }
  reply(fmt::format(R"("ok":true,"flops":{})", PyLong_AsLongLong(n.get())));
}

void worker::ceilings() {
  double bw = dev_->copy_bandwidth();
  py_ref rate = call("matmul_rate", {});
  double mm = rate ? PyFloat_AsDouble(rate.get()) : -1;
  PyErr_Clear();
  reply(fmt::format(R"("ok":true,"bandwidth":{},"matmul":{})", bw, mm));
}

}  // namespace headroom::worker
