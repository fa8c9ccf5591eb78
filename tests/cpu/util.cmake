headroom_cpu_test(util_json_test ${CMAKE_CURRENT_LIST_DIR}/util/json_test.cpp)
