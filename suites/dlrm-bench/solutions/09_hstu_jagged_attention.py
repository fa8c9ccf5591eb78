# DLRM-Bench 09 solution: HSTU jagged causal attention, fused (no padding, no [N, N] scores in memory).
#
# Design. FlashAttention-2-style, on the jagged layout directly: one block of 4 warps per (64-query
# tile, head, sequence), blocks with the most causal work first (the grid walks query tiles from the
# last). The query tile (64 x 128 bf16) is loaded once into shared memory and held as mma fragments;
# key/value tiles of 64 rows stream through a double-buffered cp.async pipeline (rows past the
# sequence end are zero-filled and contribute nothing: silu(0) = 0), and only key tiles at or below
# the diagonal are visited. Per tile each warp computes S = Q K^T for its 16 queries (mma.sync
# m16n8k16, fp32 accumulate), turns S into P in registers exactly as the bf16 reference does: s =
# bf16(q.k) * alpha (alpha is a power of two), p = bf16(silu(s)) with silu(s) = s / (1 + exp(-s))
# (exp and reciprocal in the SFU; accurate for negative s, where 0.5 s (1 + tanh(s/2)) cancels), the
# causal mask on the diagonal tile, and reuses P's accumulator layout as the A operand of O += P V
# (V through ldmatrix.trans). No softmax, so no running max or rescaling. O is scaled by 1/N and
# rounded to bf16 once. Shared memory is XOR-swizzled (16-byte piece ^ row % 8): conflict-free
# ldmatrix. Head dim 128 only.
#
# Roofline. Compute: causal QK^T and PV, 2 * 2 * 128 * H * sum(L_b^2)/2 = 124 GFLOP at B = 32,
# H = 4, L ~ U[0.9N, N), N = 2048: 125 us at 989 TFLOP/s. The SFU takes 2 operations per score
# (2.5e8 scores): ~120 us at 16 per clock per SM. Bytes: q, k, v read and out written once: 255 MB,
# 59 us at 4.3 TB/s. This mma.sync kernel aims at the tensor-core bound reachable without wgmma.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

DECLS = r"""
#include <cuda_runtime.h>
#include <stdint.h>
extern "C" cudaError_t dlrm09_hstu_attention(const void* q, const void* k, const void* v, const int64_t* offsets,
                                             void* out, int64_t batch, int64_t heads, int64_t head_dim,
                                             int64_t max_seq_len, float alpha, cudaStream_t stream);
"""

CUDA_SRC = DECLS + r"""
#include <cuda_bf16.h>

namespace {

constexpr int kD = 128;       // head dim
constexpr int kBlockM = 64;   // queries per block (16 per warp)
constexpr int kBlockN = 64;   // keys per tile
constexpr int kThreads = 128;
constexpr int kTileBytes = kBlockN * kD * 2;  // 16 KB
constexpr int kSmemBytes = kTileBytes * 5;    // Q, K x 2, V x 2

// Row r (256 bytes = 16 pieces of 16 bytes), piece c stored at c ^ (r % 8).
__device__ __forceinline__ int swizzle(int r, int c) { return r * (kD * 2) + ((c ^ (r & 7)) << 4); }

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
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], const void* smem) {
  const unsigned s = unsigned(__cvta_generic_to_shared(smem));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
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

__device__ __forceinline__ uint32_t pack_bf16x2(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&v);
}

// The reference's score: bf16(q.k) * alpha, then silu.
__device__ __forceinline__ float hstu_weight(float acc, float alpha) {
  const float s = __bfloat162float(__float2bfloat16_rn(acc)) * alpha;
  return __fdividef(s, 1.0f + __expf(-s));
}

// Loads rows [row0, row0 + 64) of head h of one sequence (rows >= length zero-filled) into a tile.
__device__ __forceinline__ void load_tile(unsigned char* tile, const __nv_bfloat16* base, int64_t seq_start,
                                          int row0, int length, int heads, int h) {
#pragma unroll
  for (int i = 0; i < (kBlockN * kD / 8) / kThreads; ++i) {
    const int piece = threadIdx.x + i * kThreads;
    const int r = piece >> 4, c = piece & 15;
    const int n = row0 + r;
    const bool inside = n < length;
    const __nv_bfloat16* src = base + ((seq_start + (inside ? n : 0)) * heads + h) * kD + c * 8;
    cp_async16(tile + swizzle(r, c), src, inside ? 16 : 0);
  }
}

__global__ void __launch_bounds__(kThreads, 2)
hstu_attention_kernel(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
                      const __nv_bfloat16* __restrict__ v, const int64_t* __restrict__ offsets,
                      __nv_bfloat16* __restrict__ out, int batch, int heads, int q_tiles, float alpha,
                      float inv_max_len) {
  extern __shared__ __align__(128) unsigned char smem[];
  // Heaviest work first: block ids walk query tiles from the last one down.
  const int per_tile = heads * batch;
  const int qt = q_tiles - 1 - int(blockIdx.x) / per_tile;
  const int rest = int(blockIdx.x) % per_tile;
  const int h = rest % heads;
  const int b = rest / heads;
  const int64_t seq_start = offsets[b];
  const int length = int(offsets[b + 1] - seq_start);
  const int q0 = qt * kBlockM;
  if (q0 >= length) return;  // block-uniform

  // Shared memory: Q, then K buffers 0 and 1, then V buffers 0 and 1 (pointers by arithmetic: an
  // array of pointers indexed by j & 1 would live in local memory).
  unsigned char* sq = smem;
  unsigned char* const sk0 = smem + kTileBytes;
  unsigned char* const sv0 = smem + 3 * kTileBytes;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t4 = lane & 3;

  load_tile(sq, q, seq_start, q0, length, heads, h);
  load_tile(sk0, k, seq_start, 0, length, heads, h);
  load_tile(sv0, v, seq_start, 0, length, heads, h);
  cp_async_commit();

  uint32_t qf[kD / 16][4];
  float o[kD / 8][4];
#pragma unroll
  for (int i = 0; i < kD / 8; ++i) o[i][0] = o[i][1] = o[i][2] = o[i][3] = 0.f;
  const int last = qt;  // key tiles 0..qt hold every key <= the tile's queries

  for (int j = 0; j <= last; ++j) {
    if (j + 1 <= last) {
      load_tile(sk0 + ((j + 1) & 1) * kTileBytes, k, seq_start, (j + 1) * kBlockN, length, heads, h);
      load_tile(sv0 + ((j + 1) & 1) * kTileBytes, v, seq_start, (j + 1) * kBlockN, length, heads, h);
    }
    cp_async_commit();
    cp_async_wait<1>();
    __syncthreads();
    if (j == 0) {
#pragma unroll
      for (int kk = 0; kk < kD / 16; ++kk) ldmatrix_x4(qf[kk], sq + swizzle(warp * 16 + (lane & 15), 2 * kk + (lane >> 4)));
    }
    const unsigned char* kt = sk0 + (j & 1) * kTileBytes;
    const unsigned char* vt = sv0 + (j & 1) * kTileBytes;

    float s[kBlockN / 8][4];
#pragma unroll
    for (int i = 0; i < kBlockN / 8; ++i) s[i][0] = s[i][1] = s[i][2] = s[i][3] = 0.f;
#pragma unroll
    for (int kk = 0; kk < kD / 16; ++kk) {
#pragma unroll
      for (int nj = 0; nj < kBlockN / 16; ++nj) {
        uint32_t r[4];
        ldmatrix_x4(r, kt + swizzle(nj * 16 + (lane & 7) + ((lane >> 4) << 3), 2 * kk + ((lane >> 3) & 1)));
        mma_bf16(s[2 * nj], qf[kk], r[0], r[1]);
        mma_bf16(s[2 * nj + 1], qf[kk], r[2], r[3]);
      }
    }

    // P in the A layout of the next mma: tiles 2kk and 2kk+1 of S are the k16 step kk.
    const bool diagonal = j == qt;
    const int query = q0 + warp * 16 + g;  // and query + 8
    uint32_t p[kBlockN / 16][4];
#pragma unroll
    for (int kk = 0; kk < kBlockN / 16; ++kk) {
      float w[2][4];
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int key = j * kBlockN + (2 * kk + half) * 8 + 2 * t4;
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int qi = query + (e >= 2 ? 8 : 0);
          const int ki = key + (e & 1);
          const float x = hstu_weight(s[2 * kk + half][e], alpha);
          w[half][e] = (diagonal && ki > qi) ? 0.f : x;
        }
      }
      p[kk][0] = pack_bf16x2(w[0][0], w[0][1]);
      p[kk][1] = pack_bf16x2(w[0][2], w[0][3]);
      p[kk][2] = pack_bf16x2(w[1][0], w[1][1]);
      p[kk][3] = pack_bf16x2(w[1][2], w[1][3]);
    }

#pragma unroll
    for (int kk = 0; kk < kBlockN / 16; ++kk) {
#pragma unroll
      for (int dj = 0; dj < kD / 16; ++dj) {
        uint32_t r[4];
        ldmatrix_x4_trans(r, vt + swizzle(kk * 16 + (lane & 7) + (((lane >> 3) & 1) << 3), 2 * dj + (lane >> 4)));
        mma_bf16(o[2 * dj], p[kk], r[0], r[1]);
        mma_bf16(o[2 * dj + 1], p[kk], r[2], r[3]);
      }
    }
    __syncthreads();  // every warp is done with this buffer before it is refilled
  }
  cp_async_wait<0>();

#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int n = q0 + warp * 16 + g + 8 * half;
    if (n >= length) continue;
    __nv_bfloat16* dst = out + ((seq_start + n) * heads + h) * kD;
#pragma unroll
    for (int ni = 0; ni < kD / 8; ++ni) {
      const int col = ni * 8 + 2 * t4;
      *reinterpret_cast<__nv_bfloat162*>(dst + col) =
          __floats2bfloat162_rn(o[ni][2 * half] * inv_max_len, o[ni][2 * half + 1] * inv_max_len);
    }
  }
}

}  // namespace

extern "C" cudaError_t dlrm09_hstu_attention(const void* q, const void* k, const void* v, const int64_t* offsets,
                                             void* out, int64_t batch, int64_t heads, int64_t head_dim,
                                             int64_t max_seq_len, float alpha, cudaStream_t stream) {
  if (head_dim != kD || batch < 1 || heads < 1 || max_seq_len < 1) return cudaErrorInvalidValue;
  const int64_t q_tiles = (max_seq_len + kBlockM - 1) / kBlockM;
  const int64_t blocks = q_tiles * heads * batch;
  if (blocks >= (int64_t(1) << 31)) return cudaErrorInvalidValue;
  static bool configured = false;
  if (!configured) {
    const cudaError_t e = cudaFuncSetAttribute(hstu_attention_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               kSmemBytes);
    if (e != cudaSuccess) return e;
    configured = true;
  }
  hstu_attention_kernel<<<unsigned(blocks), kThreads, kSmemBytes, stream>>>(
      static_cast<const __nv_bfloat16*>(q), static_cast<const __nv_bfloat16*>(k), static_cast<const __nv_bfloat16*>(v),
      offsets, static_cast<__nv_bfloat16*>(out), int(batch), int(heads), int(q_tiles), alpha,
      float(1.0 / double(max_seq_len)));
  return cudaGetLastError();
}
"""

CPP_SRC = DECLS + r"""
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

at::Tensor hstu_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& offsets,
                          int64_t max_seq_len, double alpha) {
  TORCH_CHECK(q.is_cuda() && k.is_cuda() && v.is_cuda() && offsets.is_cuda(), "hstu_attention: CUDA tensors expected");
  TORCH_CHECK(q.scalar_type() == at::kBFloat16 && k.scalar_type() == at::kBFloat16 && v.scalar_type() == at::kBFloat16 &&
              q.dim() == 3 && q.sizes() == k.sizes() && q.sizes() == v.sizes(),
              "hstu_attention: bf16 q, k, v of one shape [total, H, D]");
  TORCH_CHECK(q.size(2) == 128, "hstu_attention: head dim 128 only");
  TORCH_CHECK(offsets.dim() == 1 && offsets.numel() >= 1 && offsets.scalar_type() == at::kLong,
              "hstu_attention: int64 seq_offsets with B + 1 entries");
  c10::cuda::CUDAGuard guard(q.device());
  const at::Tensor qc = q.contiguous(), kc = k.contiguous(), vc = v.contiguous(), oc = offsets.contiguous();
  for (const at::Tensor* t : {&qc, &kc, &vc})
    TORCH_CHECK(reinterpret_cast<uintptr_t>(t->data_ptr()) % 16 == 0, "hstu_attention: q, k, v must be 16-byte aligned");
  at::Tensor out = at::empty_like(qc);
  const int64_t batch = oc.numel() - 1;
  if (batch == 0 || q.size(0) == 0) return out;
  const cudaError_t e = dlrm09_hstu_attention(qc.data_ptr(), kc.data_ptr(), vc.data_ptr(), oc.data_ptr<int64_t>(),
                                              out.data_ptr(), batch, q.size(1), q.size(2), max_seq_len, float(alpha),
                                              c10::cuda::getCurrentCUDAStream().stream());
  TORCH_CHECK(e == cudaSuccess, "hstu_attention: ", cudaGetErrorString(e));
  return out;
}
"""

FUNCTIONS = ["hstu_attention"]
CUDA_FLAGS = ["-O3", "-gencode=arch=compute_90a,code=sm_90a"]

_ext = load_inline(name="dlrm_bench_09_hstu_jagged_attention", cpp_sources=[CPP_SRC], cuda_sources=[CUDA_SRC],
                   functions=FUNCTIONS, extra_cuda_cflags=CUDA_FLAGS, verbose=False)


class ModelNew(nn.Module):
    def __init__(self, max_seq_len, alpha):
        super().__init__()
        self.max_seq_len = max_seq_len
        self.alpha = alpha

    def forward(self, q, k, v, seq_offsets):
        return _ext.hstu_attention(q, k, v, seq_offsets, self.max_seq_len, self.alpha)
