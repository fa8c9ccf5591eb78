// The injection library as the CUDA driver sees it: a shared object with C entry points. Loaded
// here without a profile directory, so nothing is profiled and no GPU is needed.
#include <dlfcn.h>
#include <stdlib.h>

#include <gtest/gtest.h>

#include <string>

namespace {

TEST(inject_library, exports_the_driver_entry_point_and_names_its_libcupti) {
  unsetenv("HEADROOM_PROFILE_DIR");
  void* library = dlopen(HEADROOM_INJECT_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  auto* initialize = reinterpret_cast<int (*)()>(dlsym(library, "InitializeInjection"));
  auto* cupti_path = reinterpret_cast<const char* (*)()>(dlsym(library, "headroom_inject_cupti_path"));
  ASSERT_NE(initialize, nullptr);
  ASSERT_NE(cupti_path, nullptr);
  // NVTX_INJECTION64_PATH names this library too (docs/profiler.md, NVTX).
  EXPECT_NE(dlsym(library, "InitializeInjectionNvtx2"), nullptr);
  // Internals stay hidden, so they cannot bind to (or be bound by) the host's symbols.
  EXPECT_EQ(dlsym(library, "_ZN8headroom5cupti13start_sessionENS0_16profile_settingsE"), nullptr);
  EXPECT_EQ(initialize(), 1);  // unprofiled, yet never a failure for the host
  EXPECT_EQ(initialize(), 1);  // called twice: still harmless
  ASSERT_NE(cupti_path(), nullptr);
  EXPECT_NE(std::string(cupti_path()).find("libcupti"), std::string::npos);
}

}  // namespace
