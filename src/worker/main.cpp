// headroom-worker: the untrusted half of an evaluation (docs/eval.md, "Processes"). It embeds the
// Python interpreter of the environment given with --python, runs one problem or one candidate,
// and answers the parent's requests over a pipe pair. Copies, poisoning, input checks and timing
// are here in C++; driver.py does what needs Python objects.
#include <fcntl.h>
#include <sched.h>
#include <malloc.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <simdjson.h>

#include "headroom/util/parallel.hpp"
#include "headroom/util/phase_trace.hpp"
#include "headroom/sandbox/channel.hpp"
#include "headroom/eval/tensor.hpp"
#include "headroom/worker/timing_stats.hpp"
#include "headroom/util/embedded.hpp"
#include "headroom/util/json.hpp"
#include "headroom/worker/device.hpp"
#include "worker/dlpack.hpp"
#include "worker/output_memory.hpp"
#include "worker/poison.hpp"
#include "worker/python.hpp"
#include "worker/thread_pin.hpp"

namespace headroom::util {
std::span<const embedded_file> worker_python_files();
}

namespace headroom::worker {
namespace {

using sandbox::prefault;
using sandbox::read_message;
using sandbox::read_result;
using sandbox::read_status;
using sandbox::shared_region;
using sandbox::write_message;
using util::json_string;

struct meta {
  dtype type;
  std::vector<std::int64_t> shape;
  std::size_t bytes;
};

// A request could not be served; the text goes back as a runtime error.
struct request_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using util::count_threads;

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

dlpack::data_type dl_type(dtype t) {
  switch (t) {
    case dtype::f64: return {dlpack::float_code, 64, 1};
    case dtype::f32: return {dlpack::float_code, 32, 1};
    case dtype::f16: return {dlpack::float_code, 16, 1};
    case dtype::bf16: return {dlpack::bfloat_code, 16, 1};
    case dtype::i64: return {dlpack::int_code, 64, 1};
    case dtype::i32: return {dlpack::int_code, 32, 1};
    case dtype::i16: return {dlpack::int_code, 16, 1};
    case dtype::i8: return {dlpack::int_code, 8, 1};
    case dtype::u8:
    case dtype::boolean: return {dlpack::uint_code, 8, 1};  // bool travels as uint8 (driver.from_capsule)
  }
  return {dlpack::uint_code, 8, 1};
}

struct owned_buffer {
  device* dev;
  void* data;
  std::vector<std::int64_t> shape;
};

void delete_managed(dlpack::managed_tensor* self) {
  auto* o = static_cast<owned_buffer*>(self->manager_ctx);
  o->dev->release(o->data);
  delete o;
  delete self;
}

void capsule_destructor(PyObject* capsule) {
  // Only a capsule nobody consumed still owns its tensor.
  if (PyCapsule_IsValid(capsule, dlpack::capsule_name)) {
    auto* mt = static_cast<dlpack::managed_tensor*>(PyCapsule_GetPointer(capsule, dlpack::capsule_name));
    if (mt && mt->deleter) mt->deleter(mt);
  }
}

class worker {
 public:
  worker(int in_fd, int out_fd, shared_region in_region, shared_region out_region)
      : in_(in_fd), out_(out_fd), in_region_(in_region), out_region_(out_region),
        trace_(std::getenv("HEADROOM_WORKER_TRACE") != nullptr) {}

  int serve() {
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

 private:
  // The payload is gathered from `parts` as it is written (bytes the worker keeps, or one buffer).
  void reply(const std::string& fields, std::span<const std::span<const std::byte>> parts = {}) {
    if (!write_message(out_, fmt::format(R"({{"nonce":{},{}}})", json_string(nonce_), fields), parts, out_region_, 0))
      std::_Exit(4);
  }
  void reply(const std::string& fields, const std::vector<std::byte>& payload) {
    const std::span<const std::byte> part(payload);
    reply(fields, std::span(&part, 1));
  }

  // A device allocation failed during this request: PyTorch's pluggable allocator hands the
  // candidate a tensor at address 0 instead of raising, so whatever failed next (an illegal address,
  // usually) is a consequence; the request is reported as out of memory.
  unsigned long long failed_allocations() const { return poison_ ? poison_->failed_allocations() : 0; }
  bool allocation_failed() const { return failed_allocations() > failed_before_; }
  std::string allocation_failure_text() const {
    return fmt::format("CUDA out of memory: {} device allocation(s) failed during the call",
                       failed_allocations() - failed_before_);
  }

  void reply_python_error(const char* error) {
    python_error e = take_python_error(fn("describe_exception").get());
    if (allocation_failed()) {
      e.kind = "out_of_memory";
      e.message = allocation_failure_text() + "; then: " + e.message;
    }
    reply(fmt::format(R"("ok":false,"error":"{}","kind":"{}","message":{},"traceback":{})", error, e.kind,
                      json_string(e.message), json_string(e.traceback)));
  }

  py_ref fn(const char* name) {
    auto it = functions_.find(name);
    if (it != functions_.end()) return it->second;
    return {};
  }

  // Calls a driver function; a Python exception becomes request_error unless the caller handles it.
  py_ref call(const char* name, std::initializer_list<PyObject*> args) {
    py_ref f = fn(name);
    py_ref tuple(PyTuple_New(static_cast<Py_ssize_t>(args.size())));
    Py_ssize_t i = 0;
    for (PyObject* a : args) {
      Py_INCREF(a);
      PyTuple_SET_ITEM(tuple.get(), i++, a);
    }
    return py_ref(PyObject_CallObject(f.get(), tuple.get()));
  }

  void handle(std::string_view op, simdjson::dom::element req, std::vector<std::byte>& payload) {
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

  void hello(simdjson::dom::element req) {
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

  void load(simdjson::dom::element req) {
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

  std::string tampered_json() {
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
  void inputs(simdjson::dom::element req) {
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
  bool set_constants(const std::string& json) {
    py_ref text(PyUnicode_FromString(json.c_str()));
    py_ref parsed = call("parse_constants", {text.get()});
    if (!parsed) return false;
    constants_ = parsed;
    return true;
  }

  // Copies tensors (a Python list) out through DLPack; appends bytes and meta JSON.
  bool read_tensors(PyObject* list, std::vector<std::byte>& payload, std::string& metas) {
    py_ref caps = call("to_capsules", {list});
    if (!caps) return false;
    Py_ssize_t n = PyList_Size(caps.get());
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject* item = PyList_GetItem(caps.get(), i);
      std::string name = to_string(PyTuple_GetItem(item, 0));
      auto* mt = static_cast<dlpack::managed_tensor*>(PyCapsule_GetPointer(PyTuple_GetItem(item, 1), dlpack::capsule_name));
      if (!mt) return false;
      const dlpack::tensor& t = mt->dl_tensor;
      meta m;
      auto type = parse_dtype(name);
      if (!type) throw request_error("output of unsupported dtype " + name);
      m.type = *type;
      m.shape.assign(t.shape, t.shape + t.ndim);
      std::size_t numel = 1;
      for (auto d : m.shape) numel *= static_cast<std::size_t>(d);
      m.bytes = numel * dtype_size(m.type);
      std::size_t at = payload.size();
      if (payload.capacity() < at + m.bytes) {  // fresh pages: mapped in one go, then zero-filled
        payload.reserve(at + m.bytes);
        prefault(payload.data() + at, m.bytes, 0);
      }
      payload.resize(at + m.bytes);
      const char* src = static_cast<const char*>(t.data) + t.byte_offset;
      if (m.bytes) {
        if (t.dev.type == dlpack::cuda) dev_->copy_to_host(payload.data() + at, src, m.bytes);
        else std::memcpy(payload.data() + at, src, m.bytes);
      }
      metas += (metas.empty() ? "" : ",") + meta_json(m);
    }
    return true;
  }

  // A tensor on the device in memory we own, holding `bytes` (on the host, or on the device when
  // `device_src`). Returns the Python tensor; `data` receives the buffer.
  py_ref make_tensor(const meta& m, const void* src, bool device_src, void** data) {
    auto* o = new owned_buffer{dev_.get(), dev_->allocate(m.bytes), m.shape};
    if (m.bytes) {
      if (device_src) dev_->copy_on_device(o->data, src, m.bytes);
      else dev_->copy_to_device(o->data, src, m.bytes);
    }
    *data = o->data;
    auto* mt = new dlpack::managed_tensor{};
    mt->dl_tensor.data = o->data;
    mt->dl_tensor.dev = {dev_->is_cuda() ? dlpack::cuda : dlpack::cpu, dev_->is_cuda() ? dev_->index() : 0};
    mt->dl_tensor.ndim = static_cast<std::int32_t>(o->shape.size());
    mt->dl_tensor.dtype = dl_type(m.type);
    mt->dl_tensor.shape = o->shape.data();
    mt->dl_tensor.strides = nullptr;
    mt->manager_ctx = o;
    mt->deleter = delete_managed;
    py_ref capsule(PyCapsule_New(mt, dlpack::capsule_name, capsule_destructor));
    py_ref name(PyUnicode_FromString(std::string(dtype_name(m.type)).c_str()));
    py_ref t = call("from_capsule", {capsule.get(), name.get()});
    if (!t) throw request_error("cannot hand an input to PyTorch: " + take_python_error(nullptr).message);
    return t;
  }

  struct built_inputs {
    py_ref tuple;
    std::vector<void*> data;
  };

  // The forward's arguments: the tensors of `metas` in order, with the problem's constants at their
  // positions (constants_). b.data holds the tensors' buffers only, in the order of `metas`.
  built_inputs build_inputs(const std::vector<meta>& metas, const std::byte* src, bool device_src,
                            const std::vector<const void*>* device_sources = nullptr) {
    built_inputs b;
    const Py_ssize_t n_constants = constants_ ? PyList_Size(constants_.get()) : 0;
    const auto total = static_cast<Py_ssize_t>(metas.size()) + n_constants;
    b.tuple = py_ref(PyTuple_New(total));
    for (Py_ssize_t k = 0; k < n_constants; ++k) {
      PyObject* pair = PyList_GetItem(constants_.get(), k);
      Py_ssize_t position = PyLong_AsSsize_t(PyTuple_GetItem(pair, 0));
      if (position < 0 || position >= total)
        throw request_error(fmt::format("a constant argument at position {} of {}", position, total));
      PyObject* value = PyTuple_GetItem(pair, 1);
      Py_INCREF(value);
      PyTuple_SET_ITEM(b.tuple.get(), position, value);
    }
    std::size_t at = 0;
    Py_ssize_t slot = 0;
    for (std::size_t i = 0; i < metas.size(); ++i) {
      while (slot < total && PyTuple_GET_ITEM(b.tuple.get(), slot) != nullptr) ++slot;  // a constant's position
      if (slot == total) throw request_error("constant arguments overlap");
      void* data = nullptr;
      const void* from = device_sources ? (*device_sources)[i] : src + at;
      py_ref t = make_tensor(metas[i], from, device_src, &data);
      PyTuple_SET_ITEM(b.tuple.get(), slot++, t.get());
      Py_INCREF(t.get());
      b.data.push_back(data);
      at += metas[i].bytes;
    }
    return b;
  }

  // The blocks the allocators hand out during a candidate's call are logged (output_memory.hpp).
  void begin_allocation_log() {
    cpu_allocations().begin();
    if (poison_) poison_->begin_log();
  }
  void end_allocation_log() {
    cpu_allocations().end();
    if (poison_) poison_->end_log();
  }

  // Where the outputs of `value` (forward's result) live: empty when every one is memory the
  // allocators handed out during the call just logged; otherwise why not. `not_tensor` receives
  // the message when the result is not tensors at all.
  std::string foreign_outputs(PyObject* value, std::string& not_tensor) {
    py_ref caps = call("output_capsules", {value});
    if (!caps) {
      python_error e = take_python_error(nullptr);
      return "its outputs could not be inspected: " + e.message;
    }
    if (PyUnicode_Check(caps.get())) {
      not_tensor = to_string(caps.get());
      return {};
    }
    std::vector<output_extent> extents;
    for (Py_ssize_t i = 0; i < PyList_Size(caps.get()); ++i) {
      auto* mt = static_cast<dlpack::managed_tensor*>(PyCapsule_GetPointer(PyList_GetItem(caps.get(), i), dlpack::capsule_name));
      if (!mt) {
        PyErr_Clear();
        return fmt::format("output {} could not be inspected", i);
      }
      const dlpack::tensor& t = mt->dl_tensor;
      std::size_t element = t.dtype.bits / 8 * t.dtype.lanes;
      std::int64_t last = 0;  // the farthest element's offset, in elements
      bool empty = false;
      for (std::int32_t d = 0; d < t.ndim; ++d) {
        if (t.shape[d] == 0) empty = true;
        std::int64_t stride = t.strides ? t.strides[d] : 1;
        if (!t.strides)
          for (std::int32_t e = d + 1; e < t.ndim; ++e) stride *= t.shape[e];
        if (t.shape[d] > 0) last += (t.shape[d] - 1) * stride;
      }
      output_extent x;
      x.begin = static_cast<const char*>(t.data) + t.byte_offset;
      x.bytes = empty ? 0 : static_cast<std::size_t>(last + 1) * element;
      x.on_device = t.dev.type == dlpack::cuda;
      extents.push_back(x);
    }
    return check_output_memory(extents, cpu_allocations(), poison_.get());
  }

  void set_poison(int byte) {
    set_cpu_poison(dev_->is_cuda() ? -1 : byte);
    if (poison_) poison_->set(byte);
  }

  // kept_inputs: on the inputs this worker holds (its inputs request's, or its previous run's: a
  // candidate's second call on a trial's inputs), not on the payload.
  void run(simdjson::dom::element req, std::vector<std::byte>& sent) {
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

  // kept_sets: time on the sets of this worker's previous timing request (the reference is timed
  // several ways on the same sets), not on the payload.
  void time(simdjson::dom::element req, std::vector<std::byte>& sent) {
    if (!model_) throw request_error("no model loaded");
    std::vector<std::vector<meta>> sets;
    simdjson::dom::array set_list = req["sets"].get_array().value();
    for (simdjson::dom::element s : set_list) sets.push_back(parse_metas(s.get_array().value()));
    if (sets.empty()) throw request_error("no input sets to time");
    bool kept = false, from_inputs = false;
    if (req["kept_sets"].get_bool().get(kept)) kept = false;
    // sets_from_inputs: the one set is the last inputs request's tensors, which this worker made and
    // kept (the reference's), so the parent need not send them back.
    if (req["sets_from_inputs"].get_bool().get(from_inputs)) from_inputs = false;
    if (from_inputs) timing_inputs_.swap(inputs_);
    else if (!kept) timing_inputs_.swap(sent);
    const std::vector<std::byte>& payload = timing_inputs_;
    std::size_t total = 0;
    for (const auto& set : sets)
      for (const meta& m : set) total += m.bytes;
    if (total != payload.size()) throw request_error("the timing sets' sizes do not add up to the payload");
    timing_sets_ = sets;
    stopping_rule rule;
    rule.min_samples = static_cast<int>(req["min_samples"].get_int64().value());
    rule.max_samples = static_cast<int>(req["max_samples"].get_int64().value());
    rule.max_seconds = req["max_seconds"].get_double().value();
    rule.target_spread = req["target_spread"].get_double().value();
    int warmup = static_cast<int>(req["warmup"].get_int64().value());
    auto check_budget = static_cast<double>(req["check_bytes"].get_uint64().value());
    bool check_outputs = req["check_outputs"].get_bool().value();
    // cpu: the CPU this thread runs the timed calls on (paired rounds put both workers on one). The
    // pin begins after the warm-up calls: a thread started while pinned would inherit the one CPU
    // (the hold's watchdog, PyTorch's CPU thread pool and CUDA's threads start on first use).
    std::int64_t cpu = -1;
    if (req["cpu"].get_int64().get(cpu)) cpu = -1;
    std::optional<thread_pin> pin;

    // Every call gets fresh inputs (docs/eval.md, "Integrity inside the worker"): the parent names
    // each call's input set and seed only when the call is about to run, and every floating input
    // is the set's pristine copy with each element multiplied by a factor drawn from that seed.
    // symmetric[m]: input m is n x n in its last two dims and symmetric (its factors are too).
    std::vector<std::uint64_t> symmetric;
    if (simdjson::dom::array sym; !req["symmetric"].get_array().get(sym))
      for (simdjson::dom::element x : sym) symmetric.push_back(x.get_uint64().value());
    std::uint64_t sketch_seed = 0;
    if (req["sketch_seed"].get_uint64().get(sketch_seed)) sketch_seed = 0;
    pristine_sets pristine = upload_sets(sets, payload);
    auto release = [&] { release_sets(pristine); };

    // Launches held behind a gate (device.hpp): the events measure device time, not dispatch.
    bool hold = false;
    if (dev_->is_cuda() && req["hold"].get_bool().get(hold)) hold = false;
    int hold_timeouts = 0;

    // The empty call: what the path costs without any work, subtracted from the wall clock and tail.
    py_ref noop = fn("noop");
    auto measure_empty_call = [&](bool held) {
      std::vector<double> walls, tails;
      for (int i = 0; i < 21; ++i) {
        dev_->start_timer(held);
        py_ref r(PyObject_CallNoArgs(noop.get()));
        dev_->call_returned();
        device::times t = dev_->stop_timer();
        walls.push_back(t.wall_ms);
        tails.push_back(t.tail_ms);
      }
      return empty_call{median_of(walls), median_of(tails)};
    };
    empty_call empty = measure_empty_call(hold);

    std::mt19937_64 rng(std::random_device{}());
    sample_set samples;
    unsigned clock_limit = dev_->sm_clock_max_mhz(), clock_min = ~0u, clock_max = 0;
    int dropped = 0;
    std::vector<std::byte>& out_payload = outputs_;
    out_payload.clear();
    std::string checked, calls;
    double checked_bytes = 0;
    double begin = host_ms();
    for (int i = 0;; ++i) {
      if (i == warmup && cpu >= 0) pin.emplace(static_cast<int>(cpu));
      call_plan plan = ask_call(i, sets.size());
      built_inputs in = fresh_inputs(sets[plan.set], pristine[plan.set], plan.seed, symmetric);
      dev_->flush_caches();
      // The parent notes the call's start and end by its own clock (timing_log.hpp).
      simdjson::dom::parser announce;
      ask_parent(announce, "start", i);
      begin_allocation_log();
      dev_->start_timer(hold);
      py_ref result(PyObject_CallObject(model_.get(), in.tuple.get()));
      dev_->call_returned();
      end_allocation_log();
      if (!result) {
        dev_->stop_timer();  // opens the gate
        release();
        return reply_python_error("runtime_error");
      }
      device::times t = dev_->stop_timer();
      ask_parent(announce, "done", i);
      // Every timed call's result is checked as a checked call's is: tensors, in memory the call
      // got from the harness's allocators (a candidate that knows when it is timed gains nothing).
      if (check_memory_) {
        std::string not_tensor;
        std::string foreign = foreign_outputs(result.get(), not_tensor);
        if (!not_tensor.empty() || !foreign.empty()) {
          release();
          return reply(fmt::format(R"("ok":true,"{}":{},"call":{})", not_tensor.empty() ? "foreign" : "invalid",
                                   json_string(not_tensor.empty() ? foreign : not_tensor), i));
        }
      }
      if (t.hold_timed_out) {
        ++hold_timeouts;
        // A first call may wait for the device once: a library's handle or workspace made on first
        // use synchronises it. A timeout in the warm-up is tried again once.
        if (i < warmup && hold_timeouts == 1) continue;
        // The call waited for its own stream (or dispatched for longer than the gate waits): it
        // cannot be timed with held launches. This sample is discarded; the rest are timed with
        // the dispatch included, and the reply says so.
        hold = false;
        empty = measure_empty_call(false);
        samples = sample_set{};
        calls.clear();
        continue;
      }
      bool warm = i < warmup;
      // nvbench's rule: a sample taken below 75% of the maximum SM clock measures the throttle,
      // not the kernel; it is dropped (and counted).
      unsigned mhz = dev_->sm_clock_mhz();
      if (mhz) {
        clock_min = std::min(clock_min, mhz);
        clock_max = std::max(clock_max, mhz);
      }
      // If the clock stays low (a power-capped or shared GPU), dropping would never end: after as
      // many drops as kept samples (and at least 20) the samples are kept and the count says so.
      bool throttled = mhz && clock_limit && mhz < clock_limit * 3 / 4 && dropped < std::max(20, samples.size());
      if (!warm && throttled) ++dropped;
      if (!warm && !throttled) {
        samples.add(make_sample(t.event_ms, t.wall_ms, t.host_ms, t.tail_ms, t.held));
        // Each kept call with its times and the sketch of its outputs: the parent bounds the times
        // by its own clock and checks sketches of calls it picks afterwards against the reference.
        std::string sketch = sketch_seed ? sketch_outputs(result.get(), sketch_seed) : "[]";
        calls += fmt::format(R"({}{{"call":{},"event_ms":{},"host_ms":{},"wall_ms":{},"tail_ms":{},"sketch":{}}})",
                             calls.empty() ? "" : ",", i, t.event_ms, t.host_ms, t.wall_ms, t.tail_ms, sketch);
      }
      // Which timed outputs come back whole is decided here: the first one, then at random within
      // the byte budget. Any other kept call may be checked through its sketch.
      bool check = false;
      if (check_outputs && !warm && !throttled) {
        double p = checked.empty() ? 1.0 : std::min(1.0, check_budget / std::max(1.0, checked_bytes + 1) / 4);
        check = checked.empty() || (checked_bytes < check_budget && std::uniform_real_distribution<>(0, 1)(rng) < p);
      }
      if (check) {
        std::string metas;
        std::size_t before = out_payload.size();
        if (!read_result_tensors(result.get(), out_payload, metas)) {
          release();
          return reply_python_error("runtime_error");
        }
        checked_bytes += static_cast<double>(out_payload.size() - before);
        checked += fmt::format(R"({}{{"call":{},"set":{},"outputs":[{}]}})", checked.empty() ? "" : ",", i, plan.set, metas);
      }
      double elapsed = (host_ms() - begin) / 1000.0;
      if (!warm && samples.done(rule, elapsed)) break;
      if (!warm && elapsed > 3 * rule.max_seconds) break;  // throttled throughout: give up with what there is
    }
    release();
    ++time_requests_;
    timing_summary s = samples.summarize(empty);
    reply(fmt::format(R"("ok":true,"timing":{{"samples":{},"median_ms":{},"mean_ms":{},"stddev_ms":{},"min_ms":{},"max_ms":{},"rel_spread":{},"wall_median_ms":{},"score_ms":{},"host_median_ms":{},"tail_median_ms":{},"held":{},"host_bound":{},"device_median_ms":{},"device_cost_ms":{},"hold_mechanism":{},"hold_timeouts":{},"empty_wall_ms":{},"empty_tail_ms":{},"sm_clock_min_mhz":{},"sm_clock_max_mhz":{},"throttled_samples":{},"pinned":{}}},"calls":[{}],"checked":[{}],"tampered":{})",
                      s.samples, s.median_ms, s.mean_ms, s.stddev_ms, s.min_ms, s.max_ms, s.rel_spread,
                      s.wall_median_ms, s.score_ms, s.host_median_ms, s.tail_median_ms, hold, s.host_bound, s.device_median_ms, s.device_cost_ms,
                      json_string(hold ? dev_->hold_mechanism() : std::string()), hold_timeouts,
                      empty.wall_ms, empty.tail_ms, clock_max ? clock_min : 0, clock_max, dropped, pin && pin->pinned(), calls, checked,
                      tampered_json()),
          out_payload);
  }

  // A call's plan, from the parent: which input set, and the seed of its fresh inputs.
  struct call_plan {
    std::size_t set = 0;
    std::uint64_t seed = 0;
  };
  // A question to the parent within a request; its answer, parsed into `parser`.
  simdjson::dom::element ask_parent(simdjson::dom::parser& parser, const char* what, int call) {
    if (!write_message(out_, sandbox::message{fmt::format(R"({{"nonce":{},"ask":"{}","call":{}}})", json_string(nonce_),
                                                          what, call),
                                              {}}))
      std::_Exit(4);
    read_result r = read_message(in_, std::nullopt);
    if (r.status != read_status::ok) std::_Exit(r.status == read_status::closed ? 0 : 3);
    simdjson::dom::element doc;
    if (parser.parse(r.msg.header).get(doc)) throw request_error("the parent's answer to a question is not JSON");
    return doc;
  }
  call_plan ask_call(int call, std::size_t sets) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc = ask_parent(parser, "call", call);
    call_plan plan;
    plan.set = static_cast<std::size_t>(doc["set"].get_uint64().value());
    plan.seed = doc["seed"].get_uint64().value();
    if (plan.set >= sets) throw request_error("the parent named an input set that was not sent");
    return plan;
  }

  // The timing sets' pristine copies on the device; each call makes its fresh inputs from one.
  using pristine_sets = std::vector<std::vector<void*>>;
  pristine_sets upload_sets(const std::vector<std::vector<meta>>& sets, const std::vector<std::byte>& payload) {
    pristine_sets pristine(sets.size());
    std::size_t at = 0;
    for (std::size_t k = 0; k < sets.size(); ++k)
      for (const meta& m : sets[k]) {
        void* p = dev_->allocate(m.bytes);
        if (m.bytes) dev_->copy_to_device(p, payload.data() + at, m.bytes);
        pristine[k].push_back(p);
        at += m.bytes;
      }
    return pristine;
  }
  void release_sets(pristine_sets& pristine) {
    for (auto& v : pristine)
      for (void* p : v) dev_->release(p);
    pristine.clear();
  }

  // A call's inputs: every floating tensor of the pristine set perturbed under the call's seed
  // (fresh_inputs.hpp), every other tensor copied as it is.
  built_inputs fresh_inputs(const std::vector<meta>& set, const std::vector<void*>& pristine, std::uint64_t seed,
                            const std::vector<std::uint64_t>& symmetric) {
    std::vector<const void*> srcs(pristine.begin(), pristine.end());
    built_inputs in = build_inputs(set, nullptr, true, &srcs);
    for (std::size_t m = 0; m < set.size(); ++m) {
      if (!is_floating(set[m].type) || set[m].bytes == 0) continue;
      std::size_t numel = set[m].bytes / dtype_size(set[m].type);
      dev_->perturbed_copy(in.data[m], pristine[m], set[m].type, numel, input_seed(seed, m),
                           m < symmetric.size() ? symmetric[m] : 0);
    }
    return in;
  }

  // The sketches of a result's outputs, as JSON: one array of sketch_width numbers per output (null
  // for a value that is not finite).
  std::string sketch_outputs(PyObject* result, std::uint64_t seed) {
    py_ref list = result_list(result);
    py_ref caps = call("to_capsules", {list.get()});
    if (!caps) {
      PyErr_Clear();
      return "[]";
    }
    std::string out = "[";
    for (Py_ssize_t i = 0; i < PyList_Size(caps.get()); ++i) {
      PyObject* item = PyList_GetItem(caps.get(), i);
      auto type = parse_dtype(to_string(PyTuple_GetItem(item, 0)));
      auto* mt = static_cast<dlpack::managed_tensor*>(PyCapsule_GetPointer(PyTuple_GetItem(item, 1), dlpack::capsule_name));
      if (!mt || !type) {
        PyErr_Clear();
        return "[]";
      }
      const dlpack::tensor& t = mt->dl_tensor;
      std::size_t numel = 1;
      for (std::int32_t d = 0; d < t.ndim; ++d) numel *= static_cast<std::size_t>(t.shape[d]);
      auto v = dev_->sketch(static_cast<const char*>(t.data) + t.byte_offset, *type == dtype::boolean ? dtype::u8 : *type,
                            numel, seed);
      out += i ? ",[" : "[";
      for (std::size_t k = 0; k < v.size(); ++k)
        out += (k ? "," : "") + (std::isfinite(v[k]) ? fmt::format("{:.17g}", v[k]) : std::string("null"));
      out += "]";
    }
    return out + "]";
  }

  // forward's result as a Python list of its outputs.
  py_ref result_list(PyObject* result) {
    if (PyTuple_Check(result) || PyList_Check(result)) return py_ref(PySequence_List(result));
    py_ref list(PyList_New(0));
    PyList_Append(list.get(), result);
    return list;
  }
  bool read_result_tensors(PyObject* result, std::vector<std::byte>& payload, std::string& metas) {
    py_ref list = result_list(result);
    return read_tensors(list.get(), payload, metas);
  }

  void compile_baseline() {
    py_ref compiled = call("compile_model", {model_.get()});
    if (!compiled) return reply_python_error("runtime_error");
    if (compiled.get() == Py_None) return reply(R"("ok":true,"available":false)");
    if (!eager_model_) eager_model_ = model_;  // replays run the eager model
    model_ = compiled;
    reply(R"("ok":true,"available":true)");
  }

  // The reference's side of the check of timed calls (docs/eval.md, "Integrity inside the worker"):
  // calls of a candidate's timing run again here, on the same fresh inputs (the same sets, kept from
  // this worker's own timing, and the same seeds), with the eager model; for each, the sketch of
  // the outputs, and for those asked whole, the outputs themselves.
  void replay(simdjson::dom::element req) {
    py_ref model = eager_model_ ? eager_model_ : model_;
    if (!model) throw request_error("no model loaded");
    if (timing_sets_.empty()) throw request_error("no timing sets kept to replay on");
    std::vector<std::uint64_t> symmetric;
    if (simdjson::dom::array sym; !req["symmetric"].get_array().get(sym))
      for (simdjson::dom::element x : sym) symmetric.push_back(x.get_uint64().value());
    std::uint64_t sketch_seed = req["sketch_seed"].get_uint64().value();
    pristine_sets pristine = upload_sets(timing_sets_, timing_inputs_);
    std::vector<std::byte>& out_payload = outputs_;
    out_payload.clear();
    std::string sketches, whole;
    simdjson::dom::array list = req["calls"].get_array().value();
    for (simdjson::dom::element c : list) {
      auto set = static_cast<std::size_t>(c["set"].get_uint64().value());
      std::uint64_t seed = c["seed"].get_uint64().value();
      bool full = false;
      if (c["whole"].get_bool().get(full)) full = false;
      if (set >= timing_sets_.size()) {
        release_sets(pristine);
        throw request_error("a replay names an input set that was not kept");
      }
      built_inputs in = fresh_inputs(timing_sets_[set], pristine[set], seed, symmetric);
      py_ref result(PyObject_CallObject(model.get(), in.tuple.get()));
      if (!result) {
        release_sets(pristine);
        return reply_python_error("runtime_error");
      }
      dev_->synchronize();
      sketches += (sketches.empty() ? "" : ",") + sketch_outputs(result.get(), sketch_seed);
      std::string metas;
      if (full) {
        if (!read_result_tensors(result.get(), out_payload, metas)) {
          release_sets(pristine);
          return reply_python_error("runtime_error");
        }
      }
      whole += fmt::format("{}[{}]", whole.empty() ? "" : ",", metas);
    }
    release_sets(pristine);
    reply(fmt::format(R"("ok":true,"sketches":[{}],"outputs":[{}])", sketches, whole), out_payload);
  }

  // kept_sets: on the first set of the previous timing request (its leading bytes), not the payload.
  void flops(simdjson::dom::element req, const std::vector<std::byte>& sent) {
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

  void ceilings() {
    double bw = dev_->copy_bandwidth();
    py_ref rate = call("matmul_rate", {});
    double mm = rate ? PyFloat_AsDouble(rate.get()) : -1;
    PyErr_Clear();
    reply(fmt::format(R"("ok":true,"bandwidth":{},"matmul":{})", bw, mm));
  }

  int in_, out_;
  shared_region in_region_, out_region_;  // big payloads each way (fd -1: files in /dev/shm)
  bool trace_;
  std::string nonce_;
  std::unique_ptr<device> dev_;
  std::unique_ptr<cuda_poison> poison_;
  unsigned long long failed_before_ = 0;
  std::map<std::string, py_ref, std::less<>> functions_;
  py_ref module_, model_, snapshot_;
  py_ref eager_model_;  // the reference's eager model once compile_baseline replaced model_ (replays)
  std::vector<std::vector<meta>> timing_sets_;  // the metas of the sets in timing_inputs_
  py_ref constants_;                      // [(position, value)]: the forward's non-tensor arguments
  std::vector<std::byte> inputs_;         // the last inputs request's tensors, or the last run's inputs
  std::vector<std::byte> timing_inputs_;  // the last timing request's sets
  std::vector<std::byte> outputs_;        // the last answer's output tensors
  std::vector<std::byte> spare_;          // a payload buffer to read the next request into
  int calls_ = 0;
  int time_requests_ = 0;
  bool check_memory_ = false;  // the outputs' memory is checked (a candidate's worker)
};

// The channel moves to high, close-on-exec descriptors and stdout becomes stderr: whatever the
// candidate prints cannot land in the channel by accident.
int hide_fd(int fd) {
  int high = fcntl(fd, F_DUPFD_CLOEXEC, 900);
  if (high < 0) return fd;
  close(fd);
  return high;
}

}  // namespace
}  // namespace headroom::worker

int main(int argc, char** argv) {
  std::string python = "python3";
  int in_fd = -1, out_fd = -1;
  headroom::sandbox::shared_region in_region, out_region;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--python") python = argv[i + 1];
    else if (a == "--in") in_fd = std::atoi(argv[i + 1]);
    else if (a == "--out") out_fd = std::atoi(argv[i + 1]);
    else if (a == "--payload-in") in_region.fd = std::atoi(argv[i + 1]);
    else if (a == "--payload-out") out_region.fd = std::atoi(argv[i + 1]);
  }
  if (in_fd < 0 || out_fd < 0) {
    std::fprintf(stderr,
                 "headroom-worker is started by `headroom eval` and speaks its protocol over two pipes;\n"
                 "usage: headroom-worker --python EXE --in FD --out FD [--payload-in FD --payload-out FD]\n");
    return 2;
  }
  using namespace headroom::worker;
  // Inputs and outputs of gigabytes come and go every call: freed memory stays in the heap for the
  // next one instead of being returned to the kernel and faulted in again.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  in_fd = hide_fd(in_fd);
  out_fd = hide_fd(out_fd);
  if (in_region.fd >= 0) in_region.fd = hide_fd(in_region.fd);
  if (out_region.fd >= 0) out_region.fd = hide_fd(out_region.fd);
  // Another process of this user cannot open this one's descriptors or memory through /proc (the
  // regions, the reference's outputs); execve made it dumpable again.
  prctl(PR_SET_DUMPABLE, 0);
  dup2(2, 1);
  // Copies and page mapping of gigabyte payloads on every core (one thread moved 6 GiB through the
  // shared region at 2-4 GB/s on the H200 host), on threads that live as long as the process: the
  // thread count around a candidate's call must see only the candidate's own (parallel.hpp).
  headroom::util::chunk_pool copy_pool(headroom::util::default_threads());
  headroom::util::chunk_pool::installed() = &copy_pool;
  try {
    start_python(python);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 5;
  }
  int rc = worker(in_fd, out_fd, in_region, out_region).serve();
  std::fflush(nullptr);
  // Skip interpreter finalisation: candidate threads or extensions must not hang or crash the exit.
  std::_Exit(rc);
}
