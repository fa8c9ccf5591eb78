#pragma once
// driver.py as C++ calls (part of the Python gateway): the driver module, compiled from the copy
// in this binary, and each of its functions the requests use, taking and giving plain values or
// py_ref handles. A call that fails leaves its Python exception pending, to be taken as data
// (take_error) or cleared; the caller decides which, as the request's answer needs.
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "worker/python_error.hpp"
#include "worker/python_ref.hpp"

namespace headroom::worker {

class python_driver {
 public:
  // Imports the driver module and looks up its functions. Returns an empty string, or what the
  // import raised (torch does not import in this Python). Throws request_error when the driver
  // does not compile or lacks a function.
  std::string import_driver();

  // The pending exception, described by driver.describe_exception; take_plain_error: by its
  // str() alone. Both clear it; clear_error drops it.
  python_error take_error() const;
  static python_error take_plain_error();
  static void clear_error();

  // hello: driver.setup on the device with the poisoning allocator ("" when none); the
  // environment's JSON, or none with the error pending.
  std::optional<std::string> setup(const std::string& device, const std::string& allocator);
  // The operator record's probe (an operator run through PyTorch); whether it ran.
  bool record_probe();
  // PyTorch's RecordFunction switches replaced (python_record_switches.hpp): empty, or why not.
  std::string replace_record_switches();
  bool warm_up_operator_record();
  // The functions a candidate might replace, snapshotted now; tampered_json lists, as JSON, those
  // changed since (["guard check failed"] when the check itself fails).
  bool snapshot_guarded_functions();
  std::string tampered_json();
  // The stream PyTorch uses now; none when it cannot be asked (the error is cleared).
  std::optional<std::uintptr_t> current_stream();

  // load
  py_ref import_file(const std::string& path, const std::string& build_dir);
  std::optional<std::string> init_inputs(const py_ref& module);
  // The arguments of every forward call that are not tensors, from JSON [[position, value], ...].
  py_ref parse_constants(const std::string& json);
  py_ref build_model(const py_ref& module, const std::string& cls, const std::string& init, std::int64_t seed);
  // compile_baseline: false with the error pending; `compiled` empty when torch.compile is missing.
  bool compile_model(const py_ref& model, py_ref& compiled);

  // inputs: get_inputs() under a seed and a distribution: the tensors (a list) and the constants
  // as JSON. False with the error pending.
  struct made_inputs {
    py_ref tensors;
    std::string constants;
  };
  bool make_inputs(const py_ref& module, std::int64_t seed, std::int64_t distribution, made_inputs& made);

  // run: driver.call, forward on `args` (a list) with the Python operator record or without; the
  // result is (outputs, ops). None with the error pending.
  py_ref call_recorded(const py_ref& model, const py_ref& args, bool python_record);
  static py_ref outputs_of(const py_ref& recorded_call);
  // The Python record's operators; none when it did not record.
  static std::optional<std::vector<std::string>> operators_of(const py_ref& recorded_call);
  // The outputs' text when forward returned no tensors (driver.call says why as a string).
  static std::optional<std::string> invalid_outputs(const py_ref& outputs);

  // The timed calls: forward on a tuple of arguments, and the empty call (driver.noop).
  static py_ref call_forward(const py_ref& model, const py_ref& args);
  py_ref noop() const { return function("noop"); }
  static py_ref call_empty(const py_ref& noop);

  // flops and ceilings: none (or -1) when they cannot be counted; the error is cleared.
  std::optional<long long> count_flops(const py_ref& model, const py_ref& args_list);
  double matmul_rate();
  // dependence: forward's argument tuple with tensor number `at` given other values
  // (driver.replaced_input); empty when there is no such tensor or it failed (the error is cleared).
  py_ref replaced_input(const py_ref& args, std::size_t at, std::uint64_t seed);
  // A problem's declared floor in bytes (driver.declared_bytes), or none with `error` saying why.
  std::optional<long long> declared_bytes(const py_ref& model, const std::string& init_json, const py_ref& args,
                                          const std::string& variables_json, const std::string& formula,
                                          std::string& error);

  // For the gateway's own files: a driver function by name (empty before import_driver), and a
  // call of one (a Python exception leaves the result empty).
  py_ref function(const char* name) const;
  py_ref call(const char* name, std::initializer_list<_object*> args) const;

 private:
  std::map<std::string, py_ref, std::less<>> functions_;
  py_ref snapshot_;  // the guarded functions as they were at setup
};

}  // namespace headroom::worker
