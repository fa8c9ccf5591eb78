# The Kineto JSON reader, format detection, read_trace and read_traces.
headroom_cpu_test(trace_kineto_test
  ${CMAKE_CURRENT_LIST_DIR}/trace/kineto_fixture_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace/kineto_input_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace/kineto_time_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace/kineto_detect_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace/read_traces_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/trace/gzip_source_test.cpp)
target_link_libraries(trace_kineto_test PRIVATE SQLite::SQLite3 ZLIB::ZLIB)
