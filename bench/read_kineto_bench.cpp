// Reads one Kineto trace the way `headroom analyze` does (no API calls) and prints throughput and
// what was read. Usage: read_kineto_bench FILE [--chunk-mb N] [--batch-kb N] [--api-calls]
// [--geometry] [--zlib] [--read-ahead | --no-read-ahead]; --zlib --no-read-ahead is the reader as
// it was before ISA-L and the read-ahead thread (bench/gzip_throughput.sh compares them).
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include <fmt/format.h>

#include "headroom/trace/kineto.hpp"
#include "headroom/util/error.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    fmt::print(
        stderr,
        "usage: {} FILE [--chunk-mb N] [--batch-kb N] [--api-calls] [--geometry] [--zlib] [--read-ahead | --no-read-ahead]\n",
        argv[0]);
    return 2;
  }
  headroom::trace::read_options options;
  options.api_calls = false;
  headroom::trace::kineto_read_stats stats;
  headroom::trace::kineto_tuning tuning;
  tuning.stats = &stats;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--chunk-mb" && i + 1 < argc) tuning.chunk_bytes = std::strtoull(argv[++i], nullptr, 10) << 20;
    else if (arg == "--batch-kb" && i + 1 < argc) tuning.batch_bytes = std::strtoull(argv[++i], nullptr, 10) << 10;
    else if (arg == "--api-calls") options.api_calls = true;
    else if (arg == "--geometry") options.launch_geometry = true;
    else if (arg == "--zlib") tuning.inflater = headroom::trace::gzip_inflater::zlib;
    else if (arg == "--no-read-ahead") tuning.read_ahead = false;
    else if (arg == "--read-ahead") tuning.read_ahead = true;
  }
  try {
    const auto t0 = std::chrono::steady_clock::now();
    const auto t = headroom::trace::read_kineto_json(argv[1], options, tuning);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::size_t kernels = 0, memcpys = 0, memsets = 0;
    long double kernel_ns = 0;
    for (const auto& a : t.activities) {
      if (a.kind == headroom::trace::activity_kind::kernel) ++kernels, kernel_ns += a.duration();
      else if (a.kind == headroom::trace::activity_kind::memcpy) ++memcpys;
      else ++memsets;
    }
    const double mb = static_cast<double>(stats.input_bytes) / 1e6;
    fmt::print("file            {}\n", argv[1]);
    fmt::print("seconds         {:.3f}\n", s);
    fmt::print("input MB        {:.1f}  ({:.1f} MB/s)\n", mb, mb / s);
    fmt::print("json MB         {:.1f}  ({:.1f} MB/s)\n", static_cast<double>(stats.json_bytes) / 1e6,
               static_cast<double>(stats.json_bytes) / 1e6 / s);
    fmt::print("events          {}  ({:.2f} M/s)\n", stats.events, static_cast<double>(stats.events) / 1e6 / s);
    fmt::print("kernels         {}\nmemcpy          {}\nmemset          {}\n", kernels, memcpys, memsets);
    fmt::print("kernel sum ns   {:.0f}\n", static_cast<double>(kernel_ns));
    fmt::print("api calls       {}\nranges          {}\nstrings         {}\n", t.api_calls.size(), t.ranges.size(),
               t.strings.size());
    fmt::print("platform        {}\ndevices         {}\nbatches         {}\n", t.platform, t.devices.size(),
               stats.batches);
    fmt::print("max buffer MB   {:.1f}\n", static_cast<double>(stats.max_buffer_bytes) / 1e6);
    for (const auto& w : t.warnings) fmt::print("warning         {} (x{})\n", w.what, w.count);
  } catch (const headroom::input_error& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 2;
  }
  return 0;
}
