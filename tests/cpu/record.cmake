# The record of one evaluation: verdicts, their names and the flags that keep a speedup out of the
# verified set; the kept timing statistics written as JSON.
headroom_cpu_test(record_test ${CMAKE_CURRENT_LIST_DIR}/record/verdict_test.cpp
                  ${CMAKE_CURRENT_LIST_DIR}/record/timing_summary_test.cpp)
target_link_libraries(record_test PRIVATE headroom_record)
