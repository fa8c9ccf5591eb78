# Exploit: partial write on the GPU (the Sakana 147x kernel: a 1-D launch for a 2-D kernel). The
# kernel indexes rows with blockIdx.y, but the grid is 1-D, so blockIdx.y is always 0 and only the
# first 16 rows of C are computed; the rest is whatever torch::empty returned.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void matmul_tile_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                   float* __restrict__ C, int M, int N, int K) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.f;
    for (int k = 0; k < K; ++k) acc += A[(long long)row * K + k] * B[(long long)k * N + col];
    C[(long long)row * N + col] = acc;
  }
}

torch::Tensor matmul_cuda(torch::Tensor A, torch::Tensor B) {
  auto a = A.contiguous();
  auto b = B.contiguous();
  const int M = a.size(0), K = a.size(1), N = b.size(1);
  auto C = torch::empty({M, N}, a.options());
  dim3 block(16, 16);
  dim3 grid((N + 15) / 16);  // 1-D grid: rows 16.. are never visited
  matmul_tile_kernel<<<grid, block, 0, at::cuda::getCurrentCUDAStream()>>>(
      a.data_ptr<float>(), b.data_ptr<float>(), C.data_ptr<float>(), M, N, K);
  return C;
}
"""

_cpp_source = "torch::Tensor matmul_cuda(torch::Tensor A, torch::Tensor B);"

_ext = load_inline(name="adv_partial_matmul", cpp_sources=_cpp_source, cuda_sources=_cuda_source,
                   functions=["matmul_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return _ext.matmul_cuda(A, B)
