#pragma once
// Every CUDA runtime call of ours is checked (docs/style.md, convention 5): a failure throws with the call's text and
// its place, which the worker turns into the request's error (an illegal address a candidate caused
// shows up at our next call).
#include <stdexcept>

#include <cuda_runtime.h>
#include <fmt/format.h>

#define HEADROOM_CUDA_TRY(call)                                                                       \
  do {                                                                                                \
    cudaError_t err_ = (call);                                                                        \
    if (err_ != cudaSuccess)                                                                          \
      throw std::runtime_error(                                                                       \
          fmt::format("{} failed: {} ({}:{})", #call, cudaGetErrorString(err_), __FILE__, __LINE__)); \
  } while (0)
