# Renderings of analysis results (owner: analyze).
headroom_cpu_test(report_analysis_output_test ${CMAKE_CURRENT_LIST_DIR}/report/analysis_output_test.cpp)
headroom_cpu_test(report_replay_output_test ${CMAKE_CURRENT_LIST_DIR}/report/replay_output_test.cpp)
