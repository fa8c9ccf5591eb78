// Stands in for a profiled CUDA process: writes what the injection library would, a stream named
// $HEADROOM_PROFILE_DIR/<pid>.hrs. Usage: profile_fake_process RANK KERNELS [torn]
// "torn" flushes the first half of the kernels, then cuts the second frame short, as a kill
// during a write would.
#include <unistd.h>
#include <fmt/core.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "headroom/trace/event_stream.hpp"

using namespace headroom::trace;

int main(int argc, char** argv) {
  const char* dir = std::getenv("HEADROOM_PROFILE_DIR");
  if (!dir || argc < 3) {
    fmt::print(stderr, "usage: HEADROOM_PROFILE_DIR=DIR profile_fake_process RANK KERNELS [torn]\n");
    return 64;
  }
  const int rank = std::atoi(argv[1]);
  const int kernels = std::atoi(argv[2]);
  const bool torn = argc > 3 && std::string(argv[3]) == "torn";
  const auto path = std::filesystem::path(dir) / fmt::format("{}.hrs", ::getpid());
  std::uintmax_t first_frame_end = 0;
  {
    event_stream_header h;
    h.pid = static_cast<std::uint32_t>(::getpid());
    h.rank = rank;
    h.start = 1'000'000;
    h.process_name = "profile_fake_process";
    h.host = "testhost";
    event_stream_writer w(path, h);
    device_info d;
    d.id = static_cast<std::int16_t>(rank);
    d.name = "Fake GPU";
    d.compute_major = 9;
    d.sm_count = 132;
    w.add(d);
    const auto kernel = w.intern(fmt::format("fake_kernel_rank{}", rank));
    const auto launch = w.intern("cudaLaunchKernel");
    for (int i = 0; i < kernels; ++i) {
      const time_ns t = 2'000'000 + i * 100'000;
      api_call c{.start = t, .end = t + 5'000, .correlation = std::uint64_t(i + 1), .name = launch, .thread = 1};
      w.add(c);
      activity a{.start = t + 10'000,
                 .end = t + 60'000,
                 .correlation = std::uint64_t(i + 1),
                 .name = kernel,
                 .stream = 7,
                 .device = static_cast<std::int16_t>(rank)};
      w.add(a);
      if (torn && i + 1 == kernels / 2) {
        w.flush();
        first_frame_end = std::filesystem::file_size(path);
      }
    }
    // cudaStreamSynchronize on the kernels' stream once they are launched.
    const time_ns end = 2'000'000 + kernels * 100'000;
    w.add(synchronization{.start = end,
                          .end = end + 50'000,
                          .correlation = std::uint64_t(kernels + 1),
                          .context = 1,
                          .thread = 1,
                          .stream = 7,
                          .device = static_cast<std::int16_t>(rank),
                          .kind = sync_kind::stream_synchronize});
    w.add_counter(event_counter::overhead_records, 2);
    w.add_counter(event_counter::dropped_records, 1);
  }
  if (torn) {
    // Keep the first frame whole and half of the second.
    const auto size = std::filesystem::file_size(path);
    std::filesystem::resize_file(path, first_frame_end + (size - first_frame_end) / 2);
  }
  return 0;
}
