// The entry points of libheadroom_inject.so, the library `headroom profile` puts in
// CUDA_INJECTION64_PATH. The CUDA driver dlopens it when the process initialises CUDA and calls
// InitializeInjection once. Everything else in the library is hidden (a version script), so its
// copies of headroom, fmt and the C++ runtime's inline symbols never clash with the host's.
#include <dlfcn.h>

#include <atomic>
#include <cstdlib>

#include "cupti_session.hpp"
#include "profile_settings.hpp"

#define HEADROOM_EXPORT extern "C" __attribute__((visibility("default")))

// Returns 1 whatever happens: the host's CUDA initialisation must never depend on its profiler.
HEADROOM_EXPORT int InitializeInjection(void) {
  static std::atomic<bool> called{false};
  if (called.exchange(true)) return 1;
  try {
    auto settings = headroom::cupti::settings_from_env([](const char* name) { return std::getenv(name); });
    if (settings.dir.empty()) {
      headroom::cupti::log_line("HEADROOM_PROFILE_DIR is not set; this process runs unprofiled");
      return 1;
    }
    headroom::cupti::start_session(std::move(settings));
  } catch (...) {
    // settings_from_env allocates; nothing may escape into the driver.
  }
  return 1;
}

// The file of the libcupti this library uses, for the launcher's NVTX_INJECTION64_PATH: NVTX must
// load the same libcupti, or the process would hold two CUPTI copies. The launcher dlopens this
// library (loading it does not initialise CUDA) and calls this; nullptr when unknown.
HEADROOM_EXPORT const char* headroom_inject_cupti_path(void) {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cuptiGetVersion), &info) != 0 && info.dli_fname != nullptr) return info.dli_fname;
  return nullptr;
}
