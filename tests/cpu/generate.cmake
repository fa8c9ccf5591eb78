# headroom generate's pieces without a network: cutting code out of answers, the chat answers (whole
# and streamed), the configuration file, retries' waits, prompts and feedback, the runs folder's
# names and the log. The whole loop against a local server is tests/cli/generate.sh.
if(HEADROOM_GENERATE)
  headroom_cpu_test(generate_test ${CMAKE_CURRENT_LIST_DIR}/generate/code_extract_test.cpp
                                  ${CMAKE_CURRENT_LIST_DIR}/generate/chat_test.cpp
                                  ${CMAKE_CURRENT_LIST_DIR}/generate/model_config_test.cpp
                                  ${CMAKE_CURRENT_LIST_DIR}/generate/retry_test.cpp
                                  ${CMAKE_CURRENT_LIST_DIR}/generate/prompt_feedback_test.cpp
                                  ${CMAKE_CURRENT_LIST_DIR}/generate/runs_log_test.cpp)
  target_link_libraries(generate_test PRIVATE headroom_generate)
endif()
