#pragma once
// The PyTorch profiler (Kineto) JSON reader. Streams the file in fixed-size chunks, so memory is the
// events kept plus a buffer that does not grow with the file; gzip is recognised by its magic bytes.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>

#include "headroom/trace/model.hpp"
#include "headroom/trace/reader.hpp"

namespace headroom::trace {

// What the reader did, for benchmarks and for tests that pin the memory bound.
struct kineto_read_stats {
  std::uint64_t input_bytes = 0;  // bytes of the file (compressed when gzip)
  std::uint64_t json_bytes = 0;  // bytes of JSON text scanned
  std::uint64_t events = 0;  // elements of traceEvents seen, kept or not
  std::uint64_t batches = 0;  // simdjson documents parsed
  std::size_t max_buffer_bytes = 0;  // the largest the chunk buffer ever was
};

// What inflates a .json.gz: ISA-L's igzip (2.7x zlib's speed on trace JSON), or zlib, the baseline
// bench/gzip_throughput.sh measures it against (bench/RESULTS.md, "Reading traces").
enum class gzip_inflater : std::uint8_t { isal, zlib };

struct kineto_tuning {
  std::size_t chunk_bytes = std::size_t{8} << 20;  // read size; the buffer grows only for an event larger than this
  std::size_t batch_bytes = std::size_t{1} << 20;  // events parsed as one simdjson document
  gzip_inflater inflater = gzip_inflater::isal;
  // Inflate a .json.gz file on a second thread while the first parses: a shorter wall clock when a
  // core is free, about 13% more CPU time in all (docs/findings.md, "Reading traces"). Unset: on when this process
  // may run on 4 or more CPUs.
  std::optional<bool> read_ahead;
  kineto_read_stats* stats = nullptr;
};

trace read_kineto_json(const std::filesystem::path& path, const read_options& options, const kineto_tuning& tuning);

// The same reader over bytes in memory (plain or gzip); `origin` names them in messages.
trace read_kineto_json_buffer(std::string_view bytes, std::string_view origin, const read_options& options = {},
                              const kineto_tuning& tuning = {});

// Converts a Kineto time in microseconds, as its JSON text ("1712195495505583.123", "4", "\"7.5\"",
// "1.5e3"), to integer nanoseconds without going through a double, which would lose nanoseconds at
// 16-digit timestamps. Digits past the nanosecond are rounded half up. nullopt when not a number.
std::optional<time_ns> microseconds_text_to_ns(std::string_view text);

}  // namespace headroom::trace
