# The Kineto reader's throughput: a generator of realistic traces of any size and a reader driver.
# bench/analyze_throughput.sh runs both under /usr/bin/time and compares with Python's json module.
add_executable(synthetic_kineto ${CMAKE_CURRENT_LIST_DIR}/synthetic_kineto.cpp)
target_link_libraries(synthetic_kineto PRIVATE fmt::fmt)

add_executable(read_kineto_bench ${CMAKE_CURRENT_LIST_DIR}/read_kineto_bench.cpp)
target_link_libraries(read_kineto_bench PRIVATE headroom_trace headroom_util fmt::fmt)
