headroom_cpu_test(project_amdahl_test ${CMAKE_CURRENT_LIST_DIR}/project/amdahl_test.cpp)
headroom_cpu_test(project_join_test ${CMAKE_CURRENT_LIST_DIR}/project/join_test.cpp)
headroom_cpu_test(project_measured_speedups_test ${CMAKE_CURRENT_LIST_DIR}/project/measured_speedups_test.cpp)
