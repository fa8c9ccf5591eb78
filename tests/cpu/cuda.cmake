# The host-side logic of the GPU primitives, tested without a GPU: the staged copies' order of waits
# (fake transfers) and the watchdog of held launches. Header-only, so built in the CPU-only build too.
headroom_cpu_test(cuda_host_logic_test
  ${CMAKE_CURRENT_LIST_DIR}/cuda/staging_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda/hold_watchdog_test.cpp)
