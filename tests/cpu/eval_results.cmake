# `headroom stats` figures and their renderings (owner: eval results).
headroom_cpu_test(eval_stats_test ${CMAKE_CURRENT_LIST_DIR}/eval/stats_test.cpp)
target_link_libraries(eval_stats_test PRIVATE headroom_eval headroom_report)

# Runs the headroom executable, so it is built first.
headroom_cpu_test(eval_stats_cli_test ${CMAKE_CURRENT_LIST_DIR}/eval/stats_cli_test.cpp)
target_link_libraries(eval_stats_cli_test PRIVATE headroom_eval headroom_report)
target_compile_definitions(eval_stats_cli_test PRIVATE HEADROOM_CLI="$<TARGET_FILE:headroom_cli>")
add_dependencies(eval_stats_cli_test headroom_cli)

# `headroom reverify`'s plan over a results store.
headroom_cpu_test(eval_reverify_test ${CMAKE_CURRENT_LIST_DIR}/eval/reverify_test.cpp)
target_link_libraries(eval_reverify_test PRIVATE headroom_eval)
