# Renderings of analysis results (owner: analyze).
headroom_cpu_test(report_analysis_output_test ${CMAKE_CURRENT_LIST_DIR}/report/analysis_output_test.cpp)
headroom_cpu_test(report_document_test ${CMAKE_CURRENT_LIST_DIR}/report/report_test.cpp)
target_link_libraries(report_document_test PRIVATE headroom_eval)
