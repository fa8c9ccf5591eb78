# Per-record cost of CUPTI record conversion (Google Benchmark, fabricated records, no GPU needed).
if(HEADROOM_HAVE_CUDA)
  find_package(benchmark QUIET)
  if(benchmark_FOUND)
    add_executable(cupti_convert_bench ${CMAKE_CURRENT_LIST_DIR}/cupti_convert_bench.cpp)
    target_link_libraries(cupti_convert_bench PRIVATE headroom_cupti_convert headroom_trace fmt::fmt benchmark::benchmark)
  endif()
endif()
