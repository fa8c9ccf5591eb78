# Trace replay on a fabricated 1M-kernel trace, with Amdahl's projection as the baseline (Google
# Benchmark, no GPU needed).
find_package(benchmark QUIET)
if(benchmark_FOUND)
  add_executable(replay_bench ${CMAKE_CURRENT_LIST_DIR}/replay_bench.cpp)
  target_link_libraries(replay_bench PRIVATE headroom_project headroom_analyze headroom_classify headroom_trace
                                             benchmark::benchmark)
endif()
