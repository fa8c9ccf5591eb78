// What one kernel launch costs the host, the figure a profiler's overhead follows on launch-bound
// steps (bench/launch_cost.sh runs it plain and under `headroom profile` with each setting).
//
//   launch_cost [--launches N] [--rounds R] [--api runtime|driver] [--queries Q]
//
// Each round launches an empty kernel N times on one stream, timed on the host from the first
// launch to the last one's return, then waits for the stream outside the timing. Before each launch
// it makes Q query calls (cudaGetDevice, cudaGetLastError, alternately), as PyTorch makes several
// per kernel: what a profiler costs on calls it intercepts but does not record shows there.
// `--api driver` launches with cuLaunchKernel (as Triton does) instead of cudaLaunchKernel, found
// through the runtime (cudaGetDriverEntryPointByVersion), so the program loads without a driver
// and can say that it found no GPU.
// Prints one JSON line: ns per launch (its queries included), the median and quartiles over rounds,
// the first two rounds left out as warm-up. Exits 77 when no GPU is usable.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

__global__ void headroom_empty_kernel() {}

using launch_kernel_fn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                      CUstream, void**, void**);

struct options {
  int launches = 500;  // below the launch queue's depth, so the host never waits for the GPU
  int rounds = 40;
  bool driver = false;
  int queries = 0;
};

bool parse(int argc, char** argv, options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--launches" && has_value) {
      o.launches = std::atoi(argv[++i]);
    } else if (arg == "--rounds" && has_value) {
      o.rounds = std::atoi(argv[++i]);
    } else if (arg == "--queries" && has_value) {
      o.queries = std::atoi(argv[++i]);
    } else if (arg == "--api" && has_value) {
      const std::string api = argv[++i];
      if (api != "runtime" && api != "driver") return false;
      o.driver = api == "driver";
    } else {
      return false;
    }
  }
  return o.launches > 0 && o.rounds > 2 && o.queries >= 0;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(at);
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (at - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  if (!parse(argc, argv, o)) {
    std::fprintf(stderr, "usage: launch_cost [--launches N] [--rounds R>2] [--api runtime|driver] [--queries Q]\n");
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "launch_cost: no usable CUDA device, skipping\n");
    return 77;
  }
  cudaStream_t stream;
  cudaFunction_t function = nullptr;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess ||
      cudaGetFuncBySymbol(&function, reinterpret_cast<const void*>(headroom_empty_kernel)) != cudaSuccess) {
    std::fprintf(stderr, "launch_cost: could not set up the stream or find the kernel\n");
    return 1;
  }
  launch_kernel_fn launch_kernel = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (o.driver && (cudaGetDriverEntryPointByVersion("cuLaunchKernel", reinterpret_cast<void**>(&launch_kernel), 12000,
                                                    cudaEnableDefault, &found) != cudaSuccess ||
                   found != cudaDriverEntryPointSuccess || launch_kernel == nullptr)) {
    std::fprintf(stderr, "launch_cost: cuLaunchKernel not found through the runtime\n");
    return 1;
  }
  std::vector<double> ns_per_launch;
  int device = 0;
  for (int round = 0; round < o.rounds; ++round) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < o.launches; ++i) {
      for (int q = 0; q < o.queries; ++q) {
        if (q % 2 == 0) {
          cudaGetDevice(&device);
        } else {
          (void)cudaGetLastError();
        }
      }
      if (o.driver) {
        launch_kernel(reinterpret_cast<CUfunction>(function), 1, 1, 1, 32, 1, 1, 0, reinterpret_cast<CUstream>(stream),
                      nullptr, nullptr);
      } else {
        headroom_empty_kernel<<<1, 32, 0, stream>>>();
      }
    }
    const auto end = std::chrono::steady_clock::now();
    if (cudaStreamSynchronize(stream) != cudaSuccess || cudaGetLastError() != cudaSuccess) {
      std::fprintf(stderr, "launch_cost: a launch failed\n");
      return 1;
    }
    if (round >= 2) ns_per_launch.push_back(std::chrono::duration<double, std::nano>(end - start).count() / o.launches);
  }
  std::printf(
      "{\"api\": \"%s\", \"launches\": %d, \"rounds\": %d, \"queries\": %d, \"median_ns\": %.1f, "
      "\"q1_ns\": %.1f, \"q3_ns\": %.1f}\n",
      o.driver ? "driver" : "runtime", o.launches, o.rounds, o.queries, quantile(ns_per_launch, 0.5),
      quantile(ns_per_launch, 0.25), quantile(ns_per_launch, 0.75));
  return 0;
}
