# The study's registry, runs and folder (owner: study).
headroom_cpu_test(study_test ${CMAKE_CURRENT_LIST_DIR}/study/study_test.cpp)
target_link_libraries(study_test PRIVATE headroom_study)
# The study's tables: Markdown and JSON (owner: study).
headroom_cpu_test(study_summary_output_test ${CMAKE_CURRENT_LIST_DIR}/study/summary_output_test.cpp)
target_link_libraries(study_summary_output_test PRIVATE headroom_study)
