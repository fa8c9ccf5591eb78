#pragma once
// Errors that reach the user. Expected failures of input (a corrupt trace, a bad rule file) are
// input_error: the CLI prints the message and exits with status 2. Anything else is a bug.
#include <stdexcept>
#include <string>

namespace headroom {

class input_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace headroom
