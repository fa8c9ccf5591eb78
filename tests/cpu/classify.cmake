headroom_cpu_test(classify_test
  ${CMAKE_CURRENT_LIST_DIR}/classify/kernel_names_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/classify/fixture_names_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/classify/rule_file_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/classify/demangle_test.cpp)
