# The study's tables (owner: study).
headroom_cpu_test(report_study_output_test ${CMAKE_CURRENT_LIST_DIR}/report/study_output_test.cpp)
