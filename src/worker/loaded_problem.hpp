#pragma once
// The problem a worker has loaded (load, compile_baseline): the problem file's module, the model
// forward is called on, and the non-tensor arguments of every call, as Python handles.
#include "worker/python_ref.hpp"

namespace headroom::worker {

struct loaded_problem {
  py_ref module;
  py_ref model;
  py_ref eager_model;  // the reference's eager model once compile_baseline replaced model (replays)
  py_ref constants;  // [(position, value)]: the forward's non-tensor arguments
  // A candidate's outputs must be memory its calls got from the harness's allocators; the
  // reference's may be views of its inputs (a reshape), which is the problem's business.
  bool check_memory = false;
};

}  // namespace headroom::worker
