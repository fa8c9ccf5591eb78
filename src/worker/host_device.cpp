// The host as the device: on the CPU path memory is host memory and time is the host clock.
#include <sys/mman.h>
#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

#include "headroom/util/parallel.hpp"
#include "headroom/worker/device.hpp"
#include "worker/host_sketch.hpp"

namespace headroom::worker {

double host_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

namespace {

#if defined(__x86_64__)
// clflushopt where the CPU has it (leaf 7, EBX bit 23), else clflush: either writes a line back and
// drops it from every cache in the coherence domain, the other cores' included.
bool has_clflushopt() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 23)) != 0;
}

[[gnu::target("clflushopt")]] void flush_lines_opt(const char* begin, const char* end) {
  for (const char* q = begin; q < end; q += 64) _mm_clflushopt(const_cast<char*>(q));
}

void evict_lines(const void* p, std::size_t bytes) {
  if (!p || bytes == 0) return;
  static const bool opt = has_clflushopt();
  const auto first = reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t{63};
  const char* begin = reinterpret_cast<const char*>(first);
  const char* end = static_cast<const char*>(p) + bytes;
  if (opt) flush_lines_opt(begin, end);
  else
    for (const char* q = begin; q < end; q += 64) _mm_clflush(q);
  _mm_mfence();
}
#else
// Elsewhere the 64 MiB write of flush_caches is the only eviction.
void evict_lines(const void*, std::size_t) {}
#endif

// bfloat16 <-> float, rounding to nearest even (a NaN stays a NaN).
float bf16_to_float(std::uint16_t b) {
  std::uint32_t bits = std::uint32_t{b} << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
std::uint16_t float_to_bf16(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>(bits >> 16);
}

class host_device final : public device {
 public:
  bool is_cuda() const override { return false; }
  int index() const override { return 0; }
  // Large buffers (a timed call's fresh inputs, a trial's) are mappings of their own, kept for the
  // next call of the same size until the request ends: in the heap, a buffer of gigabytes freed
  // between two calls left holes that the next call's could not reuse, and a worker timing a
  // 0.5 GiB problem grew by 0.5 GiB a call. Huge pages are asked for on every one of them, so that
  // how a call's inputs are mapped does not depend on the process's history (a reference's worker
  // and a candidate's reach the same calls by different paths).
  void* allocate(std::size_t bytes) override {
    if (bytes >= mapped_bytes) {
      const std::size_t size = (bytes + huge_page - 1) / huge_page * huge_page;
      for (auto it = kept_.begin(); it != kept_.end(); ++it)
        if (it->second == size) {
          void* p = it->first;
          kept_.erase(it);
          mapped_.emplace_back(p, size);
          return p;
        }
      void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) throw std::bad_alloc();
      madvise(p, size, MADV_HUGEPAGE);
      mapped_.emplace_back(p, size);
      return p;
    }
    std::size_t n = bytes == 0 ? 1 : bytes;
    void* p = std::aligned_alloc(64, (n + 63) / 64 * 64);
    if (!p) throw std::bad_alloc();
    return p;
  }
  void release(void* p) override {
    for (auto it = mapped_.begin(); it != mapped_.end(); ++it)
      if (it->first == p) {
        kept_.push_back(*it);
        mapped_.erase(it);
        return;
      }
    std::free(p);
  }
  void release_cached() override {
    for (const auto& [p, size] : kept_) munmap(p, size);
    kept_.clear();
  }
  void copy_to_device(void* dst, const void* src, std::size_t bytes) override { std::memcpy(dst, src, bytes); }
  void copy_to_host(void* dst, const void* src, std::size_t bytes) override { std::memcpy(dst, src, bytes); }
  void copy_on_device(void* dst, const void* src, std::size_t bytes) override { std::memcpy(dst, src, bytes); }
  bool equals_host(const void* src, const void* host, std::size_t bytes) override {
    return bytes == 0 || std::memcmp(src, host, bytes) == 0;
  }
  void perturbed_copy(void* dst, const void* src, dtype type, std::size_t numel, std::uint64_t seed,
                      std::uint64_t symmetric_n) override {
    util::for_each_range(numel, 0, [&](std::size_t begin, std::size_t end, std::size_t) {
      for (std::size_t i = begin; i < end; ++i) {
        double f = perturb_factor(seed, factor_index(i, symmetric_n));
        switch (type) {
          case dtype::f64:
            static_cast<double*>(dst)[i] = static_cast<const double*>(src)[i] * f;
            break;
          case dtype::f32:
            static_cast<float*>(dst)[i] = static_cast<float>(static_cast<const float*>(src)[i] * f);
            break;
          case dtype::f16:
            static_cast<_Float16*>(dst)[i] =
                static_cast<_Float16>(static_cast<float>(static_cast<const _Float16*>(src)[i]) * static_cast<float>(f));
            break;
          case dtype::bf16:
            static_cast<std::uint16_t*>(dst)[i] =
                float_to_bf16(bf16_to_float(static_cast<const std::uint16_t*>(src)[i]) * static_cast<float>(f));
            break;
          default:
            return;  // integers are not perturbed
        }
      }
    });
  }
  std::array<double, sketch_width> sketch(const void* data, dtype type, std::size_t numel,
                                          std::uint64_t seed) override {
    return host_sketch(data, type, numel, seed);
  }
  void fill_pattern(void* p, std::size_t bytes, const poison_pattern& pattern) override {
    fill_pattern_host(p, bytes, pattern);
  }
  std::size_t count_pattern(const void* p, std::size_t bytes, std::size_t element_bytes,
                            const poison_pattern& pattern) override {
    return count_pattern_host(p, bytes, element_bytes, pattern);
  }
  void set_stream(std::uintptr_t) override {}
  void synchronize() override {}
  void flush_caches() override {
    // Write 64 MiB: more than the private caches of any core, and than the last-level cache of
    // small machines. Not than every one (the H200 machine's is 300 MiB): a call's own inputs and
    // outputs are evicted line by line as well (evict).
    static std::vector<unsigned char> buffer(64u << 20);
    static unsigned char v = 0;
    std::memset(buffer.data(), ++v, buffer.size());
  }
  void evict(const void* p, std::size_t bytes) override { evict_lines(p, bytes); }
  void start_timer(bool) override {
    wall_start_ = host_ms();
    host_call_ms_ = -1;
  }
  void call_returned() override { host_call_ms_ = host_ms() - wall_start_; }
  times stop_timer() override {
    if (host_call_ms_ < 0) call_returned();
    double wall = host_ms() - wall_start_;
    return {wall, wall, host_call_ms_, 0, false, false};
  }
  std::string hold_mechanism() const override { return ""; }
  double copy_bandwidth() override { return 0; }
  std::string driver_version() override { return ""; }
  std::string runtime_version() override { return ""; }
  std::string clocks() override { return ""; }
  unsigned sm_clock_mhz() override { return 0; }
  unsigned sm_clock_max_mhz() override { return 0; }

 private:
  static constexpr std::size_t mapped_bytes = 16u << 20;
  static constexpr std::size_t huge_page = 2u << 20;
  double wall_start_ = 0;
  double host_call_ms_ = 0;
  std::vector<std::pair<void*, std::size_t>> mapped_;  // large buffers in use: address, mapped size
  std::vector<std::pair<void*, std::size_t>> kept_;  // released, kept for reuse until release_cached
};

}  // namespace

std::unique_ptr<device> make_host_device() { return std::make_unique<host_device>(); }

}  // namespace headroom::worker
