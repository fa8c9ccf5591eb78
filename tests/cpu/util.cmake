headroom_cpu_test(util_json_test ${CMAKE_CURRENT_LIST_DIR}/util/json_test.cpp)
headroom_cpu_test(util_sha256_test ${CMAKE_CURRENT_LIST_DIR}/util/sha256_test.cpp)
headroom_cpu_test(util_parallel_test ${CMAKE_CURRENT_LIST_DIR}/util/chunk_pool_test.cpp)
