headroom_cpu_test(analyze_intervals_test ${CMAKE_CURRENT_LIST_DIR}/analyze/intervals_test.cpp)
headroom_cpu_test(analyze_windows_test ${CMAKE_CURRENT_LIST_DIR}/analyze/windows_test.cpp
                                       ${CMAKE_CURRENT_LIST_DIR}/analyze/repeating_unit_test.cpp)
headroom_cpu_test(analyze_fractions_test ${CMAKE_CURRENT_LIST_DIR}/analyze/fractions_test.cpp)
headroom_cpu_test(analyze_fixtures_test ${CMAKE_CURRENT_LIST_DIR}/analyze/fixtures_test.cpp)
headroom_cpu_test(analyze_what_if_test ${CMAKE_CURRENT_LIST_DIR}/analyze/what_if_test.cpp)
headroom_cpu_test(analyze_attribution_test ${CMAKE_CURRENT_LIST_DIR}/analyze/attribution_test.cpp)
