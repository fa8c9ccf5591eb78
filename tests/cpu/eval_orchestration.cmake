# The orchestration side of `headroom eval` that runs without Python: the payload pool, the device
# gate, problem/candidate pairing, suite expectations, the audit, paired rounds and alternating calls, the checks of a
# timing answer against the parent's clock and the reference's replays, what a busy GPU means for a candidate, and the
# memory plan.
headroom_cpu_test(eval_orchestration_test
  ${CMAKE_CURRENT_LIST_DIR}/eval/buffer_pool_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/eval/device_gate_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/eval/wire_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/eval/jobs_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/eval/audit_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/eval/paired_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/eval/call_alternation_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/eval/timed_calls_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/eval/gpu_busy_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/eval/memory_test.cpp)
target_link_libraries(eval_orchestration_test PRIVATE headroom_eval)
target_include_directories(eval_orchestration_test PRIVATE ${PROJECT_SOURCE_DIR}/src  # eval/session.hpp
                                                           ${PROJECT_SOURCE_DIR}/src/eval)
