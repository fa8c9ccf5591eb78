# Nsight Systems reader, trace store and Chrome/Perfetto writer (owner: store).
headroom_cpu_test(trace_nsys_reader_test ${CMAKE_CURRENT_LIST_DIR}/trace/nsys_reader_test.cpp)
target_link_libraries(trace_nsys_reader_test PRIVATE SQLite::SQLite3)
headroom_cpu_test(trace_store_test ${CMAKE_CURRENT_LIST_DIR}/trace/store_roundtrip_test.cpp
                                   ${CMAKE_CURRENT_LIST_DIR}/trace/store_schema_test.cpp)
target_link_libraries(trace_store_test PRIVATE SQLite::SQLite3)
headroom_cpu_test(trace_chrome_writer_test ${CMAKE_CURRENT_LIST_DIR}/trace/chrome_writer_test.cpp)
target_link_libraries(trace_chrome_writer_test PRIVATE simdjson::simdjson)
