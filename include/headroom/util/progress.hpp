#pragma once
// Progress of long work (reading a multi-GB trace), reported to stderr when it is a terminal.
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace headroom::util {

// Called with bytes done and bytes in all (0 when unknown). Cheap to call often: implementations
// rate-limit themselves.
using progress_fn = std::function<void(std::uint64_t done, std::uint64_t total)>;

// A progress function that draws "label  42%  1.2 GB  610 MB/s" on stderr at most 5 times a second,
// and only when stderr is a terminal; the line is cleared when the returned object is destroyed.
class terminal_progress {
 public:
  explicit terminal_progress(std::string label);
  ~terminal_progress();
  terminal_progress(const terminal_progress&) = delete;
  terminal_progress& operator=(const terminal_progress&) = delete;
  progress_fn fn();

 private:
  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace headroom::util
