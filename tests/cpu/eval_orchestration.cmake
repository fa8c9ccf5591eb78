# The orchestration side of `headroom eval` that runs without Python: the timing statistics, the
# worker channel, the device gate, problem/candidate pairing, suite expectations, the audit and the
# worker's staged copies (their order of waits, with fake transfers), the watchdog of its held
# launches, the pin of its timing thread, and paired rounds.
headroom_cpu_test(eval_orchestration_test
  ${CMAKE_CURRENT_LIST_DIR}/eval/timing_stats_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/eval/channel_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/eval/buffer_pool_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/eval/device_gate_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/eval/wire_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/eval/jobs_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/eval/audit_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/eval/staging_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/eval/hold_watchdog_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/eval/thread_pin_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/eval/paired_test.cpp)
target_link_libraries(eval_orchestration_test PRIVATE headroom_eval)
target_include_directories(eval_orchestration_test PRIVATE ${PROJECT_SOURCE_DIR}/src  # eval/session.hpp
                                                           ${PROJECT_SOURCE_DIR}/src/eval)  # worker/*.hpp
