#include "worker/device.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "headroom/util/parallel.hpp"
#include "worker/hold_watchdog.hpp"
#include "worker/staging.hpp"

#ifdef HEADROOM_WORKER_CUDA
#include <cuda.h>
#include <cuda_runtime.h>
#define HEADROOM_CUDA_TRY(call)                                                                     \
  do {                                                                                              \
    cudaError_t err_ = (call);                                                                      \
    if (err_ != cudaSuccess)                                                                        \
      throw std::runtime_error(fmt::format("{} failed: {} ({}:{})", #call, cudaGetErrorString(err_), \
                                           __FILE__, __LINE__));                                    \
  } while (0)
#endif

namespace headroom::worker {

double host_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

device::device(const std::string& name) {
  if (name == "cpu") return;
  if (name.rfind("cuda", 0) != 0) throw std::runtime_error("unknown device " + name);
#ifdef HEADROOM_WORKER_CUDA
  cuda_ = true;
  index_ = name.size() > 5 ? std::atoi(name.c_str() + 5) : 0;
  HEADROOM_CUDA_TRY(cudaSetDevice(index_));
#else
  throw std::runtime_error("this headroom-worker was built without CUDA; use --device cpu");
#endif
}

void* device::allocate(std::size_t bytes) {
  std::size_t n = bytes == 0 ? 1 : bytes;
#ifdef HEADROOM_WORKER_CUDA
  if (cuda_) {
    void* p = nullptr;
    HEADROOM_CUDA_TRY(cudaMalloc(&p, n));
    return p;
  }
#endif
  void* p = std::aligned_alloc(64, (n + 63) / 64 * 64);
  if (!p) throw std::bad_alloc();
  return p;
}

void device::release(void* p) {
#ifdef HEADROOM_WORKER_CUDA
  if (cuda_) {
    cudaFree(p);  // log-only: a sticky error has already been reported by the call that caused it
    return;
  }
#endif
  std::free(p);
}

#ifdef HEADROOM_WORKER_CUDA
namespace {

// Below this a copy goes straight through cudaMemcpy: staging pays off on bulk.
constexpr std::size_t staged_min_bytes = std::size_t{8} << 20;
// The host side of a staged slice is cut into pieces for the worker's copy threads.
constexpr std::size_t piece_bytes = std::size_t{2} << 20;

// HEADROOM_EVAL_STAGED_COPIES=0 turns staging off (plain cudaMemcpy), for an A/B on a GPU.
bool staged_copies() {
  static const bool on = [] {
    const char* v = std::getenv("HEADROOM_EVAL_STAGED_COPIES");
    return !(v && std::string(v) == "0");
  }();
  return on;
}


}  // namespace
#endif

void device::copy_to_device(void* dst, const void* src, std::size_t bytes) {
#ifdef HEADROOM_WORKER_CUDA
  if (cuda_) {
    if (bytes >= staged_min_bytes && staged_copies()) return staged_copy(dst, src, bytes, true);
    HEADROOM_CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
    return;
  }
#endif
  std::memcpy(dst, src, bytes);
}

void device::copy_to_host(void* dst, const void* src, std::size_t bytes) {
#ifdef HEADROOM_WORKER_CUDA
  if (cuda_) {
    if (bytes >= staged_min_bytes && staged_copies()) return staged_copy(dst, src, bytes, false);
    HEADROOM_CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
    return;
  }
#endif
  std::memcpy(dst, src, bytes);
}

#ifdef HEADROOM_WORKER_CUDA
void device::make_staging() {
  if (staging_stream_) return;
  cudaStream_t stream;
  HEADROOM_CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  staging_stream_ = stream;
  for (int k = 0; k < 2; ++k) {
    HEADROOM_CUDA_TRY(cudaMallocHost(&staging_[k], staging_bytes));
    cudaEvent_t e;
    HEADROOM_CUDA_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    staging_done_[k] = e;
  }
}

// The staging steps (worker/staging.hpp) on CUDA: transfers on the staging stream, an event per
// buffer, host sides on the worker's copy threads.
struct cuda_staging {
  void* const* buffers;
  void* const* events;
  cudaStream_t stream;
  std::byte* buffer(int b) const { return static_cast<std::byte*>(buffers[b]); }
  void wait(int b) const { HEADROOM_CUDA_TRY(cudaEventSynchronize(static_cast<cudaEvent_t>(events[b]))); }
  void start(void* to, const void* from, std::size_t n, cudaMemcpyKind kind, int b) const {
    HEADROOM_CUDA_TRY(cudaMemcpyAsync(to, from, n, kind, stream));
    HEADROOM_CUDA_TRY(cudaEventRecord(static_cast<cudaEvent_t>(events[b]), stream));
  }
  void to_device(std::byte* dst, const std::byte* buf, std::size_t n, int b) const { start(dst, buf, n, cudaMemcpyHostToDevice, b); }
  void to_host(std::byte* buf, const std::byte* src, std::size_t n, int b) const { start(buf, src, n, cudaMemcpyDeviceToHost, b); }
  void finish() const { HEADROOM_CUDA_TRY(cudaStreamSynchronize(stream)); }
  void host_copy(std::byte* to, const std::byte* from, std::size_t n) const {
    util::copy_in_pieces(to, from, n, piece_bytes, 0);
  }
  bool host_equal(const std::byte* a, const std::byte* b, std::size_t n) const {
    std::atomic<bool> differs{false};
    util::for_each_piece(n, piece_bytes, 0, [&](std::size_t at, std::size_t m) {
      if (!differs.load(std::memory_order_relaxed) && std::memcmp(a + at, b + at, m) != 0) differs = true;
    });
    return !differs;
  }
};

// cudaMemcpy between pageable memory and the device ran at 7.5 GB/s to the device and 5.5 GB/s to
// host pages already mapped (1.5 GB/s to fresh ones) on the H200 host, one thread staging through
// the driver's own buffers; pinned DMA runs at 55 GB/s (bench/RESULTS.md, host memory).
void device::staged_copy(void* dst, const void* src, std::size_t bytes, bool to_device) {
  make_staging();
  // cudaMemcpy on the legacy default stream waited for the tensors' streams; this stream does not.
  HEADROOM_CUDA_TRY(cudaDeviceSynchronize());
  cuda_staging ops{staging_, staging_done_, static_cast<cudaStream_t>(staging_stream_)};
  if (to_device)
    staged_to_device(static_cast<std::byte*>(dst), static_cast<const std::byte*>(src), bytes, staging_bytes, ops);
  else
    staged_to_host(static_cast<std::byte*>(dst), static_cast<const std::byte*>(src), bytes, staging_bytes, ops);
}
#endif

void device::copy_on_device(void* dst, const void* src, std::size_t bytes) {
#ifdef HEADROOM_WORKER_CUDA
  if (cuda_) {
    HEADROOM_CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
    return;
  }
#endif
  std::memcpy(dst, src, bytes);
}

bool device::equals_host(const void* src, const void* host, std::size_t bytes) {
  if (bytes == 0) return true;
#ifdef HEADROOM_WORKER_CUDA
  if (cuda_) {
    make_staging();
    cuda_staging ops{staging_, staging_done_, static_cast<cudaStream_t>(staging_stream_)};
    return staged_equal(static_cast<const std::byte*>(src), static_cast<const std::byte*>(host), bytes, staging_bytes, ops);
  }
#endif
  return std::memcmp(src, host, bytes) == 0;
}

void device::synchronize() {
#ifdef HEADROOM_WORKER_CUDA
  if (cuda_) HEADROOM_CUDA_TRY(cudaDeviceSynchronize());
#endif
}

void device::flush_caches() {
#ifdef HEADROOM_WORKER_CUDA
  if (cuda_) {
    if (!flush_buffer_) {
      int l2 = 0;
      HEADROOM_CUDA_TRY(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, index_));
      flush_bytes_ = 2 * static_cast<std::size_t>(l2 > 0 ? l2 : 64 << 20);
      HEADROOM_CUDA_TRY(cudaMalloc(&flush_buffer_, flush_bytes_));
    }
    // A candidate can pin its inputs in L2 with an access-policy window (llm.c PR #851); resetting
    // persisting lines first makes the memset below evict them too.
    HEADROOM_CUDA_TRY(cudaCtxResetPersistingL2Cache());
    static int flip = 0;
    flip ^= 1;
    HEADROOM_CUDA_TRY(cudaMemsetAsync(flush_buffer_, flip, flush_bytes_, reinterpret_cast<cudaStream_t>(stream_)));
    return;
  }
#endif
  // On the CPU: write 64 MiB, more than the last-level caches of the machines we run on.
  static std::vector<unsigned char> buffer(64u << 20);
  static unsigned char v = 0;
  std::memset(buffer.data(), ++v, buffer.size());
}

#ifdef HEADROOM_WORKER_CUDA
// The gate a held stream waits at: a word in pinned host memory the device can read, 0 closed, 1
// opened by the host after the call, 2 opened by the watchdog when the call outlived
// hold_timeout_ms (it waited for its own stream).
//
// The stream waits with cuStreamWaitValue32: the device's front end polls the word, and everything
// queued behind it is already on the device, so once the word changes the start event, the call's
// kernels and the stop event follow one another at the device's pace, with no driver thread in
// between. The first gate (sessions 3-7) was a host function (cudaLaunchHostFunc) that spun until
// the word changed. It was replaced while chasing a spread between processes on a 0.056 ms problem
// that turned out to be the host's dispatch, not the gate (bench/RESULTS.md, session 8): both gates
// give the same device times; the stream wait costs half the host time per call (0.020-0.025 ms
// against 0.040-0.050 ms on the H200) and keeps no driver thread spinning. The host function stays as
// the fallback where the driver has no stream memory operations, or when
// HEADROOM_EVAL_HOLD=host-function asks for it (an A/B).
struct device::gate {
  std::atomic<std::uint32_t>* word = nullptr;  // in pinned, mapped host memory
  CUdeviceptr device_word = 0;
  CUresult (*wait_value)(CUstream, CUdeviceptr, cuuint32_t, unsigned) = nullptr;  // null: host function
  hold_watchdog* watchdog = nullptr;  // never destroyed, as the gate itself

  gate() {
    void* p = nullptr;
    HEADROOM_CUDA_TRY(cudaHostAlloc(&p, 64, cudaHostAllocMapped | cudaHostAllocPortable));
    word = new (p) std::atomic<std::uint32_t>(1);
    void* d = nullptr;
    HEADROOM_CUDA_TRY(cudaHostGetDevicePointer(&d, p, 0));
    device_word = reinterpret_cast<CUdeviceptr>(d);
    const char* asked = std::getenv("HEADROOM_EVAL_HOLD");
    if (!(asked && std::string_view(asked) == "host-function")) {
      void* fn = nullptr;
      cudaDriverEntryPointQueryResult found{};
      if (cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", &fn, 12000, cudaEnableDefault, &found) ==
              cudaSuccess &&
          found == cudaDriverEntryPointSuccess)
        wait_value = reinterpret_cast<decltype(wait_value)>(fn);
    }
    watchdog = new hold_watchdog(*word);
  }
  void close(double timeout_ms) {
    watchdog->close(std::chrono::microseconds(static_cast<long long>(timeout_ms * 1e3)));
  }
  bool open() { return watchdog->open(); }
};

namespace {
// The fallback: a host function on the stream that returns once the word is no longer 0.
void CUDART_CB wait_at_gate(void* p) {
  auto* g = static_cast<device::gate*>(p);
  while (g->word->load(std::memory_order_acquire) == 0) std::this_thread::yield();
}
}  // namespace

std::string device::hold_mechanism() const {
  if (!gate_) return "";
  return gate_->wait_value ? "stream wait" : "host function";
}
#else
std::string device::hold_mechanism() const { return ""; }
#endif

void device::start_timer(bool hold) {
  synchronize();
  holding_ = false;
#ifdef HEADROOM_WORKER_CUDA
  if (cuda_) {
    if (!start_event_) {
      cudaEvent_t a, b;
      HEADROOM_CUDA_TRY(cudaEventCreate(&a));
      HEADROOM_CUDA_TRY(cudaEventCreate(&b));
      start_event_ = a;
      stop_event_ = b;
    }
    auto stream = reinterpret_cast<cudaStream_t>(stream_);
    if (hold) {
      if (!gate_) gate_ = new gate;
      gate_->close(hold_timeout_ms);
      if (gate_->wait_value) {
        CUresult r = gate_->wait_value(stream, gate_->device_word, 1, CU_STREAM_WAIT_VALUE_GEQ);
        if (r != CUDA_SUCCESS) {
          gate_->open();
          throw std::runtime_error(fmt::format("cuStreamWaitValue32 failed: CUresult {}", static_cast<int>(r)));
        }
      } else {
        HEADROOM_CUDA_TRY(cudaLaunchHostFunc(stream, wait_at_gate, gate_));
      }
      holding_ = true;
    }
    HEADROOM_CUDA_TRY(cudaEventRecord(static_cast<cudaEvent_t>(start_event_), stream));
  }
#else
  (void)hold;
#endif
  wall_start_ = host_ms();
  host_call_ms_ = -1;
}

void device::call_returned() { host_call_ms_ = host_ms() - wall_start_; }

device::times device::stop_timer() {
  if (host_call_ms_ < 0) call_returned();
#ifdef HEADROOM_WORKER_CUDA
  if (cuda_) {
    HEADROOM_CUDA_TRY(cudaEventRecord(static_cast<cudaEvent_t>(stop_event_), reinterpret_cast<cudaStream_t>(stream_)));
    bool timed_out = false;
    if (holding_) timed_out = !gate_->open();
    // The timed stream's end, then the device's: work the candidate left on other streams shows as
    // the time between the two (both are host clocks taken after a wait, so the release of held
    // launches and the driver's wake-up cost the same on either side).
    HEADROOM_CUDA_TRY(cudaEventSynchronize(static_cast<cudaEvent_t>(stop_event_)));
    double stream_end = host_ms();
    HEADROOM_CUDA_TRY(cudaDeviceSynchronize());
    double device_end = host_ms();
    float ms = 0;
    HEADROOM_CUDA_TRY(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start_event_), static_cast<cudaEvent_t>(stop_event_)));
    return {ms, device_end - wall_start_, host_call_ms_, device_end - stream_end, holding_, timed_out};
  }
#endif
  double wall = host_ms() - wall_start_;
  return {wall, wall, host_call_ms_, 0, false, false};
}

double device::copy_bandwidth() {
#ifdef HEADROOM_WORKER_CUDA
  if (cuda_) {
    std::size_t bytes = 1ull << 30;
    void *a = nullptr, *b = nullptr;
    HEADROOM_CUDA_TRY(cudaMalloc(&a, bytes));
    HEADROOM_CUDA_TRY(cudaMalloc(&b, bytes));
    HEADROOM_CUDA_TRY(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
    cudaEvent_t s, e;
    HEADROOM_CUDA_TRY(cudaEventCreate(&s));
    HEADROOM_CUDA_TRY(cudaEventCreate(&e));
    float best = 1e30f;
    for (int i = 0; i < 5; ++i) {
      HEADROOM_CUDA_TRY(cudaEventRecord(s));
      HEADROOM_CUDA_TRY(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
      HEADROOM_CUDA_TRY(cudaEventRecord(e));
      HEADROOM_CUDA_TRY(cudaEventSynchronize(e));
      float ms = 0;
      HEADROOM_CUDA_TRY(cudaEventElapsedTime(&ms, s, e));
      best = std::min(best, ms);
    }
    cudaEventDestroy(s);
    cudaEventDestroy(e);
    cudaFree(a);
    cudaFree(b);
    return 2.0 * static_cast<double>(bytes) / (best * 1e-3);
  }
#endif
  return 0;
}

std::string device::driver_version() {
#ifdef HEADROOM_WORKER_CUDA
  int v = 0;
  if (cudaDriverGetVersion(&v) == cudaSuccess) return fmt::format("CUDA driver API {}.{}", v / 1000, (v % 1000) / 10);
#endif
  return "";
}

std::string device::runtime_version() {
#ifdef HEADROOM_WORKER_CUDA
  int v = 0;
  if (cudaRuntimeGetVersion(&v) == cudaSuccess) return fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
#endif
  return "";
}

// Clocks through NVML, opened at run time (it ships with the driver, not the toolkit). The device is
// found by PCI bus id, so CUDA_VISIBLE_DEVICES renumbering does not matter.
struct device::nvml {
  void* dev = nullptr;
  int (*clock)(void*, int, unsigned*) = nullptr;
  int (*max_clock)(void*, int, unsigned*) = nullptr;
  int (*driver)(char*, unsigned) = nullptr;
};

device::nvml* device::open_nvml() {
  if (nvml_ || !cuda_) return nvml_;
#ifdef HEADROOM_WORKER_CUDA
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return nullptr;
  auto init = reinterpret_cast<int (*)()>(dlsym(lib, "nvmlInit_v2"));
  auto by_bus = reinterpret_cast<int (*)(const char*, void**)>(dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
  auto n = std::make_unique<nvml>();
  n->clock = reinterpret_cast<int (*)(void*, int, unsigned*)>(dlsym(lib, "nvmlDeviceGetClockInfo"));
  n->max_clock = reinterpret_cast<int (*)(void*, int, unsigned*)>(dlsym(lib, "nvmlDeviceGetMaxClockInfo"));
  n->driver = reinterpret_cast<int (*)(char*, unsigned)>(dlsym(lib, "nvmlSystemGetDriverVersion"));
  char bus[64] = {};
  if (!init || !by_bus || !n->clock || init() != 0 || cudaDeviceGetPCIBusId(bus, sizeof bus, index_) != cudaSuccess ||
      by_bus(bus, &n->dev) != 0)
    return nullptr;
  nvml_ = n.release();
#endif
  return nvml_;
}

unsigned device::sm_clock_mhz() {
  nvml* n = open_nvml();
  unsigned mhz = 0;
  if (n) n->clock(n->dev, 1 /* NVML_CLOCK_SM */, &mhz);
  return mhz;
}

unsigned device::sm_clock_max_mhz() {
  nvml* n = open_nvml();
  unsigned mhz = 0;
  if (n && n->max_clock) n->max_clock(n->dev, 1, &mhz);
  return mhz;
}

std::string device::clocks() {
  nvml* n = open_nvml();
  if (!n) return "";
  unsigned mem = 0;
  n->clock(n->dev, 2 /* NVML_CLOCK_MEM */, &mem);
  std::string out = fmt::format("sm {} MHz (max {}), mem {} MHz", sm_clock_mhz(), sm_clock_max_mhz(), mem);
  char version[96] = {};
  if (n->driver && n->driver(version, sizeof version) == 0) out += fmt::format(", driver {}", version);
  return out;
}

}  // namespace headroom::worker
