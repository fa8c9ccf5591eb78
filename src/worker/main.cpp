// headroom-worker: the untrusted half of an evaluation (docs/eval.md, "Processes"). It embeds the
// Python interpreter of the environment given with --python, runs one problem or one candidate,
// and answers the parent's requests over a pipe pair. Copies, poisoning, input checks and timing
// are here in C++; driver.py does what needs Python objects.
#include <fcntl.h>
#include <sched.h>
#include <malloc.h>
#include <sys/prctl.h>
#include <sys/resource.h>
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

// Tensors larger than the parent's limit for them (the memory budget, docs/eval.md "Memory"): they
// are not copied out, and the answer says how large they are.
struct too_large : std::runtime_error {
  explicit too_large(std::uint64_t n) : std::runtime_error("tensors larger than the memory budget allows"), bytes(n) {}
  std::uint64_t bytes;
};

using util::count_threads;

// Page faults this process has taken so far (minor and major).
long page_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt + u.ru_majflt;
}

// This process's resident memory now and at its peak, from /proc/self/status: "rss 1.2 GiB (anon
// 1.1), peak 2.3 GiB" (the worker's trace, HEADROOM_WORKER_TRACE).
std::string memory_now() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return "";
  char line[256];
  double rss = 0, anon = 0, peak = 0;
  while (std::fgets(line, sizeof line, f)) {
    double kib = 0;
    if (std::sscanf(line, "VmRSS: %lf", &kib) == 1) rss = kib;
    else if (std::sscanf(line, "RssAnon: %lf", &kib) == 1) anon = kib;
    else if (std::sscanf(line, "VmHWM: %lf", &kib) == 1) peak = kib;
  }
  std::fclose(f);
  constexpr double gib = 1024.0 * 1024.0;
  return fmt::format("rss {:.2f} GiB (anon {:.2f}), peak {:.2f} GiB", rss / gib, anon / gib, peak / gib);
}

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
        send_reply();
        return 0;
      }
      double began = host_ms();
      const std::size_t payload_bytes = r.msg.payload.size();
      failed_before_ = failed_allocations();
      try {
        handle(op, req, r.msg.payload);
        if (trace_)
          std::fprintf(stderr, "headroom-worker: %.*s took %.1f ms (payload %zu bytes in; %s before trimming)\n",
                       static_cast<int>(op.size()), op.data(), host_ms() - began, payload_bytes, memory_now().c_str());
      } catch (const too_large& e) {
        reply(fmt::format(R"("ok":false,"error":"too_large","kind":"","message":{},"bytes":{})", json_string(e.what()),
                          e.bytes));
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
      // Lean: the request's payload buffer (or what a run swapped into it) goes before the reply's
      // trimming instead of being kept to read the next payload into.
      if (lean_) std::vector<std::byte>().swap(r.msg.payload);
      send_reply();
      if (!lean_) spare_ = std::move(r.msg.payload);
    }
  }

 private:
  // The answer goes out once the request's handler has returned (send_reply): its payload is bytes
  // the worker keeps (inputs_, outputs_, a set's), gathered from `parts` as it is written.
  void reply(const std::string& fields, std::span<const std::span<const std::byte>> parts = {}) {
    if (pending_) send_reply();
    pending_.emplace(fmt::format(R"({{"nonce":{},{}}})", json_string(nonce_), fields), parts.begin(), parts.end());
  }
  // The heap keeps what a request frees (main: no trimming, no mmap), so that the calls within a
  // request reuse pages already mapped; between requests it goes back to the kernel, before the
  // answer, while the parent waits and nothing else is measured. Kept, the pages of every request's
  // temporaries add up: a reference worker held 6.2 GiB for a problem of 0.5 GiB in and 0.5 out.
  void send_reply() {
    if (!pending_) return;
    if (dev_) dev_->release_cached();
    malloc_trim(0);
    const bool written = write_message(out_, pending_->header, pending_->parts, out_region_, 0);
    pending_.reset();
    if (!written) std::_Exit(4);
    if (release_after_reply_) {
      // A trial's outputs are not asked for again, and the worker waits, holding them, while the
      // other side works (docs/eval.md, "Memory"); nor are the reference's inputs of a trial. Only
      // after a trial's run: what the parent does next is never a measurement on another worker.
      if (release_inputs_) std::vector<std::byte>().swap(inputs_);
      std::vector<std::byte>().swap(outputs_);
      malloc_trim(0);
      release_after_reply_ = release_inputs_ = false;
    }
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
    if (op == "set") return keep_set(req, payload);
    if (op == "get_set") return send_set(req);
    if (op == "time") return time(req);
    if (op == "compile_baseline") return compile_baseline();
    if (op == "replay") return replay(req);
    if (op == "flops") return flops(req);
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
    if (req["lean"].get_bool().get(lean_)) lean_ = false;
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
  // keep_set k: the tensors are also kept as timing set k (0 starts the sets afresh).
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
    std::vector<meta> made_metas;
    if (!read_tensors(list, inputs_, metas, &made_metas, max_bytes(req))) return reply_python_error("runtime_error");
    const std::span<const std::byte> part(inputs_);
    reply(fmt::format(R"("ok":true,"tensors":[{}],"constants":{})", metas, json_string(constants)),
          std::span(&part, 1));
    std::int64_t keep = -1;
    if (!req["keep_set"].get_int64().get(keep) && keep >= 0) {
      std::vector<std::byte> bytes = std::move(inputs_);  // the reply's payload: the same buffer
      store_set(static_cast<std::size_t>(keep), std::move(made_metas), std::move(bytes));
    }
  }

  // A timing set the parent sends (a candidate's worker, a second reference worker): set k.
  void keep_set(simdjson::dom::element req, std::vector<std::byte>& sent) {
    auto metas = parse_metas(req["inputs"].get_array().value());
    std::size_t total = 0;
    for (const meta& m : metas) total += m.bytes;
    if (total != sent.size()) throw request_error("the set's sizes do not add up to the payload");
    store_set(static_cast<std::size_t>(req["index"].get_uint64().value()), std::move(metas), std::move(sent));
    reply(R"("ok":true)");
  }

  // Timing set k as it was kept, for the parent to pass on to another worker.
  void send_set(simdjson::dom::element req) {
    auto k = static_cast<std::size_t>(req["index"].get_uint64().value());
    if (k >= set_bytes_.size()) throw request_error("no such timing set kept");
    std::string metas;
    for (const meta& m : timing_sets_[k]) metas += (metas.empty() ? "" : ",") + meta_json(m);
    reply(fmt::format(R"("ok":true,"tensors":[{}])", metas), set_bytes_[k]);
  }

  // Sets arrive in order, each in a buffer of its own: one set of gigabytes is never copied to make
  // room for the next.
  void store_set(std::size_t k, std::vector<meta> metas, std::vector<std::byte>&& bytes) {
    if (k == 0) {
      timing_sets_.clear();
      set_bytes_.clear();
      // The trials are done: their inputs are not run again.
      std::vector<std::byte>().swap(inputs_);
    }
    if (k != set_bytes_.size()) throw request_error("timing sets must arrive in order");
    timing_sets_.push_back(std::move(metas));
    set_bytes_.push_back(std::move(bytes));
  }

  // A request's limit on the bytes of the tensors it makes (max_bytes; none when absent).
  static std::uint64_t max_bytes(simdjson::dom::element req) {
    std::uint64_t limit = 0;
    if (req["max_bytes"].get_uint64().get(limit)) return std::numeric_limits<std::uint64_t>::max();
    return limit;
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

  // Copies tensors (a Python list) out through DLPack; appends bytes and meta JSON (and the metas
  // themselves to `parsed` when given). Tensors of more than `max_bytes` together throw too_large.
  bool read_tensors(PyObject* list, std::vector<std::byte>& payload, std::string& metas,
                    std::vector<meta>* parsed = nullptr,
                    std::uint64_t max_bytes = std::numeric_limits<std::uint64_t>::max()) {
    py_ref caps = call("to_capsules", {list});
    if (!caps) return false;
    Py_ssize_t n = PyList_Size(caps.get());
    std::uint64_t total = 0;
    for (Py_ssize_t i = 0; i < n; ++i) {
      auto* mt = static_cast<dlpack::managed_tensor*>(
          PyCapsule_GetPointer(PyTuple_GetItem(PyList_GetItem(caps.get(), i), 1), dlpack::capsule_name));
      if (!mt) return false;
      std::uint64_t numel = 1;
      for (std::int32_t d = 0; d < mt->dl_tensor.ndim; ++d) numel *= static_cast<std::uint64_t>(mt->dl_tensor.shape[d]);
      total += numel * ((mt->dl_tensor.dtype.bits * mt->dl_tensor.dtype.lanes + 7) / 8);
    }
    if (total > max_bytes) throw too_large(total);
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
      if (parsed) parsed->push_back(std::move(m));
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
    if (!kept) {
      inputs_.swap(sent);  // the earlier inputs' buffer goes back to be read into
      if (lean_) std::vector<std::byte>().swap(sent);  // or, lean, goes now, before the call's own
    }
    const std::vector<std::byte>& payload = inputs_;
    std::size_t total = 0;
    for (const meta& m : metas) total += m.bytes;
    if (total != payload.size()) throw request_error("the inputs' sizes do not add up to the payload");
    int poison = static_cast<int>(req["poison"].get_int64().value());
    bool record_ops = req["record_ops"].get_bool().value();
    if (req["release"].get_bool().get(release_inputs_)) release_inputs_ = false;
    release_after_reply_ = release_inputs_ || lean_;
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
    if (!read_tensors(outputs, out_payload, out_metas, nullptr, max_bytes(req))) return reply_python_error("runtime_error");
    phase.reset();
    reply(fmt::format(R"("ok":true,"outputs":[{}],{})", out_metas, common), out_payload);
  }

  // Times on the sets this worker keeps (its own inputs requests' with keep_set, or those the parent
  // sent with set requests): the reference is timed several ways on the same sets. eager: the eager
  // model even after compile_baseline replaced it (paired rounds).
  void time(simdjson::dom::element req) {
    if (!model_) throw request_error("no model loaded");
    bool eager = false;
    if (req["eager"].get_bool().get(eager)) eager = false;
    const py_ref model = eager && eager_model_ ? eager_model_ : model_;
    const std::vector<std::vector<meta>>& sets = timing_sets_;
    if (sets.empty()) throw request_error("no input sets to time");
    if (req["set_count"].get_uint64().value() != sets.size())
      throw request_error("the timing request names another number of sets than this worker keeps");
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
    pristine_sets pristine = upload_sets();
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
    // The warm-up lasts `warmup` calls, and then until a call maps (almost) no fresh pages, at most
    // max_settling calls more: the worker gives its heap back between requests (send_reply), and a
    // call that faults its outputs' pages in pays the kernel inside its time (a 16 MiB output is
    // 4096 faults). How many calls that takes depends on the process's heap, not on the forward,
    // so it differs between the reference's worker and a candidate's.
    constexpr long settled_faults = 16;
    constexpr int max_settling = 20;
    int warm_calls = warmup, faulted_samples = 0;
    for (int i = 0;; ++i) {
      if (i == warmup && cpu >= 0) pin.emplace(static_cast<int>(cpu));
      call_plan plan = ask_call(i, sets.size());
      built_inputs in = fresh_inputs(sets[plan.set], pristine[plan.set], plan.seed, symmetric);
      dev_->flush_caches();
      // The parent notes the call's start and end by its own clock (timing_log.hpp).
      simdjson::dom::parser announce;
      ask_parent(announce, "start", i);
      begin_allocation_log();
      const long faults_before = page_faults();
      dev_->start_timer(hold);
      py_ref result(PyObject_CallObject(model.get(), in.tuple.get()));
      dev_->call_returned();
      end_allocation_log();
      if (!result) {
        dev_->stop_timer();  // opens the gate
        release();
        return reply_python_error("runtime_error");
      }
      device::times t = dev_->stop_timer();
      const long faults = page_faults() - faults_before;
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
      bool warm = i < warm_calls;
      if (warm && faults > settled_faults && i + 1 == warm_calls && warm_calls < warmup + max_settling) ++warm_calls;
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
        if (faults > settled_faults) ++faulted_samples;
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
    if (trace_)
      std::fprintf(stderr, "headroom-worker: time: %d warm-up call(s), %d sample(s), %d with page faults, median %.4g ms\n",
                   warm_calls, s.samples, faulted_samples, s.median_ms);
    reply(fmt::format(R"("ok":true,"timing":{{"samples":{},"median_ms":{},"mean_ms":{},"stddev_ms":{},"min_ms":{},"max_ms":{},"rel_spread":{},"wall_median_ms":{},"score_ms":{},"host_median_ms":{},"tail_median_ms":{},"held":{},"host_bound":{},"device_median_ms":{},"device_cost_ms":{},"hold_mechanism":{},"hold_timeouts":{},"empty_wall_ms":{},"empty_tail_ms":{},"sm_clock_min_mhz":{},"sm_clock_max_mhz":{},"throttled_samples":{},"pinned":{},"warmup_calls":{},"faulted_samples":{}}},"calls":[{}],"checked":[{}],"tampered":{})",
                      s.samples, s.median_ms, s.mean_ms, s.stddev_ms, s.min_ms, s.max_ms, s.rel_spread,
                      s.wall_median_ms, s.score_ms, s.host_median_ms, s.tail_median_ms, hold, s.host_bound, s.device_median_ms, s.device_cost_ms,
                      json_string(hold ? dev_->hold_mechanism() : std::string()), hold_timeouts,
                      empty.wall_ms, empty.tail_ms, clock_max ? clock_min : 0, clock_max, dropped, pin && pin->pinned(),
                      warm_calls, faulted_samples, calls, checked, tampered_json()),
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

  // The kept timing sets' pristine copies on the device; each call makes its fresh inputs from one.
  // On the host the kept bytes are that copy already: nothing is read from them but the fresh
  // inputs' values, so a second copy of every set would only double the sets' memory.
  struct pristine_sets {
    std::vector<std::vector<void*>> sets;
    bool owned = false;  // allocated on the device (released with release_sets)
    std::vector<void*>& operator[](std::size_t k) { return sets[k]; }
  };
  pristine_sets upload_sets() {
    pristine_sets pristine;
    pristine.owned = dev_->is_cuda();
    for (std::size_t k = 0; k < timing_sets_.size(); ++k) {
      std::vector<void*>& tensors = pristine.sets.emplace_back();
      std::size_t at = 0;
      for (const meta& m : timing_sets_[k]) {
        std::byte* kept = set_bytes_[k].data() + at;
        void* p = kept;
        if (pristine.owned) {
          p = dev_->allocate(m.bytes);
          if (m.bytes) dev_->copy_to_device(p, kept, m.bytes);
        }
        tensors.push_back(p);
        at += m.bytes;
      }
    }
    return pristine;
  }
  void release_sets(pristine_sets& pristine) {
    if (pristine.owned)
      for (auto& v : pristine.sets)
        for (void* p : v) dev_->release(p);
    pristine.sets.clear();
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
    pristine_sets pristine = upload_sets();
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

  // On the first kept timing set.
  void flops(simdjson::dom::element) {
    if (!model_) throw request_error("no model loaded");
    if (timing_sets_.empty()) throw request_error("no timing sets kept to count on");
    built_inputs in = build_inputs(timing_sets_[0], set_bytes_[0].data(), false);
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
  struct pending_reply {
    template <class It>
    pending_reply(std::string h, It begin, It end) : header(std::move(h)), parts(begin, end) {}
    std::string header;
    std::vector<std::span<const std::byte>> parts;
  };
  std::optional<pending_reply> pending_;
  bool release_after_reply_ = false;  // a trial's run lets its outputs go once answered
  bool release_inputs_ = false;       // and its inputs (the reference's trials)
  bool lean_ = false;  // the load asked to keep no payload buffer from one request to the next
  bool trace_;
  std::string nonce_;
  std::unique_ptr<device> dev_;
  std::unique_ptr<cuda_poison> poison_;
  unsigned long long failed_before_ = 0;
  std::map<std::string, py_ref, std::less<>> functions_;
  py_ref module_, model_, snapshot_;
  py_ref eager_model_;  // the reference's eager model once compile_baseline replaced model_ (replays)
  std::vector<std::vector<meta>> timing_sets_;  // the metas of the kept timing sets, one per set
  py_ref constants_;                      // [(position, value)]: the forward's non-tensor arguments
  std::vector<std::byte> inputs_;         // the last inputs request's tensors, or the last run's inputs
  std::vector<std::vector<std::byte>> set_bytes_;  // the kept timing sets' bytes, one buffer per set
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
  // next call of the request instead of being returned to the kernel and faulted in again
  // (send_reply trims it between requests).
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  // When the machine runs out of memory, the kernel ends a worker, never the harness: a worker's
  // death is a verdict (a crash, a reference_error) and the run goes on (docs/eval.md, "Memory").
  if (FILE* f = std::fopen("/proc/self/oom_score_adj", "w")) {
    std::fputs("1000", f);
    std::fclose(f);
  }
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
