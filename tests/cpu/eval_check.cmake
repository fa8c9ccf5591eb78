# The trusted checker of `headroom eval`: tensors, the float64 comparison and the audit's fakes, the
# torch_fallback flag, the speed-of-light floor (owner: eval checker). Verdicts are tested with the
# record (record.cmake).
headroom_cpu_test(eval_check_test
  ${CMAKE_CURRENT_LIST_DIR}/eval/tensor_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/eval/check_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/eval/check_threads_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/eval/torch_fallback_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/eval/speed_of_light_test.cpp)
target_link_libraries(eval_check_test PRIVATE headroom_eval)
target_include_directories(eval_check_test PRIVATE ${PROJECT_SOURCE_DIR}/src)  # eval/parallel.hpp
