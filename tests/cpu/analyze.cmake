headroom_cpu_test(analyze_intervals_test ${CMAKE_CURRENT_LIST_DIR}/analyze/intervals_test.cpp)
headroom_cpu_test(analyze_windows_test ${CMAKE_CURRENT_LIST_DIR}/analyze/windows_test.cpp
                                       ${CMAKE_CURRENT_LIST_DIR}/analyze/repeating_unit_test.cpp)
headroom_cpu_test(analyze_fractions_test ${CMAKE_CURRENT_LIST_DIR}/analyze/fractions_test.cpp)
