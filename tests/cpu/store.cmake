# The stores' shared layer, the results store and its work queue, each on SQLite and on the test
# PostgreSQL server that ctest starts (tests/services/postgres.sh); the release format; the evaluations
# table's columns, which both are made from.
headroom_cpu_test(store_results_test ${CMAKE_CURRENT_LIST_DIR}/store/results_store_test.cpp
                                     ${CMAKE_CURRENT_LIST_DIR}/store/work_queue_test.cpp
                                     ${CMAKE_CURRENT_LIST_DIR}/store/location_test.cpp
                                     ${CMAKE_CURRENT_LIST_DIR}/store/release_test.cpp
                                     ${CMAKE_CURRENT_LIST_DIR}/store/evaluation_columns_test.cpp)
target_link_libraries(store_results_test PRIVATE headroom_results_store)
target_include_directories(store_results_test PRIVATE ${PROJECT_SOURCE_DIR}/src/store)
headroom_uses_postgres(store_results_test)
