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

// The file of the libcupti this library is bound to in this process; nullptr when unknown. In a
// PyTorch process that is the copy torch loaded at import (its wheel's libcupti.so.13, found by
// soname before our own rpath is searched), not the toolkit's copy the launcher would find.
HEADROOM_EXPORT const char* headroom_inject_cupti_path(void) {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&cuptiGetVersion), &info) != 0 && info.dli_fname != nullptr) return info.dli_fname;
  return nullptr;
}

// NVTX's entry point: the launcher sets NVTX_INJECTION64_PATH to this library, and the call goes
// on to the libcupti this library is bound to. Naming a libcupti file there instead (as CUPTI's
// documentation does) loads a second copy whenever the program already holds another file of it
// (PyTorch does): NVTX then reports to a CUPTI nobody enabled, and no range is recorded.
// Returns 0 (NVTX stays a no-op, the program runs on) when libcupti's entry point is not found.
HEADROOM_EXPORT int InitializeInjectionNvtx2(void* get_export_table) {
  using init_fn = int (*)(void*);
  static const init_fn forward = []() -> init_fn {
    const char* path = headroom_inject_cupti_path();
    void* cupti = path != nullptr ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : nullptr;
    return cupti != nullptr ? reinterpret_cast<init_fn>(dlsym(cupti, "InitializeInjectionNvtx2")) : nullptr;
  }();
  if (forward == nullptr) {
    headroom::cupti::log_line("libcupti's NVTX entry point was not found; NVTX ranges are not recorded");
    return 0;
  }
  return forward(get_export_table);
}
