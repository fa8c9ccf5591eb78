headroom_cpu_test(util_json_test ${CMAKE_CURRENT_LIST_DIR}/util/json_test.cpp)
headroom_cpu_test(util_sha256_test ${CMAKE_CURRENT_LIST_DIR}/util/sha256_test.cpp)
headroom_cpu_test(util_output_file_test ${CMAKE_CURRENT_LIST_DIR}/util/output_file_test.cpp)
headroom_cpu_test(util_regex_test ${CMAKE_CURRENT_LIST_DIR}/util/regex_test.cpp)
