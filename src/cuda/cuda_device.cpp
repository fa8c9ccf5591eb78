// A CUDA GPU as the worker's device (include/headroom/worker/device.hpp): memory from cudaMalloc,
// copies staged through pinned buffers, the L2 flush, events, held launches, the idle probe's round
// trip, and through NVML the clocks and the processes that hold a context.
#include <cuda.h>
#include <cuda_runtime.h>
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

#include "fresh_inputs.hpp"
#include "idle_probe.hpp"
#include "poison_pattern.hpp"
#include "headroom/cuda/cuda_try.hpp"
#include "headroom/cuda/hold_watchdog.hpp"
#include "headroom/cuda/staging.hpp"
#include "headroom/util/parallel.hpp"
#include "headroom/worker/device.hpp"

namespace headroom::cuda {
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

// The staging steps (staging.hpp) on CUDA: transfers on the staging stream, an event per buffer,
// host sides on the worker's copy threads.
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
  void to_device(std::byte* dst, const std::byte* buf, std::size_t n, int b) const {
    start(dst, buf, n, cudaMemcpyHostToDevice, b);
  }
  void to_host(std::byte* buf, const std::byte* src, std::size_t n, int b) const {
    start(buf, src, n, cudaMemcpyDeviceToHost, b);
  }
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

// The gate a held stream waits at: a word in pinned host memory the device can read, 0 closed, 1
// opened by the host after the call, 2 opened by the watchdog when the call outlived
// hold_timeout_ms (it waited for its own stream).
//
// The stream waits with cuStreamWaitValue32: the device's front end polls the word, and everything
// queued behind it is already on the device, so once the word changes the start event, the call's
// kernels and the stop event follow one another at the device's pace, with no driver thread in
// between. A host function that spins until the word changes (cudaLaunchHostFunc) gives the same
// device times at twice the host cost per call (0.040-0.050 ms against 0.020-0.025 ms on the H200,
// docs/device.md); it is the fallback where the driver has no stream memory operations, or when
// HEADROOM_EVAL_HOLD=host-function asks for it (an A/B).
struct launch_gate {
  std::atomic<std::uint32_t>* word = nullptr;  // in pinned, mapped host memory
  CUdeviceptr device_word = 0;
  CUresult (*wait_value)(CUstream, CUdeviceptr, cuuint32_t, unsigned) = nullptr;  // null: host function
  hold_watchdog* watchdog = nullptr;  // never destroyed, as the gate itself

  launch_gate() {
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

// The fallback: a host function on the stream that returns once the word is no longer 0.
void CUDART_CB wait_at_gate(void* p) {
  auto* g = static_cast<launch_gate*>(p);
  while (g->word->load(std::memory_order_acquire) == 0) std::this_thread::yield();
}

// Clocks and compute processes through NVML, opened at run time (it ships with the driver, not the
// toolkit). The device is found by PCI bus id, so CUDA_VISIBLE_DEVICES renumbering does not matter.
struct nvml {
  void* dev = nullptr;
  int (*clock)(void*, int, unsigned*) = nullptr;
  int (*max_clock)(void*, int, unsigned*) = nullptr;
  int (*driver)(char*, unsigned) = nullptr;
  int (*compute_processes)(void*, unsigned*, void*) = nullptr;  // null in drivers before 450
};

// nvmlProcessInfo_t as nvmlDeviceGetComputeRunningProcesses_v3 fills it (no nvml.h is needed to
// build: NVML is opened at run time).
struct nvml_process_info {
  unsigned pid;
  unsigned long long used_gpu_memory;
  unsigned gpu_instance_id;
  unsigned compute_instance_id;
};
constexpr int nvml_insufficient_size = 7;  // NVML_ERROR_INSUFFICIENT_SIZE

class cuda_device final : public worker::device {
 public:
  explicit cuda_device(int index) : index_(index) { HEADROOM_CUDA_TRY(cudaSetDevice(index_)); }
  bool is_cuda() const override { return true; }
  int index() const override { return index_; }
  void* allocate(std::size_t bytes) override {
    void* p = nullptr;
    HEADROOM_CUDA_TRY(cudaMalloc(&p, bytes == 0 ? 1 : bytes));
    return p;
  }
  void release(void* p) override {
    cudaFree(p);  // log-only: a sticky error has already been reported by the call that caused it
  }
  void copy_to_device(void* dst, const void* src, std::size_t bytes) override {
    if (bytes >= staged_min_bytes && staged_copies()) return staged_copy(dst, src, bytes, true);
    HEADROOM_CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  }
  void copy_to_host(void* dst, const void* src, std::size_t bytes) override {
    if (bytes >= staged_min_bytes && staged_copies()) return staged_copy(dst, src, bytes, false);
    HEADROOM_CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
  }
  void copy_on_device(void* dst, const void* src, std::size_t bytes) override {
    HEADROOM_CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
  }
  // The input check comes over in slices through the two reused pinned buffers, a slice compared
  // while the next one copies: no host buffer as large as the tensor, whose fresh pages would cost
  // more than the copy.
  bool equals_host(const void* src, const void* host, std::size_t bytes) override {
    if (bytes == 0) return true;
    make_staging();
    cuda_staging ops{staging_, staging_done_, static_cast<cudaStream_t>(staging_stream_)};
    return staged_equal(static_cast<const std::byte*>(src), static_cast<const std::byte*>(host), bytes, staging_bytes,
                        ops);
  }
  void perturbed_copy(void* dst, const void* src, dtype type, std::size_t numel, std::uint64_t seed,
                      std::uint64_t symmetric_n) override {
    HEADROOM_CUDA_TRY(
        launch_perturbed_copy(dst, src, type, numel, seed, symmetric_n, reinterpret_cast<cudaStream_t>(stream_)));
  }
  std::array<double, worker::sketch_width> sketch(const void* data, dtype type, std::size_t numel,
                                                  std::uint64_t seed) override {
    auto stream = reinterpret_cast<cudaStream_t>(stream_);
    if (!sketch_sums_) HEADROOM_CUDA_TRY(cudaMalloc(&sketch_sums_, sizeof(double) * worker::sketch_width));
    HEADROOM_CUDA_TRY(cudaMemsetAsync(sketch_sums_, 0, sizeof(double) * worker::sketch_width, stream));
    HEADROOM_CUDA_TRY(launch_sketch(data, type, numel, seed, static_cast<double*>(sketch_sums_), stream));
    std::array<double, worker::sketch_width> out{};
    HEADROOM_CUDA_TRY(cudaMemcpyAsync(out.data(), sketch_sums_, sizeof(double) * worker::sketch_width,
                                      cudaMemcpyDeviceToHost, stream));
    HEADROOM_CUDA_TRY(cudaStreamSynchronize(stream));
    return out;
  }
  void fill_pattern(void* p, std::size_t bytes, const worker::poison_pattern& pattern) override {
    HEADROOM_CUDA_TRY(launch_fill_pattern(p, bytes, pattern, reinterpret_cast<cudaStream_t>(stream_)));
  }
  std::size_t count_pattern(const void* p, std::size_t bytes, std::size_t element_bytes,
                            const worker::poison_pattern& pattern) override {
    auto stream = reinterpret_cast<cudaStream_t>(stream_);
    if (!pattern_count_) HEADROOM_CUDA_TRY(cudaMalloc(&pattern_count_, sizeof(unsigned long long)));
    auto* total = static_cast<unsigned long long*>(pattern_count_);
    HEADROOM_CUDA_TRY(cudaMemsetAsync(total, 0, sizeof(unsigned long long), stream));
    HEADROOM_CUDA_TRY(launch_count_pattern(p, bytes, element_bytes, pattern, total, stream));
    unsigned long long out = 0;
    HEADROOM_CUDA_TRY(cudaMemcpyAsync(&out, total, sizeof out, cudaMemcpyDeviceToHost, stream));
    HEADROOM_CUDA_TRY(cudaStreamSynchronize(stream));
    return static_cast<std::size_t>(out);
  }
  void set_stream(std::uintptr_t stream) override { stream_ = stream; }
  void synchronize() override { HEADROOM_CUDA_TRY(cudaDeviceSynchronize()); }
  void flush_caches() override;
  void start_timer(bool hold) override;
  void call_returned() override { host_call_ms_ = worker::host_ms() - wall_start_; }
  times stop_timer() override;
  std::string hold_mechanism() const override {
    if (!gate_) return "";
    return gate_->wait_value ? "stream wait" : "host function";
  }
  double round_trip_ms() override {
    auto stream = reinterpret_cast<cudaStream_t>(stream_);
    const double began = worker::host_ms();
    HEADROOM_CUDA_TRY(launch_idle_probe(stream));
    HEADROOM_CUDA_TRY(cudaStreamSynchronize(stream));
    return worker::host_ms() - began;
  }
  std::vector<std::uint64_t> context_pids() override;
  double copy_bandwidth() override;
  std::string driver_version() override {
    int v = 0;
    if (cudaDriverGetVersion(&v) == cudaSuccess) return fmt::format("CUDA driver API {}.{}", v / 1000, (v % 1000) / 10);
    return "";
  }
  std::string runtime_version() override {
    int v = 0;
    if (cudaRuntimeGetVersion(&v) == cudaSuccess) return fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
    return "";
  }
  std::string clocks() override;
  unsigned sm_clock_mhz() override {
    nvml* n = open_nvml();
    unsigned mhz = 0;
    if (n) n->clock(n->dev, 1 /* NVML_CLOCK_SM */, &mhz);
    return mhz;
  }
  unsigned sm_clock_max_mhz() override {
    nvml* n = open_nvml();
    unsigned mhz = 0;
    if (n && n->max_clock) n->max_clock(n->dev, 1, &mhz);
    return mhz;
  }

 private:
  void make_staging();
  void staged_copy(void* dst, const void* src, std::size_t bytes, bool to_device);
  nvml* open_nvml();

  int index_ = 0;
  std::uintptr_t stream_ = 0;
  void* flush_buffer_ = nullptr;
  std::size_t flush_bytes_ = 0;
  void* sketch_sums_ = nullptr;  // sketch_width doubles on the device
  void* pattern_count_ = nullptr;  // one unsigned long long on the device
  // Copies of gigabytes between pageable host memory and the device go through two pinned buffers
  // (a slice's DMA overlapping the host side of the other), the host side on the copy threads.
  void* staging_[2] = {nullptr, nullptr};  // pinned, staging_bytes each, made on first use
  void* staging_stream_ = nullptr;
  void* staging_done_[2] = {nullptr, nullptr};
  static constexpr std::size_t staging_bytes = std::size_t{64} << 20;
  void* start_event_ = nullptr;
  void* stop_event_ = nullptr;
  double wall_start_ = 0;
  double host_call_ms_ = 0;
  launch_gate* gate_ = nullptr;  // created on first hold, never freed (a host function may still point at it)
  bool holding_ = false;
  nvml* nvml_ = nullptr;  // loaded on first use, never unloaded
};

void cuda_device::make_staging() {
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

// cudaMemcpy between pageable memory and the device ran at 7.5 GB/s to the device and 5.5 GB/s to
// host pages already mapped (1.5 GB/s to fresh ones) on the H200 host, one thread staging through
// the driver's own buffers; pinned DMA runs at 55 GB/s (bench/RESULTS.md, host memory).
void cuda_device::staged_copy(void* dst, const void* src, std::size_t bytes, bool to_device) {
  make_staging();
  // cudaMemcpy on the legacy default stream waited for the tensors' streams; this stream does not.
  HEADROOM_CUDA_TRY(cudaDeviceSynchronize());
  cuda_staging ops{staging_, staging_done_, static_cast<cudaStream_t>(staging_stream_)};
  if (to_device)
    staged_to_device(static_cast<std::byte*>(dst), static_cast<const std::byte*>(src), bytes, staging_bytes, ops);
  else staged_to_host(static_cast<std::byte*>(dst), static_cast<const std::byte*>(src), bytes, staging_bytes, ops);
}

void cuda_device::flush_caches() {
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
}

void cuda_device::start_timer(bool hold) {
  synchronize();
  holding_ = false;
  if (!start_event_) {
    cudaEvent_t a, b;
    HEADROOM_CUDA_TRY(cudaEventCreate(&a));
    HEADROOM_CUDA_TRY(cudaEventCreate(&b));
    start_event_ = a;
    stop_event_ = b;
  }
  auto stream = reinterpret_cast<cudaStream_t>(stream_);
  if (hold) {
    if (!gate_) gate_ = new launch_gate;
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
  // The wall clock starts before the start event is recorded, so that the events' interval lies
  // inside the wall clock's: recorded first, an unheld stream runs the event at once, and a host
  // delayed before reading its clock (preempted, or the record's own return) reported device time
  // longer than the call's wall clock (0.100 ms against 0.075 ms on the H200), which
  // contradicted_times rightly calls tampering.
  wall_start_ = worker::host_ms();
  HEADROOM_CUDA_TRY(cudaEventRecord(static_cast<cudaEvent_t>(start_event_), stream));
  host_call_ms_ = -1;
}

worker::device::times cuda_device::stop_timer() {
  if (host_call_ms_ < 0) call_returned();
  HEADROOM_CUDA_TRY(cudaEventRecord(static_cast<cudaEvent_t>(stop_event_), reinterpret_cast<cudaStream_t>(stream_)));
  bool timed_out = false;
  if (holding_) timed_out = !gate_->open();
  // The timed stream's end, then the device's: work the candidate left on other streams shows as
  // the time between the two (both are host clocks taken after a wait, so the release of held
  // launches and the driver's wake-up cost the same on either side).
  HEADROOM_CUDA_TRY(cudaEventSynchronize(static_cast<cudaEvent_t>(stop_event_)));
  double stream_end = worker::host_ms();
  HEADROOM_CUDA_TRY(cudaDeviceSynchronize());
  double device_end = worker::host_ms();
  float ms = 0;
  HEADROOM_CUDA_TRY(
      cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start_event_), static_cast<cudaEvent_t>(stop_event_)));
  return {ms, device_end - wall_start_, host_call_ms_, device_end - stream_end, holding_, timed_out};
}

double cuda_device::copy_bandwidth() {
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

nvml* cuda_device::open_nvml() {
  if (nvml_) return nvml_;
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return nullptr;
  auto init = reinterpret_cast<int (*)()>(dlsym(lib, "nvmlInit_v2"));
  auto by_bus = reinterpret_cast<int (*)(const char*, void**)>(dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
  auto n = std::make_unique<nvml>();
  n->clock = reinterpret_cast<int (*)(void*, int, unsigned*)>(dlsym(lib, "nvmlDeviceGetClockInfo"));
  n->max_clock = reinterpret_cast<int (*)(void*, int, unsigned*)>(dlsym(lib, "nvmlDeviceGetMaxClockInfo"));
  n->driver = reinterpret_cast<int (*)(char*, unsigned)>(dlsym(lib, "nvmlSystemGetDriverVersion"));
  n->compute_processes =
      reinterpret_cast<int (*)(void*, unsigned*, void*)>(dlsym(lib, "nvmlDeviceGetComputeRunningProcesses_v3"));
  char bus[64] = {};
  if (!init || !by_bus || !n->clock || init() != 0 || cudaDeviceGetPCIBusId(bus, sizeof bus, index_) != cudaSuccess ||
      by_bus(bus, &n->dev) != 0)
    return nullptr;
  nvml_ = n.release();
  return nvml_;
}

std::vector<std::uint64_t> cuda_device::context_pids() {
  std::vector<std::uint64_t> pids;
  nvml* n = open_nvml();
  if (!n || !n->compute_processes) return pids;
  std::vector<nvml_process_info> infos(64);
  for (int attempt = 0; attempt < 3; ++attempt) {  // processes may start between the calls
    auto count = static_cast<unsigned>(infos.size());
    const int r = n->compute_processes(n->dev, &count, infos.data());
    if (r == nvml_insufficient_size) {
      infos.resize(count + 16);
      continue;
    }
    if (r != 0) return pids;
    for (unsigned i = 0; i < count; ++i) pids.push_back(infos[i].pid);
    return pids;
  }
  return pids;
}

std::string cuda_device::clocks() {
  nvml* n = open_nvml();
  if (!n) return "";
  unsigned mem = 0;
  n->clock(n->dev, 2 /* NVML_CLOCK_MEM */, &mem);
  std::string out = fmt::format("sm {} MHz (max {}), mem {} MHz", sm_clock_mhz(), sm_clock_max_mhz(), mem);
  char version[96] = {};
  if (n->driver && n->driver(version, sizeof version) == 0) out += fmt::format(", driver {}", version);
  return out;
}

}  // namespace

std::unique_ptr<worker::device> make_cuda_device(const std::string& name) {
  int index = name.size() > 5 ? std::atoi(name.c_str() + 5) : 0;
  return std::make_unique<cuda_device>(index);
}

}  // namespace headroom::cuda
