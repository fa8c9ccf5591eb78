// The idle probe's kernel (idle_probe.hpp): one thread that does nothing. Its round trip is what a
// launch costs on an idle GPU; on a GPU busy with another context's work it runs only once that
// context's time slice ends, and the round trip shows it (gpu_idle.hpp).
#include "idle_probe.hpp"

namespace headroom::cuda {
namespace {

__global__ void idle_probe_kernel() {}

}  // namespace

cudaError_t launch_idle_probe(cudaStream_t stream) {
  idle_probe_kernel<<<1, 1, 0, stream>>>();
  return cudaGetLastError();
}

}  // namespace headroom::cuda
