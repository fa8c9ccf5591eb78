#include <Python.h>  // before any other header, as CPython asks

#include "worker/python_driver.hpp"

#include <span>

#include "headroom/util/embedded.hpp"
#include "headroom/util/json.hpp"
#include "worker/python_record_switches.hpp"
#include "worker/request_error.hpp"

namespace headroom::util {
std::span<const embedded_file> worker_python_files();
}

namespace headroom::worker {
namespace {

py_ref text(const std::string& s) { return py_ref(PyUnicode_FromString(s.c_str())); }

constexpr const char* driver_functions[] = {"setup",
                                            "import_file",
                                            "init_inputs",
                                            "build_model",
                                            "compile_model",
                                            "make_inputs",
                                            "parse_constants",
                                            "to_capsules",
                                            "output_capsules",
                                            "from_capsule",
                                            "call",
                                            "noop",
                                            "current_stream",
                                            "count_flops",
                                            "replaced_input",
                                            "declared_bytes",
                                            "matmul_rate",
                                            "guarded_functions",
                                            "changed_functions",
                                            "describe_exception",
                                            "record_probe",
                                            "record_switches",
                                            "replace_everywhere",
                                            "warm_up_operator_record",
                                            "storage_handles",
                                            "hold_storage",
                                            "drop_storage_handle"};

}  // namespace

std::string python_driver::import_driver() {
  auto files = util::worker_python_files();
  py_ref code(Py_CompileString(std::string(files[0].contents).c_str(), "headroom_driver.py", Py_file_input));
  if (!code) throw request_error("driver did not compile: " + take_plain_error().message);
  py_ref module(PyImport_ExecCodeModule("headroom_driver", code.get()));
  if (!module) return take_plain_error().message;
  for (const char* name : driver_functions) {
    py_ref f(PyObject_GetAttrString(module.get(), name));
    if (!f) throw request_error(std::string("driver lacks ") + name);
    functions_[name] = f;
  }
  return "";
}

python_error python_driver::take_error() const { return take_python_error(function("describe_exception").get()); }
python_error python_driver::take_plain_error() { return take_python_error(nullptr); }
void python_driver::clear_error() { PyErr_Clear(); }

py_ref python_driver::function(const char* name) const {
  auto it = functions_.find(name);
  if (it != functions_.end()) return it->second;
  return {};
}

// A Python exception becomes the caller's to handle: the result is empty.
py_ref python_driver::call(const char* name, std::initializer_list<PyObject*> args) const {
  py_ref f = function(name);
  py_ref tuple(PyTuple_New(static_cast<Py_ssize_t>(args.size())));
  Py_ssize_t i = 0;
  for (PyObject* a : args) {
    Py_INCREF(a);
    PyTuple_SET_ITEM(tuple.get(), i++, a);
  }
  return py_ref(PyObject_CallObject(f.get(), tuple.get()));
}

std::optional<std::string> python_driver::setup(const std::string& device, const std::string& allocator) {
  py_ref alloc_arg = text(allocator);
  py_ref dev_arg = text(device);
  py_ref env = call("setup", {dev_arg.get(), alloc_arg.get()});
  if (!env) return std::nullopt;
  return to_string(env);
}

bool python_driver::record_probe() {
  bool ran = static_cast<bool>(call("record_probe", {}));
  PyErr_Clear();
  return ran;
}

std::string python_driver::replace_record_switches() {
  py_ref switches = call("record_switches", {});
  if (!switches || !take_record_switches(switches.get(), function("replace_everywhere").get()))
    return "PyTorch's RecordFunction switches could not be replaced: " + take_plain_error().message;
  return "";
}

bool python_driver::warm_up_operator_record() { return static_cast<bool>(call("warm_up_operator_record", {})); }

bool python_driver::snapshot_guarded_functions() {
  snapshot_ = call("guarded_functions", {});
  return static_cast<bool>(snapshot_);
}

std::string python_driver::tampered_json() {
  py_ref changed = call("changed_functions", {snapshot_.get()});
  if (!changed) {
    PyErr_Clear();
    return R"(["guard check failed"])";
  }
  std::string s = "[";
  Py_ssize_t n = PyList_Size(changed.get());
  for (Py_ssize_t i = 0; i < n; ++i)
    s += (i ? "," : "") + util::json_string(to_string(PyList_GetItem(changed.get(), i)));
  return s + "]";
}

std::optional<std::uintptr_t> python_driver::current_stream() {
  py_ref stream = call("current_stream", {});
  std::optional<std::uintptr_t> s;
  if (stream) s = static_cast<std::uintptr_t>(PyLong_AsUnsignedLongLong(stream.get()));
  PyErr_Clear();
  return s;
}

py_ref python_driver::import_file(const std::string& path, const std::string& build_dir) {
  py_ref path_arg = text(path);
  py_ref dir_arg = text(build_dir);
  return call("import_file", {path_arg.get(), dir_arg.get()});
}

std::optional<std::string> python_driver::init_inputs(const py_ref& module) {
  py_ref s = call("init_inputs", {module.get()});
  if (!s) return std::nullopt;
  return to_string(s);
}

py_ref python_driver::parse_constants(const std::string& json) {
  py_ref arg = text(json);
  return call("parse_constants", {arg.get()});
}

py_ref python_driver::build_model(const py_ref& module, const std::string& cls, const std::string& init,
                                  std::int64_t seed) {
  py_ref init_arg = text(init);
  py_ref cls_arg = text(cls);
  py_ref seed_arg(PyLong_FromLongLong(seed));
  return call("build_model", {module.get(), cls_arg.get(), init_arg.get(), seed_arg.get()});
}

bool python_driver::compile_model(const py_ref& model, py_ref& compiled) {
  py_ref c = call("compile_model", {model.get()});
  if (!c) return false;
  compiled = c.get() == Py_None ? py_ref() : c;
  return true;
}

bool python_driver::make_inputs(const py_ref& module, std::int64_t seed, std::int64_t distribution, made_inputs& made) {
  py_ref seed_arg(PyLong_FromLongLong(seed));
  py_ref dist_arg(PyLong_FromLongLong(distribution));
  py_ref result = call("make_inputs", {module.get(), seed_arg.get(), dist_arg.get()});
  if (!result) return false;
  made.tensors = py_ref::borrow(PyTuple_GetItem(result.get(), 0));
  made.constants = to_string(PyTuple_GetItem(result.get(), 1));
  return true;
}

py_ref python_driver::call_recorded(const py_ref& model, const py_ref& args, bool python_record) {
  py_ref record(PyBool_FromLong(python_record));
  return call("call", {model.get(), args.get(), record.get()});
}

py_ref python_driver::outputs_of(const py_ref& recorded_call) {
  return py_ref::borrow(PyTuple_GetItem(recorded_call.get(), 0));
}

std::optional<std::vector<std::string>> python_driver::operators_of(const py_ref& recorded_call) {
  PyObject* ops = PyTuple_GetItem(recorded_call.get(), 1);
  if (ops == Py_None) return std::nullopt;
  std::vector<std::string> names;
  for (Py_ssize_t i = 0; i < PyList_Size(ops); ++i) names.push_back(to_string(PyList_GetItem(ops, i)));
  return names;
}

std::optional<std::string> python_driver::invalid_outputs(const py_ref& outputs) {
  if (!PyUnicode_Check(outputs.get())) return std::nullopt;
  return to_string(outputs);
}

py_ref python_driver::call_forward(const py_ref& model, const py_ref& args) {
  return py_ref(PyObject_CallObject(model.get(), args.get()));
}

py_ref python_driver::call_empty(const py_ref& noop) { return py_ref(PyObject_CallNoArgs(noop.get())); }

std::optional<long long> python_driver::count_flops(const py_ref& model, const py_ref& args_list) {
  py_ref n = call("count_flops", {model.get(), args_list.get()});
  if (!n) {
    PyErr_Clear();
    return std::nullopt;
  }
  return PyLong_AsLongLong(n.get());
}

double python_driver::matmul_rate() {
  py_ref rate = call("matmul_rate", {});
  double mm = rate ? PyFloat_AsDouble(rate.get()) : -1;
  PyErr_Clear();
  return mm;
}

py_ref python_driver::replaced_input(const py_ref& args, std::size_t at, std::uint64_t seed) {
  py_ref index(PyLong_FromSize_t(at));
  py_ref seed_value(PyLong_FromUnsignedLongLong(seed));
  py_ref replaced = call("replaced_input", {args.get(), index.get(), seed_value.get()});
  if (!replaced || replaced.get() == Py_None) {
    PyErr_Clear();
    return py_ref();
  }
  return replaced;
}

std::optional<long long> python_driver::declared_bytes(const py_ref& model, const std::string& init_json,
                                                       const py_ref& args, const std::string& variables_json,
                                                       const std::string& formula, std::string& error) {
  py_ref init = text(init_json), variables = text(variables_json), f = text(formula);
  py_ref n = call("declared_bytes", {model.get(), init.get(), args.get(), variables.get(), f.get()});
  if (!n) {
    error = take_plain_error().message;
    return std::nullopt;
  }
  long long bytes = PyLong_AsLongLong(n.get());
  if (PyErr_Occurred()) {
    error = take_plain_error().message;
    return std::nullopt;
  }
  return bytes;
}

}  // namespace headroom::worker
