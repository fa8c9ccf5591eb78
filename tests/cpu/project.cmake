headroom_cpu_test(project_amdahl_test ${CMAKE_CURRENT_LIST_DIR}/project/amdahl_test.cpp)
headroom_cpu_test(project_replay_test ${CMAKE_CURRENT_LIST_DIR}/project/replay_test.cpp)
headroom_cpu_test(project_replay_fixtures_test ${CMAKE_CURRENT_LIST_DIR}/project/replay_fixtures_test.cpp)
