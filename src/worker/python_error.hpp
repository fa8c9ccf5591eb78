#pragma once
// A raised Python exception turned into data (part of the Python gateway): its type, the kind
// driver.describe_exception recognises (out_of_memory, illegal_address or empty), message and
// traceback.
#include <string>

#include "worker/python_ref.hpp"

namespace headroom::worker {

struct python_error {
  std::string type;
  std::string kind;
  std::string message;
  std::string traceback;
};

// The pending exception, described by `describe` (driver.describe_exception; none: its str() only).
// Clears it.
python_error take_python_error(_object* describe);

}  // namespace headroom::worker
