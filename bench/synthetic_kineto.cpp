// Writes a realistic PyTorch profiler (Kineto) trace of any size, for the reader's throughput and
// memory benchmarks. Per step: a ProfilerStep#N annotation; per kernel: three cpu_op events with
// shapes and types, the cudaLaunchKernel call, its ac2g flow pair and the kernel with full args,
// names drawn from a transformer training mix; now and then a copy or a memset. Deterministic.
//
// Usage: synthetic_kineto OUT.json [--bytes N] [--seed S]   (default 2.2 GB)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <fmt/format.h>

namespace {

class writer {
 public:
  explicit writer(std::FILE* f) : f_(f) { buf_.reserve(capacity); }
  ~writer() { flush(); }
  template <class... Args>
  void print(fmt::format_string<Args...> f, Args&&... args) {
    fmt::format_to(std::back_inserter(buf_), f, std::forward<Args>(args)...);
    if (buf_.size() >= capacity) flush();
  }
  void flush() {
    if (!buf_.empty() && std::fwrite(buf_.data(), 1, buf_.size(), f_) != buf_.size()) {
      std::perror("write");
      std::exit(1);
    }
    written_ += buf_.size();
    buf_.clear();
  }
  std::uint64_t written() const { return written_ + buf_.size(); }

 private:
  static constexpr std::size_t capacity = std::size_t{16} << 20;
  std::FILE* f_;
  std::string buf_;
  std::uint64_t written_ = 0;
};

struct rng {
  std::uint64_t s;
  std::uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  std::uint64_t below(std::uint64_t n) { return next() % n; }
};

struct kernel_kind {
  const char* name;
  const char* op;  // the aten op that launches it
  int mean_ns;
};

// A transformer step's kernel mix: cuBLAS GEMMs, attention, ATen elementwise and reductions,
// Inductor-generated Triton, NCCL.
const kernel_kind kernels[] = {
    {"nvjet_tst_128x256_64x4_1x2_h_bz_coopA_TNT", "aten::mm", 180000},
    {"nvjet_tst_256x128_64x4_2x1_v_bz_coopB_NNT", "aten::addmm", 150000},
    {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
     "aten::mm", 120000},
    {"void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t, "
     "Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, true, false, false, true, true, false, false>"
     "(pytorch_flash::Flash_fwd_params)",
     "aten::_scaled_dot_product_flash_attention", 220000},
    {"cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_3_64x128x128_4x1x1_kernel0_0",
     "aten::_scaled_dot_product_cudnn_attention", 200000},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
     "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3>)",
     "aten::add", 12000},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, "
     "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, "
     "at::detail::Array<char*, 2> >(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::"
     "{lambda()#2}::operator()() const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, at::detail::Array<char*, 2>)",
     "aten::gelu", 15000},
    {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, "
     "unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, "
     "float, 4>)",
     "aten::mean", 9000},
    {"triton_poi_fused__to_copy_add_mul_rsqrt_0", "aten::native_layer_norm", 8000},
    {"triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_1", "aten::native_layer_norm", 11000},
    {"triton_per_fused__softmax_2", "aten::_softmax", 10000},
    {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "c10d::allreduce_", 450000},
};
constexpr int kernel_count = sizeof kernels / sizeof kernels[0];

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT.json [--bytes N] [--seed S]\n", argv[0]);
    return 2;
  }
  std::uint64_t target = 2200000000ull;
  std::uint64_t seed = 42;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--bytes") == 0) target = std::strtoull(argv[i + 1], nullptr, 10);
    if (std::strcmp(argv[i], "--seed") == 0) seed = std::strtoull(argv[i + 1], nullptr, 10);
  }
  std::FILE* f = std::fopen(argv[1], "wb");
  if (f == nullptr) {
    std::perror(argv[1]);
    return 1;
  }
  rng r{seed | 1};
  writer w(f);
  const int pid = 3100453, tid = 3100453, stream = 7;
  w.print(R"J({{
  "schemaVersion": 1,
  "deviceProperties": [
    {{"id": 0, "name": "NVIDIA H200", "totalGlobalMem": 150109880320, "computeMajor": 9, "computeMinor": 0,
     "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, "warpSize": 32,
     "sharedMemPerBlock": 49152, "numSms": 132, "regsPerMultiprocessor": 65536, "sharedMemPerBlockOptin": 232448,
     "sharedMemPerMultiprocessor": 233472}}
  ],
  "distributedInfo": {{"backend": "nccl", "rank": 0, "world_size": 8}},
  "cupti_version": 24, "cuda_runtime_version": 12080, "cuda_driver_version": 12080,
  "record_shapes": 1,
  "traceEvents": [
  {{"name": "process_name", "ph": "M", "ts": 1712195495000000.000, "pid": {}, "tid": 0, "args": {{"name": "python3"}}}})J",
          pid);
  // Microsecond clock with nanosecond fractions, as Kineto writes it.
  std::uint64_t now_ns = 1712195495000000000ull % 10000000000000000ull;
  auto us = [](std::uint64_t ns) { return fmt::format("{}.{:03}", ns / 1000, ns % 1000); };
  std::uint64_t correlation = 1, external = 1, kernels_written = 0;
  for (std::uint64_t step = 1; w.written() < target; ++step) {
    const int per_step = 800;
    const std::uint64_t step_start = now_ns;
    const std::uint64_t step_dur = static_cast<std::uint64_t>(per_step) * 40000;
    w.print(R"J(,
  {{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#{}", "pid": {}, "tid": {}, "ts": {}, "dur": {}, "args": {{"External id": {}, "Record function id": 0, "Ev Idx": {}}}}})J",
            step, pid, tid, us(step_start), us(step_dur), external++, step);
    for (int k = 0; k < per_step && w.written() < target; ++k) {
      const kernel_kind& kk = kernels[r.below(kernel_count)];
      const std::uint64_t m = 128 << r.below(5), n = 1024 << r.below(3);
      const std::uint64_t op_start = now_ns;
      for (int c = 0; c < 3; ++c) {
        const char* op = c == 0 ? kk.op : c == 1 ? "aten::empty_strided" : "aten::as_strided";
        w.print(R"J(,
  {{"ph": "X", "cat": "cpu_op", "name": "{}", "pid": {}, "tid": {}, "ts": {}, "dur": {}, "args": {{"External id": {}, "Record function id": 0, "Ev Idx": {}, "Sequence number": {}, "Fwd thread id": 0, "Input Dims": [[{}, {}], [{}, {}], []], "Input type": ["c10::BFloat16", "c10::BFloat16", "Scalar"], "Input Strides": [[{}, 1], [{}, 1], []], "Concrete Inputs": ["", "", "1"]}}}})J",
                op, pid, tid, us(op_start + c * 900), us(9000 - c * 2500), external++, external, external, m, n, n, m,
                n, m);
      }
      const std::uint64_t launch = op_start + 3000 + r.below(2000);
      const std::uint64_t corr = correlation++;
      const bool copy = r.below(40) == 0, set = !copy && r.below(60) == 0;
      const char* api = copy ? "cudaMemcpyAsync" : set ? "cudaMemsetAsync" : "cudaLaunchKernel";
      w.print(R"J(,
  {{"ph": "X", "cat": "cuda_runtime", "name": "{}", "pid": {}, "tid": {}, "ts": {}, "dur": {}, "args": {{"External id": {}, "cbid": 211, "correlation": {}}}}})J",
              api, pid, tid, us(launch), us(4000 + r.below(3000)), external - 3, corr);
      w.print(R"J(,
  {{"ph": "s", "id": {}, "pid": {}, "tid": {}, "ts": {}, "cat": "ac2g", "name": "ac2g"}})J",
              corr, pid, tid, us(launch));
      const std::uint64_t gpu_start = now_ns + 20000;
      const std::uint64_t dur =
          static_cast<std::uint64_t>(kk.mean_ns / 2) + r.below(static_cast<std::uint64_t>(kk.mean_ns));
      if (copy) {
        w.print(R"J(,
  {{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0, "tid": {}, "ts": {}, "dur": {}, "args": {{"External id": {}, "device": 0, "context": 1, "stream": {}, "correlation": {}, "bytes": {}, "memory bandwidth (GB/s)": 21.4}}}})J",
                stream, us(gpu_start), us(dur), external - 3, stream, corr, m * n * 2);
      } else if (set) {
        w.print(R"J(,
  {{"ph": "X", "cat": "gpu_memset", "name": "Memset (Device)", "pid": 0, "tid": {}, "ts": {}, "dur": {}, "args": {{"External id": {}, "device": 0, "context": 1, "stream": {}, "correlation": {}, "bytes": {}, "memory bandwidth (GB/s)": 310.2}}}})J",
                stream, us(gpu_start), us(dur / 4), external - 3, stream, corr, m * n);
      } else {
        w.print(R"J(,
  {{"ph": "X", "cat": "kernel", "name": "{}", "pid": 0, "tid": {}, "ts": {}, "dur": {}, "args": {{"External id": {}, "queued": 0, "device": 0, "context": 1, "stream": {}, "correlation": {}, "registers per thread": {}, "shared memory": {}, "blocks per SM": {:.6f}, "warps per SM": {:.6f}, "grid": [{}, {}, 1], "block": [{}, 1, 1], "est. achieved occupancy %": {}}}}})J",
                kk.name, stream, us(gpu_start), us(dur), external - 3, stream, corr, 32 + r.below(200),
                r.below(4) * 16384, m / 132.0, m * 4 / 132.0, m, n / 128, 128 << r.below(2), r.below(100));
        ++kernels_written;
      }
      w.print(R"J(,
  {{"ph": "f", "id": {}, "pid": 0, "tid": {}, "ts": {}, "cat": "ac2g", "name": "ac2g", "bp": "e"}})J",
              corr, stream, us(gpu_start));
      now_ns += std::max<std::uint64_t>(dur, 10000) + 2000;
    }
    now_ns = std::max(now_ns, step_start + step_dur);
  }
  w.print(R"J(
  ],
  "traceName": "synthetic.pt.trace.json",
  "displayTimeUnit": "ms",
  "baseTimeNanoseconds": 0
}}
)J");
  w.flush();
  std::fclose(f);
  std::fprintf(stderr, "wrote %s: %llu bytes, %llu kernels\n", argv[1], static_cast<unsigned long long>(w.written()),
               static_cast<unsigned long long>(kernels_written));
  return 0;
}
