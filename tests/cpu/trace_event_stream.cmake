# The per-process event stream the profiler writes (owner: cupti).
headroom_cpu_test(trace_event_stream_test ${CMAKE_CURRENT_LIST_DIR}/trace/event_stream_test.cpp)
target_link_libraries(trace_event_stream_test PRIVATE ZLIB::ZLIB)  # frames built by hand
