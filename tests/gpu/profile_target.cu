// A CUDA program whose trace is known in advance, for tests/gpu/profile_test.sh:
//   headroom_test_a_kernel  x10 on stream A, each ~50 us
//   headroom_test_b_kernel  x5  on stream B, each ~50 us
//   one cuBLAS sgemm (a kernel named *gemm*, *nvjet* or *cutlass*)
//   a CUDA graph of 3 headroom_test_graph_kernel nodes, launched twice (6 kernel records)
//   NVTX: push "outer", push "inner", mark "headroom_test_mark", pop, pop
//   one cudaMemcpy HtoD and one cudaMemset
// Usage: profile_target [normal|signal|multi|capture]. `capture` wraps only the b kernels in
// cudaProfilerStart/cudaProfilerStop (for --capture-range cudaProfilerApi), waits 300 ms, and runs a
// second range of one a kernel at the end. `signal` sleeps 1.5 s after the work (so the
// profiler's flush thread has written it) and raises SIGTERM. `multi` makes no CUDA call itself: it
// starts two copies of itself in `normal` mode (fork and exec, as torchrun starts its ranks), the
// second on the next GPU when there is one, and exits 0 when both did. Exits 77 when no GPU is usable.
#include <cublas_v2.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#define CHECK(x)                                                                           \
  do {                                                                                     \
    cudaError_t e_ = (x);                                                                  \
    if (e_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "profile_target: %s failed: %s\n", #x, cudaGetErrorString(e_)); \
      return 1;                                                                            \
    }                                                                                      \
  } while (0)

// Spins for at least `ns` nanoseconds of device time; __nanosleep alone may return early.
__device__ void spin_for(unsigned long long ns) {
  unsigned long long t0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  unsigned long long now = t0;
  while (now - t0 < ns) {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  }
}

__global__ void headroom_test_a_kernel(int* out) {
  spin_for(50'000);
  if (threadIdx.x == 0) atomicAdd(out, 1);
}
__global__ void headroom_test_b_kernel(int* out) {
  spin_for(50'000);
  if (threadIdx.x == 0) atomicAdd(out + 1, 1);
}
__global__ void headroom_test_graph_kernel(int* out) {
  spin_for(10'000);
  if (threadIdx.x == 0) atomicAdd(out + 2, 1);
}

// Two ranks, each a fresh process running the normal workload; HEADROOM_TEST_RANK picks its GPU.
int run_ranks(const char* self) {
  pid_t pids[2];
  for (int rank = 0; rank < 2; ++rank) {
    pids[rank] = fork();
    if (pids[rank] < 0) return 1;
    if (pids[rank] == 0) {
      setenv("HEADROOM_TEST_RANK", rank ? "1" : "0", 1);
      execl("/proc/self/exe", self, "normal", static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  int result = 0;
  for (pid_t pid : pids) {
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return 1;
    int code = WEXITSTATUS(status);
    if (code == 77) return 77;
    if (code != 0) result = 1;
  }
  std::printf("profile_target: both ranks ran\n");
  return result;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "multi") == 0) return run_ranks(argv[0]);
  const bool signal_mode = argc > 1 && std::strcmp(argv[1], "signal") == 0;
  const bool capture_mode = argc > 1 && std::strcmp(argv[1], "capture") == 0;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "profile_target: no usable CUDA device, skipping\n");
    return 77;
  }
  if (const char* rank = std::getenv("HEADROOM_TEST_RANK")) CHECK(cudaSetDevice(std::atoi(rank) % devices));
  int* counters = nullptr;
  CHECK(cudaMalloc(&counters, 16 * sizeof(int)));
  std::vector<int> host(16, 0);

  nvtxRangePushA("outer");
  CHECK(cudaMemcpy(counters, host.data(), 16 * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(counters, 0, 16 * sizeof(int)));
  nvtxRangePushA("inner");
  nvtxMarkA("headroom_test_mark");

  cudaStream_t a, b;
  CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  for (int i = 0; i < 10; ++i) headroom_test_a_kernel<<<1, 32, 0, a>>>(counters);
  if (capture_mode) {
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaProfilerStart());
  }
  for (int i = 0; i < 5; ++i) headroom_test_b_kernel<<<1, 32, 0, b>>>(counters);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  if (capture_mode) {
    CHECK(cudaProfilerStop());
    // Past the profiler's flush period (the test sets 50 ms): with --capture-range-end stop, CUPTI
    // is detached while this program still has CUDA work, NVTX and a second range to come.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  nvtxRangePop();  // inner

  // cuBLAS: C = A * B, 256^3; the kernel's name depends on the cuBLAS version.
  const int n = 256;
  float *ma, *mb, *mc;
  CHECK(cudaMalloc(&ma, n * n * sizeof(float)));
  CHECK(cudaMalloc(&mb, n * n * sizeof(float)));
  CHECK(cudaMalloc(&mc, n * n * sizeof(float)));
  // The inputs' values do not matter (the test counts kernels); no memset, so exactly one is recorded.
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "profile_target: cublasCreate failed\n");
    return 1;
  }
  cublasSetStream(handle, a);
  const float one = 1.f, zero = 0.f;
  if (cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, ma, n, mb, n, &zero, mc, n) !=
      CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "profile_target: cublasSgemm failed\n");
    return 1;
  }
  CHECK(cudaStreamSynchronize(a));

  // A graph of three kernel nodes, captured from stream b and launched twice.
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(b, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < 3; ++i) headroom_test_graph_kernel<<<1, 32, 0, b>>>(counters);
  CHECK(cudaStreamEndCapture(b, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  CHECK(cudaGraphLaunch(exec, b));
  CHECK(cudaGraphLaunch(exec, b));
  CHECK(cudaStreamSynchronize(b));

  // Synchronisation records: stream b is made to wait for an event recorded on stream a, and the
  // host waits for that event.
  cudaEvent_t ready;
  CHECK(cudaEventCreate(&ready));
  CHECK(cudaEventRecord(ready, a));
  CHECK(cudaStreamWaitEvent(b, ready, 0));
  CHECK(cudaEventSynchronize(ready));
  nvtxRangePop();  // outer

  // capture: a second range, one more a kernel (recorded with --capture-range-end repeat only).
  if (capture_mode) {
    CHECK(cudaProfilerStart());
    headroom_test_a_kernel<<<1, 32, 0, a>>>(counters);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaProfilerStop());
  }

  CHECK(cudaMemcpy(host.data(), counters, 3 * sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("profile_target: a=%d b=%d graph=%d kernels ran\n", host[0], host[1], host[2]);
  if (host[0] != (capture_mode ? 11 : 10) || host[1] != 5 || host[2] != 6) return 1;

  if (signal_mode) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    std::raise(SIGTERM);
  }
  cublasDestroy(handle);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  return 0;
}
