# DLRM-Bench 06 solution: DCNv2 low-rank cross network, two GEMMs per layer, the cross fused into
# the second one's epilogue.
#
# Design. Per layer: t = x_l V^T ([B, 3456] x [3456, 512], bf16 out) and then
# x_{l+1} = x0 * (t W^T + b) + x_l ([B, 512] x [512, 3456]) with bias, product and residual applied to
# the accumulators before the only store: the eager version's three extra passes over [B, 3456]
# (bias or copy, mul, add: ~340 MB each layer) disappear, and x_{l+1} is written once. Both GEMMs are
# "TN" (A and B both K-contiguous, exactly nn.Linear's weight layout), one kernel: 128 x 128 x 32
# block tiles, 8 warps of 64 x 32, mma.sync m16n8k16 bf16 with fp32 accumulators, ldmatrix.x4 from
# XOR-swizzled shared memory (conflict-free), a 4-stage cp.async pipeline (64 KB, two blocks per
# SM). The epilogue rounds as the eager bf16 chain does: bf16(acc + b), bf16(x0 * that),
# bf16(that + x_l). Layers ping-pong between the output and one scratch buffer. The GEMMs use
# mma.sync, not Hopper's wgmma/TMA: a warp-specialised wgmma main loop is the next step for this
# problem (see README.md). Requires in_features and rank multiples of 128; any batch.
#
# Roofline. Compute-bound: 2 GEMMs x 2*B*3456*512 per layer x 3 layers = 174 GFLOP, 176 us at
# 989 TFLOP/s (the measured bf16 matmul rate is the denominator on the device). Fused bytes: x0 read
# per layer, x_l read and written, t (8 MB) written and read, weights: ~0.45 GB, 105 us at 4.3 TB/s.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

DECLS = r"""
#include <cuda_runtime.h>
#include <stdint.h>
extern "C" cudaError_t dlrm06_cross_network(const void* x0, const void* v, const void* w, const void* bias,
                                            void* out, void* t_buffer, void* x_buffer, int64_t batch,
                                            int64_t in_features, int64_t rank, int64_t layers, cudaStream_t stream);
"""

CUDA_SRC = DECLS + r"""
#include <cuda_bf16.h>

namespace {

constexpr int kBM = 128, kBN = 128, kBK = 32, kStages = 4, kThreads = 256;
constexpr int kStageBytes = (kBM + kBN) * kBK * 2;  // 16 KB
constexpr int kSmemBytes = kStages * kStageBytes;   // 64 KB

enum Epilogue { kStoreBf16 = 0, kCross = 1 };

// Byte offset of 16-byte piece c (0..3) of row r in a [rows][32] bf16 tile: rows are 64 bytes and the
// piece index is XORed with (r / 2) % 4, so the 8 rows an ldmatrix reads hit 8 different bank groups.
__device__ __forceinline__ int swizzle(int r, int c) { return r * 64 + ((c ^ ((r >> 1) & 3)) << 4); }

__device__ __forceinline__ void cp_async16(void* smem, const void* gmem, int bytes) {
  const unsigned s = unsigned(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const void* smem) {
  const unsigned s = unsigned(__cvta_generic_to_shared(smem));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s));
}

__device__ __forceinline__ void mma_bf16(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ float bf16_round(float x) { return __bfloat162float(__float2bfloat16_rn(x)); }

// C[M, N] = A[M, K] B[N, K]^T, bf16 in, fp32 accumulate, bf16 out; K % 32 == 0, N % 128 == 0.
// kCross: C = bf16(bf16(x0 * bf16(acc + bias)) + xl), x0 and xl [M, N].
template <int EPI>
__global__ void __launch_bounds__(kThreads, 2)
gemm_tn(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ B, __nv_bfloat16* __restrict__ C,
        int M, int N, int K, const __nv_bfloat16* __restrict__ bias, const __nv_bfloat16* __restrict__ x0,
        const __nv_bfloat16* __restrict__ xl) {
  extern __shared__ __align__(128) unsigned char smem[];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int wm = warp >> 2;  // 64-row half of the block tile
  const int wn = warp & 3;   // 32-column quarter
  const int m0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;
  const int k_tiles = K / kBK;

  auto load_stage = [&](int stage, int kt) {
    unsigned char* sa = smem + stage * kStageBytes;
    unsigned char* sb = sa + kBM * kBK * 2;
    const int k0 = kt * kBK;
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const int piece = tid + i * kThreads;  // 512 pieces of 16 bytes per operand
      const int r = piece >> 2, c = piece & 3;
      const int gm = m0 + r;
      const __nv_bfloat16* a = A + int64_t(gm < M ? gm : M - 1) * K + k0 + c * 8;
      cp_async16(sa + swizzle(r, c), a, gm < M ? 16 : 0);  // rows past M are zero-filled
      const int gn = n0 + r;
      const __nv_bfloat16* b = B + int64_t(gn < N ? gn : N - 1) * K + k0 + c * 8;
      cp_async16(sb + swizzle(r, c), b, gn < N ? 16 : 0);
    }
  };

  float acc[4][4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.f;

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < k_tiles) load_stage(s, s);
    cp_async_commit();
  }
  for (int kt = 0; kt < k_tiles; ++kt) {
    cp_async_wait<kStages - 2>();  // tile kt has landed
    __syncthreads();               // ... for every thread; and every warp is done with tile kt - 1
    const int next = kt + kStages - 1;
    if (next < k_tiles) load_stage(next % kStages, next);
    cp_async_commit();
    const unsigned char* sa = smem + (kt % kStages) * kStageBytes;
    const unsigned char* sb = sa + kBM * kBK * 2;
#pragma unroll
    for (int ks = 0; ks < kBK / 16; ++ks) {
      uint32_t a[4][4], b[4][2];
#pragma unroll
      for (int mi = 0; mi < 4; ++mi)
        ldmatrix_x4(a[mi], sa + swizzle(wm * 64 + mi * 16 + (lane & 15), ks * 2 + (lane >> 4)));
#pragma unroll
      for (int nj = 0; nj < 2; ++nj) {
        uint32_t r[4];
        ldmatrix_x4(r, sb + swizzle(wn * 32 + nj * 16 + (lane & 7) + ((lane >> 4) << 3), ks * 2 + ((lane >> 3) & 1)));
        b[2 * nj][0] = r[0];
        b[2 * nj][1] = r[1];
        b[2 * nj + 1][0] = r[2];
        b[2 * nj + 1][1] = r[3];
      }
#pragma unroll
      for (int mi = 0; mi < 4; ++mi)
#pragma unroll
        for (int ni = 0; ni < 4; ++ni) mma_bf16(acc[mi][ni], a[mi], b[ni][0], b[ni][1]);
    }
  }
  cp_async_wait<0>();

  const int g = lane >> 2, q = lane & 3;
#pragma unroll
  for (int ni = 0; ni < 4; ++ni) {
    const int col = n0 + wn * 32 + ni * 8 + 2 * q;
    float b0 = 0.f, b1 = 0.f;
    if (EPI == kCross) {
      const float2 bb = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(bias + col));
      b0 = bb.x;
      b1 = bb.y;
    }
#pragma unroll
    for (int mi = 0; mi < 4; ++mi) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = m0 + wm * 64 + mi * 16 + g + 8 * h;
        if (row >= M) continue;
        const int64_t at = int64_t(row) * N + col;
        float v0 = acc[mi][ni][2 * h], v1 = acc[mi][ni][2 * h + 1];
        if (EPI == kCross) {
          const float2 x0v = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(x0 + at));
          const float2 xlv = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(xl + at));
          v0 = bf16_round(x0v.x * bf16_round(v0 + b0)) + xlv.x;
          v1 = bf16_round(x0v.y * bf16_round(v1 + b1)) + xlv.y;
        }
        *reinterpret_cast<__nv_bfloat162*>(C + at) = __floats2bfloat162_rn(v0, v1);
      }
    }
  }
}

template <int EPI>
cudaError_t launch_gemm(const void* a, const void* b, void* c, int64_t m, int64_t n, int64_t k, const void* bias,
                        const void* x0, const void* xl, cudaStream_t stream) {
  static bool configured = false;  // one attribute call per instantiation and process
  if (!configured) {
    const cudaError_t e = cudaFuncSetAttribute(gemm_tn<EPI>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes);
    if (e != cudaSuccess) return e;
    configured = true;
  }
  const dim3 grid(unsigned(n / kBN), unsigned((m + kBM - 1) / kBM));
  gemm_tn<EPI><<<grid, kThreads, kSmemBytes, stream>>>(
      static_cast<const __nv_bfloat16*>(a), static_cast<const __nv_bfloat16*>(b), static_cast<__nv_bfloat16*>(c),
      int(m), int(n), int(k), static_cast<const __nv_bfloat16*>(bias), static_cast<const __nv_bfloat16*>(x0),
      static_cast<const __nv_bfloat16*>(xl));
  return cudaGetLastError();
}

}  // namespace

extern "C" cudaError_t dlrm06_cross_network(const void* x0, const void* v, const void* w, const void* bias,
                                            void* out, void* t_buffer, void* x_buffer, int64_t batch,
                                            int64_t in_features, int64_t rank, int64_t layers, cudaStream_t stream) {
  if (in_features % kBN != 0 || rank % kBN != 0 || batch < 1 || layers < 1 || batch > int64_t(65535) * kBM ||
      batch * in_features >= (int64_t(1) << 40))
    return cudaErrorInvalidValue;
  const __nv_bfloat16* vs = static_cast<const __nv_bfloat16*>(v);
  const __nv_bfloat16* ws = static_cast<const __nv_bfloat16*>(w);
  const __nv_bfloat16* bs = static_cast<const __nv_bfloat16*>(bias);
  const void* xl = x0;
  for (int64_t l = 0; l < layers; ++l) {
    // The last layer lands in `out`; the ones before alternate so that no layer overwrites its input.
    void* dst = (layers - 1 - l) % 2 == 0 ? out : x_buffer;
    cudaError_t e = launch_gemm<kStoreBf16>(xl, vs + l * rank * in_features, t_buffer, batch, rank, in_features,
                                            nullptr, nullptr, nullptr, stream);
    if (e != cudaSuccess) return e;
    e = launch_gemm<kCross>(t_buffer, ws + l * in_features * rank, dst, batch, in_features, rank, bs + l * in_features,
                            x0, xl, stream);
    if (e != cudaSuccess) return e;
    xl = dst;
  }
  return cudaSuccess;
}
"""

CPP_SRC = DECLS + r"""
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

at::Tensor cross_network(const at::Tensor& x0, const at::Tensor& v, const at::Tensor& w, const at::Tensor& bias) {
  TORCH_CHECK(x0.is_cuda() && v.is_cuda() && w.is_cuda() && bias.is_cuda(), "cross_network: CUDA tensors expected");
  for (const at::Tensor* t : {&x0, &v, &w, &bias})
    TORCH_CHECK(t->scalar_type() == at::kBFloat16, "cross_network: bf16 tensors expected");
  TORCH_CHECK(x0.dim() == 2 && v.dim() == 3 && w.dim() == 3 && bias.dim() == 2, "cross_network: x0 [B, N], V [L, r, N], W [L, N, r], b [L, N]");
  const int64_t batch = x0.size(0), n = x0.size(1), layers = v.size(0), rank = v.size(1);
  TORCH_CHECK(v.size(2) == n && w.size(0) == layers && w.size(1) == n && w.size(2) == rank && bias.size(0) == layers &&
              bias.size(1) == n, "cross_network: shapes do not agree");
  TORCH_CHECK(n % 128 == 0 && rank % 128 == 0, "cross_network: in_features and rank must be multiples of 128");
  c10::cuda::CUDAGuard guard(x0.device());
  const at::Tensor xc = x0.contiguous(), vc = v.contiguous(), wc = w.contiguous(), bc = bias.contiguous();
  for (const at::Tensor* t : {&xc, &vc, &wc})
    TORCH_CHECK(reinterpret_cast<uintptr_t>(t->data_ptr()) % 16 == 0, "cross_network: x0, V, W must be 16-byte aligned");
  at::Tensor out = at::empty({batch, n}, x0.options());
  if (batch == 0) return out;
  at::Tensor t = at::empty({batch, rank}, x0.options());
  at::Tensor scratch = at::empty({layers > 1 ? batch : 0, n}, x0.options());
  const cudaError_t e = dlrm06_cross_network(xc.data_ptr(), vc.data_ptr(), wc.data_ptr(), bc.data_ptr(), out.data_ptr(),
                                             t.data_ptr(), scratch.data_ptr(), batch, n, rank, layers,
                                             c10::cuda::getCurrentCUDAStream().stream());
  TORCH_CHECK(e == cudaSuccess, "cross_network: ", cudaGetErrorString(e));
  return out;
}
"""

FUNCTIONS = ["cross_network"]
CUDA_FLAGS = ["-O3", "-gencode=arch=compute_90a,code=sm_90a"]

_ext = load_inline(name="dlrm_bench_06_dcnv2_low_rank_cross", cpp_sources=[CPP_SRC], cuda_sources=[CUDA_SRC],
                   functions=FUNCTIONS, extra_cuda_cflags=CUDA_FLAGS, verbose=False)


class ModelNew(nn.Module):
    def __init__(self, in_features, rank, layers):
        super().__init__()
        # The problem's parameters, drawn the same way under the same seed.
        self.V = nn.Parameter(torch.randn(layers, rank, in_features).mul_(in_features ** -0.5).to(torch.bfloat16))
        self.W = nn.Parameter(torch.randn(layers, in_features, rank).mul_(0.5 * rank ** -0.5).to(torch.bfloat16))
        self.b = nn.Parameter(torch.randn(layers, in_features).mul_(0.1).to(torch.bfloat16))

    def forward(self, x0):
        return _ext.cross_network(x0, self.V, self.W, self.b)
