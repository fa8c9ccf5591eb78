#pragma once
// A failed request's answer (docs/eval.md, "Verdicts" reads them): a Python exception, described
// by the driver, or a C++ exception the request loop caught; either becomes out_of_memory when a
// device allocation failed during the request (allocation_watch.hpp).
#include <exception>

namespace headroom::worker {

class allocation_watch;
class parent_channel;
class python_driver;

class error_replies {
 public:
  error_replies(parent_channel& channel, const python_driver& python, const allocation_watch& allocations)
      : channel_(channel), python_(python), allocations_(allocations) {}

  // The pending Python exception, as error `error` (setup, load_error, runtime_error, ...).
  void python(const char* error) const;
  // An exception a request's handler threw: too_large, a request_error, or a CUDA call of ours that
  // failed (almost always a sticky error a candidate kernel caused).
  void exception(const std::exception& e) const;
  // The request's out-of-memory answer when a device allocation failed; false when none did.
  bool out_of_memory() const;

 private:
  parent_channel& channel_;
  const python_driver& python_;
  const allocation_watch& allocations_;
};

}  // namespace headroom::worker
