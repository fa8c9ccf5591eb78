# The event model: string table and merging traces of several ranks.
headroom_cpu_test(trace_model_test ${CMAKE_CURRENT_LIST_DIR}/trace/model_test.cpp)
