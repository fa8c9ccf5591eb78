# DLRM-Bench 03 solution: INT4 row-wise quantized table-batched EmbeddingBag (inference), one launch.
#
# Design. One warp per (table, sample) bag. A row's D/2 packed bytes are D/32 pieces of 16 bytes
# (4 for D = 128), so CPR = D/32 lanes read one row and the warp reads 32/CPR rows per step (8 for
# D = 128); a 32-id slice of the bag is all issued before any arithmetic (every lane has CPR 16-byte
# loads and CPR 4-byte scale/bias loads in flight). Each lane dequantises its 32 nibbles with one
# byte-permute per value (the nibble becomes the low byte of 2^23 + q, so one fp32 subtraction gives
# q exactly) and one FMA into its 32 fp32 sums, q * scale being exact in fp32; the bias is summed
# once per row. The 32/CPR lanes that hold the same columns of different rows are combined by a
# reduce-scatter (16 + 8 + 4 shuffles for D = 128 instead of 3 x 32): each lane ends with CPR
# adjacent columns, adds the bag's bias sum, rounds once to fp16 and stores them (8 bytes) into the
# batch-major [B, T*D] output. Row layout as the problem's: packed data, fp16 scale, fp16 bias, padding
# to 16 bytes (rows of 80 bytes for D = 128). D must be 32, 64, 128 or 256.
#
# Roofline. Logical bytes N*row_bytes (rows, 80 B) + N*8 (ids) + B*T*D*2 (out) = 210 + 21 + 34 = 265 MB
# at T = 32, B = 4096, L = 20 (N = 2.62M): 62 us at 4.3 TB/s (DRAM moves whole 32-byte sectors: an
# 80-byte row touches 3 or 4 of them, up to 335 MB, 78 us). The Zipf(1.09) head is served from L2.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

DECLS = r"""
#include <cuda_runtime.h>
#include <stdint.h>
extern "C" cudaError_t dlrm03_int4_tbe(const uint8_t* table, int64_t row_bytes, int64_t rows_per_table,
                                       const int64_t* indices, void* out, int64_t num_tables, int64_t batch,
                                       int64_t bag, int64_t dim, cudaStream_t stream);
"""

CUDA_SRC = DECLS + r"""
#include <cuda_fp16.h>

namespace {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kWarpsPerBlock = 8;

// The nibble in byte `k` of `w` (bytes masked to 0..15) as a float: the byte becomes the low byte of
// the fp32 pattern 0x4B0000qq = 2^23 + q, and subtracting 2^23 is exact.
__device__ __forceinline__ float nibble(uint32_t w, int k) {
  return __uint_as_float(__byte_perm(w, 0x4B000000u, 0x7440u | unsigned(k))) - 8388608.0f;
}

// One reduce-scatter step over the lanes that differ in bit MASK: of N values, each lane keeps the
// half its bit selects (the upper half when set) summed with the partner's, and hands over the other.
template <int N, int MASK>
__device__ __forceinline__ void reduce_scatter_step(float* v, int lane) {
  const bool upper = (lane & MASK) != 0;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) {
    const float send = upper ? v[i] : v[i + N / 2];
    const float keep = upper ? v[i + N / 2] : v[i];
    v[i] = keep + __shfl_xor_sync(kFullMask, send, MASK);
  }
}

// Masks 16, 8, ..., STOP: 32 values per lane become 32 / (32 / STOP) = STOP values, the sums over the
// lanes that agree in the bits below STOP, for elements (lane & (32 - STOP)) .. + STOP - 1.
template <int N, int MASK, int STOP>
__device__ __forceinline__ void reduce_scatter(float* v, int lane) {
  if constexpr (MASK >= STOP) {
    reduce_scatter_step<N, MASK>(v, lane);
    reduce_scatter<N / 2, MASK / 2, STOP>(v, lane);
  }
}

template <int CPR>  // 16-byte pieces per row: D / 32
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
int4_tbe_kernel(const uint8_t* __restrict__ table, int64_t row_bytes, int64_t rows_per_table,
                const int64_t* __restrict__ indices, __half* __restrict__ out, int num_tables, int64_t batch,
                int bag) {
  constexpr int kSlots = 32 / CPR;  // rows per warp step
  constexpr int kDim = 32 * CPR;
  const int lane = threadIdx.x & 31;
  const int slot = lane / CPR;
  const int piece = lane % CPR;
  const int64_t b = int64_t(blockIdx.x) * kWarpsPerBlock + (threadIdx.x >> 5);
  if (b >= batch) return;  // warp-uniform
  const int t = blockIdx.y;
  const int64_t* ids = indices + (int64_t(t) * batch + b) * bag;  // indices are [T, B, L]
  const uint8_t* first = table + int64_t(t) * rows_per_table * row_bytes;
  float acc[32];
#pragma unroll
  for (int i = 0; i < 32; ++i) acc[i] = 0.f;
  float bias_sum = 0.f;
  for (int base = 0; base < bag; base += 32) {
    const int n = bag - base < 32 ? bag - base : 32;
    const int64_t my_id = lane < n ? __ldg(ids + base + lane) : 0;
    uint4 q[CPR];
    uint32_t header[CPR];
#pragma unroll
    for (int s = 0; s < CPR; ++s) {  // every load of the slice before any arithmetic
      const int r = s * kSlots + slot;
      const int64_t id = __shfl_sync(kFullMask, my_id, r & 31);
      const uint8_t* row = first + id * row_bytes;
      if (r < n) {
        q[s] = __ldg(reinterpret_cast<const uint4*>(row) + piece);
        header[s] = __ldg(reinterpret_cast<const uint32_t*>(row + kDim / 2));  // fp16 scale | fp16 bias << 16
      } else {
        q[s] = make_uint4(0u, 0u, 0u, 0u);
        header[s] = 0u;  // scale 0, bias 0: adds nothing
      }
    }
#pragma unroll
    for (int s = 0; s < CPR; ++s) {
      const float scale = __half2float(__ushort_as_half((unsigned short)(header[s] & 0xffffu)));
      bias_sum += __half2float(__ushort_as_half((unsigned short)(header[s] >> 16)));
      const uint32_t w[4] = {q[s].x, q[s].y, q[s].z, q[s].w};
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const uint32_t lo = w[i] & 0x0F0F0F0Fu;         // even elements: low nibbles
        const uint32_t hi = (w[i] >> 4) & 0x0F0F0F0Fu;  // odd elements: high nibbles
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          acc[8 * i + 2 * k] = fmaf(nibble(lo, k), scale, acc[8 * i + 2 * k]);
          acc[8 * i + 2 * k + 1] = fmaf(nibble(hi, k), scale, acc[8 * i + 2 * k + 1]);
        }
      }
    }
  }
  reduce_scatter<32, 16, CPR>(acc, lane);
#pragma unroll
  for (int mask = 16; mask >= CPR; mask >>= 1) bias_sum += __shfl_xor_sync(kFullMask, bias_sum, mask);
  const int column = piece * 32 + (lane & (32 - CPR));
  __half* dst = out + b * (int64_t(num_tables) * kDim) + int64_t(t) * kDim + column;
  if constexpr (CPR == 1) {
    *dst = __float2half_rn(acc[0] + bias_sum);
  } else {  // CPR adjacent fp16 values in one store of 2 * CPR bytes (aligned: column % CPR == 0)
    uint32_t words[CPR / 2];
#pragma unroll
    for (int i = 0; i < CPR / 2; ++i)
      words[i] = uint32_t(__half_as_ushort(__float2half_rn(acc[2 * i] + bias_sum))) |
                 (uint32_t(__half_as_ushort(__float2half_rn(acc[2 * i + 1] + bias_sum))) << 16);
    if constexpr (CPR == 2) *reinterpret_cast<uint32_t*>(dst) = words[0];
    if constexpr (CPR == 4) *reinterpret_cast<uint2*>(dst) = make_uint2(words[0], words[1]);
    if constexpr (CPR == 8) *reinterpret_cast<uint4*>(dst) = make_uint4(words[0], words[1], words[2], words[3]);
  }
}

template <int CPR>
void launch(const uint8_t* table, int64_t row_bytes, int64_t rows_per_table, const int64_t* indices, void* out,
            int64_t num_tables, int64_t batch, int64_t bag, cudaStream_t stream) {
  const int64_t blocks = (batch + kWarpsPerBlock - 1) / kWarpsPerBlock;
  int4_tbe_kernel<CPR><<<dim3(unsigned(blocks), unsigned(num_tables)), kWarpsPerBlock * 32, 0, stream>>>(
      table, row_bytes, rows_per_table, indices, static_cast<__half*>(out), int(num_tables), batch, int(bag));
}

}  // namespace

extern "C" cudaError_t dlrm03_int4_tbe(const uint8_t* table, int64_t row_bytes, int64_t rows_per_table,
                                       const int64_t* indices, void* out, int64_t num_tables, int64_t batch,
                                       int64_t bag, int64_t dim, cudaStream_t stream) {
  if (row_bytes % 16 != 0 || row_bytes < dim / 2 + 4 || bag < 1 || num_tables < 1 || num_tables > 65535 || batch < 1)
    return cudaErrorInvalidValue;
  switch (dim) {
    case 32: launch<1>(table, row_bytes, rows_per_table, indices, out, num_tables, batch, bag, stream); break;
    case 64: launch<2>(table, row_bytes, rows_per_table, indices, out, num_tables, batch, bag, stream); break;
    case 128: launch<4>(table, row_bytes, rows_per_table, indices, out, num_tables, batch, bag, stream); break;
    case 256: launch<8>(table, row_bytes, rows_per_table, indices, out, num_tables, batch, bag, stream); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}
"""

CPP_SRC = DECLS + r"""
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

at::Tensor int4_tbe(const at::Tensor& table, const at::Tensor& indices, int64_t rows_per_table, int64_t dim) {
  TORCH_CHECK(table.is_cuda() && indices.is_cuda(), "int4_tbe: CUDA tensors expected");
  TORCH_CHECK(table.dim() == 2 && table.scalar_type() == at::kByte && table.is_contiguous() &&
              table.size(1) % 16 == 0 && reinterpret_cast<uintptr_t>(table.data_ptr()) % 16 == 0,
              "int4_tbe: the table must be contiguous uint8 rows padded to 16 bytes");
  TORCH_CHECK(indices.dim() == 3 && indices.scalar_type() == at::kLong, "int4_tbe: indices must be int64 [T, B, L]");
  TORCH_CHECK(dim == 32 || dim == 64 || dim == 128 || dim == 256, "int4_tbe: D must be 32, 64, 128 or 256");
  const int64_t tables = indices.size(0), batch = indices.size(1), bag = indices.size(2);
  TORCH_CHECK(tables * rows_per_table == table.size(0), "int4_tbe: T tables of rows_per_table rows expected");
  c10::cuda::CUDAGuard guard(table.device());
  const at::Tensor ids = indices.contiguous();
  at::Tensor out = at::empty({batch, tables * dim}, table.options().dtype(at::kHalf));
  if (tables > 0 && batch > 0) {
    if (bag == 0) return out.zero_();
    const cudaError_t e = dlrm03_int4_tbe(table.data_ptr<uint8_t>(), table.size(1), rows_per_table,
                                          ids.data_ptr<int64_t>(), out.data_ptr(), tables, batch, bag, dim,
                                          c10::cuda::getCurrentCUDAStream().stream());
    TORCH_CHECK(e == cudaSuccess, "int4_tbe: ", cudaGetErrorString(e));
  }
  return out;
}
"""

FUNCTIONS = ["int4_tbe"]
CUDA_FLAGS = ["-O3", "-gencode=arch=compute_90a,code=sm_90a"]

_ext = load_inline(name="dlrm_bench_03_tbe_int4_inference", cpp_sources=[CPP_SRC], cuda_sources=[CUDA_SRC],
                   functions=FUNCTIONS, extra_cuda_cflags=CUDA_FLAGS, verbose=False)


def _table_device():
    return "cuda" if torch.cuda.is_available() else "cpu"


class ModelNew(nn.Module):
    def __init__(self, num_tables, rows_per_table, dim):
        super().__init__()
        # The problem's quantized table, drawn the same way under the same seed.
        rows = num_tables * rows_per_table
        device = _table_device()
        row_bytes = (dim // 2 + 4 + 15) // 16 * 16
        packed = torch.randint(0, 256, (rows, dim // 2), dtype=torch.uint8, device=device)
        scale = torch.rand(rows, device=device).mul_(0.04).add_(0.03)
        bias = torch.randn(rows, device=device).mul_(0.05).sub_(scale * 7.5)
        header = torch.stack([scale.half(), bias.half()], dim=1).view(torch.uint8)
        pad = torch.zeros(rows, row_bytes - dim // 2 - 4, dtype=torch.uint8, device=device)
        self.register_buffer("table", torch.cat([packed, header, pad], dim=1))
        self.rows_per_table = rows_per_table
        self.dim = dim

    def forward(self, indices):
        return _ext.int4_tbe(self.table, indices, self.rows_per_table, self.dim)
