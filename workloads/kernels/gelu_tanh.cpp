// The PyTorch edge of workloads/kernels/gelu_tanh.cu: tensors in, raw pointers and a dtype code to the
// kernels, a tensor out, on PyTorch's current stream. Compiled by load_inline beside the .cu file
// (workloads/swap.py; suites/swap/make_candidates.py for headroom eval).
#include <torch/extension.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime.h>

extern "C" cudaError_t headroom_gelu_tanh(const void* dy, const void* x, void* out, int64_t n, int dtype, int repeat,
                                          cudaStream_t stream);

namespace {
int dtype_code(const at::Tensor& t) {
  switch (t.scalar_type()) {
    case at::kFloat:
      return 0;
    case at::kBFloat16:
      return 1;
    case at::kHalf:
      return 2;
    default:
      TORCH_CHECK(false, "gelu_tanh: float32, bfloat16 or float16 expected, got ", t.scalar_type());
  }
  return -1;
}

at::Tensor run(const at::Tensor* grad, const at::Tensor& x, int64_t repeat) {
  TORCH_CHECK(x.is_cuda(), "gelu_tanh: a CUDA tensor expected");
  TORCH_CHECK(repeat >= 1, "gelu_tanh: repeat must be at least 1");
  c10::cuda::CUDAGuard guard(x.device());
  const at::Tensor xc = x.contiguous();
  at::Tensor gc;
  if (grad != nullptr) {
    TORCH_CHECK(grad->scalar_type() == x.scalar_type() && grad->sizes() == x.sizes(), "gelu_tanh_backward: grad as x");
    gc = grad->contiguous();
  }
  at::Tensor out = at::empty_like(xc, at::MemoryFormat::Contiguous);
  const cudaError_t e =
      headroom_gelu_tanh(grad != nullptr ? gc.data_ptr() : nullptr, xc.data_ptr(), out.data_ptr(), xc.numel(),
                         dtype_code(xc), int(repeat), c10::cuda::getCurrentCUDAStream().stream());
  TORCH_CHECK(e == cudaSuccess, "gelu_tanh: ", cudaGetErrorString(e));
  return out;
}
}  // namespace

at::Tensor gelu_tanh_forward(const at::Tensor& x, int64_t repeat) { return run(nullptr, x, repeat); }
at::Tensor gelu_tanh_backward(const at::Tensor& grad, const at::Tensor& x, int64_t repeat) {
  return run(&grad, x, repeat);
}
