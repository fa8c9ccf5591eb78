// The pattern over outputs a candidate keeps, on the GPU (poison_pattern.hpp): a fill and a count,
// one grid-stride pass each. A byte pattern is a plain memset; a pattern of 2 or 4 bytes is written
// as words of its width (a tensor's memory is aligned to its element, which is at least that wide).
#include "poison_pattern.hpp"

#include <algorithm>
#include <cstdint>

namespace headroom::cuda {
namespace {

constexpr int block_threads = 256;

unsigned blocks_for(std::size_t n) {
  int device = 0, sms = 132;
  if (cudaGetDevice(&device) == cudaSuccess) cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  std::size_t want = (n + block_threads - 1) / block_threads;
  return static_cast<unsigned>(
      std::max<std::size_t>(1, std::min<std::size_t>(want, static_cast<std::size_t>(sms) * 8)));
}

template <class W>
__global__ void fill_kernel(W* out, std::size_t n, W word) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    out[i] = word;
}

// Each thread counts its elements; a warp's counts are added by shuffles and its first lane adds
// them to the total.
template <class E>
__global__ void count_kernel(const E* in, std::size_t n, E want, unsigned long long* count) {
  unsigned long long c = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    c += in[i] == want;
  for (int offset = 16; offset > 0; offset /= 2) c += __shfl_down_sync(0xffffffffu, c, offset);
  if ((threadIdx.x & 31) == 0 && c) atomicAdd(count, c);
}

template <class W>
cudaError_t fill(void* p, std::size_t bytes, W word, cudaStream_t s) {
  const std::size_t n = bytes / sizeof(W);
  if (n) fill_kernel<W><<<blocks_for(n), block_threads, 0, s>>>(static_cast<W*>(p), n, word);
  return cudaGetLastError();
}

template <class E>
cudaError_t count(const void* p, std::size_t n, std::uint64_t want, unsigned long long* total, cudaStream_t s) {
  if (n)
    count_kernel<E><<<blocks_for(n), block_threads, 0, s>>>(static_cast<const E*>(p), n, static_cast<E>(want), total);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_fill_pattern(void* p, std::size_t bytes, const worker::poison_pattern& pattern,
                                cudaStream_t stream) {
  if (!p || bytes == 0) return cudaSuccess;
  switch (pattern.width) {
    case 4:
      return fill<std::uint32_t>(p, bytes, pattern.word, stream);
    case 2:
      return fill<std::uint16_t>(p, bytes, static_cast<std::uint16_t>(pattern.word), stream);
    default:
      return cudaMemsetAsync(p, static_cast<int>(pattern.word & 0xffu), bytes, stream);
  }
}

cudaError_t launch_count_pattern(const void* p, std::size_t bytes, std::size_t element_bytes,
                                 const worker::poison_pattern& pattern, unsigned long long* total,
                                 cudaStream_t stream) {
  if (!p || element_bytes == 0) return cudaSuccess;
  const std::size_t n = bytes / element_bytes;
  const std::uint64_t want = worker::pattern_element(pattern, element_bytes);
  switch (element_bytes) {
    case 8:
      return count<unsigned long long>(p, n, want, total, stream);
    case 4:
      return count<std::uint32_t>(p, n, want, total, stream);
    case 2:
      return count<std::uint16_t>(p, n, want, total, stream);
    case 1:
      return count<std::uint8_t>(p, n, want, total, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace headroom::cuda
