# The worker's host-side parts that run without Python or a GPU: the timing statistics (with the
# eval's speed-of-light floor), the busy rule of the GPU's idle probes, the pin of the timing thread, the CPU path's output sketch and its
# transfer times (the CPU's speed-of-light floor), where a call's outputs may lie and the pattern
# over outputs a candidate keeps.
headroom_cpu_test(worker_timing_test
  ${CMAKE_CURRENT_LIST_DIR}/worker/timing_stats_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/worker/gpu_idle_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/worker/thread_pin_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/worker/host_sketch_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/worker/output_memory_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/worker/poison_pattern_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/worker/host_transfers_test.cpp)
target_link_libraries(worker_timing_test PRIVATE headroom_worker_timing headroom_worker_sketch
                                                 headroom_worker_output_checks headroom_worker_host headroom_eval)
target_include_directories(worker_timing_test PRIVATE ${PROJECT_SOURCE_DIR}/src)  # worker/*.hpp
