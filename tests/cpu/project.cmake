headroom_cpu_test(project_amdahl_test ${CMAKE_CURRENT_LIST_DIR}/project/amdahl_test.cpp)
