# Renderings of analysis results (owner: analyze).
headroom_cpu_test(report_analysis_output_test ${CMAKE_CURRENT_LIST_DIR}/report/analysis_output_test.cpp)
headroom_cpu_test(report_replay_output_test ${CMAKE_CURRENT_LIST_DIR}/report/replay_output_test.cpp)
headroom_cpu_test(report_eval_pace_test ${CMAKE_CURRENT_LIST_DIR}/report/eval_pace_test.cpp)
headroom_cpu_test(report_document_test ${CMAKE_CURRENT_LIST_DIR}/report/report_test.cpp)
target_link_libraries(report_document_test PRIVATE headroom_eval)
# Runs the headroom executable, so it is built first.
headroom_cpu_test(report_join_cli_test ${CMAKE_CURRENT_LIST_DIR}/report/join_cli_test.cpp)
target_link_libraries(report_join_cli_test PRIVATE headroom_eval)
target_compile_definitions(report_join_cli_test PRIVATE HEADROOM_CLI="$<TARGET_FILE:headroom_cli>")
add_dependencies(report_join_cli_test headroom_cli)
