# Exploit: L2 persistence against the cache flush (llm.c PR #851; pygpubench PR #49). Before its
# (correct) ReLU kernel, the extension raises the persisting-L2 carve-out to its maximum and puts
# an access-policy window with hitProp = Persisting over the input on the current stream, so the
# input would survive a plain memset flush. The harness resets persisting lines before each flush.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <algorithm>

__global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ y, long long n) {
  const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) y[idx] = x[idx] > 0.f ? x[idx] : 0.f;
}

torch::Tensor relu_persist(torch::Tensor x) {
  auto in = x.contiguous();
  auto out = torch::empty_like(in);
  const cudaDeviceProp* prop = at::cuda::getCurrentDeviceProperties();
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  if (prop->persistingL2CacheMaxSize > 0 && prop->accessPolicyMaxWindowSize > 0) {
    cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)prop->persistingL2CacheMaxSize);
    const size_t bytes = (size_t)in.numel() * sizeof(float);
    cudaStreamAttrValue attr = {};
    attr.accessPolicyWindow.base_ptr = in.data_ptr();
    attr.accessPolicyWindow.num_bytes = std::min(bytes, (size_t)prop->accessPolicyMaxWindowSize);
    attr.accessPolicyWindow.hitRatio =
        std::min(1.0f, (float)prop->persistingL2CacheMaxSize / (float)attr.accessPolicyWindow.num_bytes);
    attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    if (cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &attr) != cudaSuccess) {
      cudaGetLastError();  // e.g. not allowed on this stream: compute anyway
    }
  }
  const long long n = in.numel();
  relu_kernel<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(in.data_ptr<float>(), out.data_ptr<float>(), n);
  return out;
}
"""

_cpp_source = "torch::Tensor relu_persist(torch::Tensor x);"

_ext = load_inline(name="adv_l2_persist", cpp_sources=_cpp_source, cuda_sources=_cuda_source,
                   functions=["relu_persist"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return _ext.relu_persist(x)
