// How long one big payload takes through the eval channel, writer and reader together, sent as a
// new file in /dev/shm (the baseline) and through a shared region kept for the
// channel's life (a memfd whose pages stay allocated). Rounds alternate the two; the reader reads
// into the buffer of its previous payload, as the worker does.
//
//   channel_payload_bench [MiB] [rounds] [writer threads]      (default 1024 7 1)
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <thread>
#include <vector>

#include "headroom/sandbox/channel.hpp"

using namespace headroom::sandbox;

namespace {

double send_once(const std::vector<std::byte>& payload, const shared_region& region, unsigned threads,
                 std::vector<std::byte>& reuse) {
  int fds[2];
  if (pipe(fds) != 0) std::exit(1);
  const std::span<const std::byte> parts[] = {payload};
  auto t0 = std::chrono::steady_clock::now();
  std::thread writer([&] { write_message(fds[1], R"({"op":"run"})", parts, region, threads); });
  read_result r = read_message(fds[0], std::nullopt, std::move(reuse), 1, region);
  writer.join();
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  close(fds[0]);
  close(fds[1]);
  if (r.status != read_status::ok || r.msg.payload.size() != payload.size()) {
    std::fprintf(stderr, "channel_payload_bench: the payload did not arrive (%s)\n", r.problem.c_str());
    std::exit(1);
  }
  reuse = std::move(r.msg.payload);
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 1024;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 7;
  const unsigned threads = argc > 3 ? static_cast<unsigned>(std::atoi(argv[3])) : 1;
  std::vector<std::byte> payload(mib << 20);
  for (std::size_t i = 0; i < payload.size(); i += 4096) payload[i] = static_cast<std::byte>(i >> 12);
  shared_region region = make_shared_region("headroom-bench");
  if (region.fd < 0) {
    std::fprintf(stderr, "channel_payload_bench: memfd_create is not available\n");
    return 1;
  }
  std::vector<std::byte> reuse_file, reuse_region;
  std::vector<double> file_s, region_s;
  for (int r = 0; r < rounds; ++r) {
    file_s.push_back(send_once(payload, shared_region{}, threads, reuse_file));
    region_s.push_back(send_once(payload, region, threads, reuse_region));
    std::printf("round %d: file %.3f s, region %.3f s\n", r + 1, file_s.back(), region_s.back());
  }
  const double f = median(file_s), g = median(region_s);
  std::printf(
      "%zu MiB, %d rounds, writer threads %u: median file %.3f s (%.2f GB/s), region %.3f s (%.2f GB/s), "
      "region/file %.2f\n",
      mib, rounds, threads, f, payload.size() / f / 1e9, g, payload.size() / g / 1e9, g / f);
  close(region.fd);
}
