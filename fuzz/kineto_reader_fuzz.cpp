// libFuzzer harness for the Kineto reader: any bytes must give a trace or an input_error, never a
// crash, a hang or a sanitizer report. The first byte picks a small chunk size, so events cut
// across chunk boundaries are exercised as much as whole ones.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "headroom/trace/kineto.hpp"
#include "headroom/util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  headroom::trace::kineto_tuning tuning;
  tuning.chunk_bytes = 64 + std::size_t{data[0]} * 16;
  tuning.batch_bytes = 1 + std::size_t{data[0]} * 4;
  headroom::trace::read_options options;
  options.launch_geometry = (data[0] & 1) != 0;
  // Half the inputs are read the way analyze reads: launch pairs instead of whole API calls.
  options.api_calls = (data[0] & 2) == 0;
  options.launch_calls = !options.api_calls;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    const auto t = headroom::trace::read_kineto_json_buffer(bytes, "fuzz", options, tuning);
    for (const auto& a : t.activities) {
      if (a.end < a.start) __builtin_trap();  // readers promise end >= start
      if (a.name >= t.strings.size()) __builtin_trap();
    }
    for (const auto& l : t.launches) {
      if (l.name >= t.strings.size() || l.correlation == 0) __builtin_trap();
    }
  } catch (const headroom::input_error&) {}
  return 0;
}
