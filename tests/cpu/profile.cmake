# The `headroom profile` launcher (owner: launcher). A fake profiled process writes fabricated
# event streams, so merging, exit statuses and signals are tested without a GPU.
add_executable(profile_fake_process ${CMAKE_CURRENT_LIST_DIR}/profile/fake_process.cpp)
target_link_libraries(profile_fake_process PRIVATE headroom_trace fmt::fmt)
headroom_cpu_test(profile_test ${CMAKE_CURRENT_LIST_DIR}/profile/merge_streams_test.cpp
                               ${CMAKE_CURRENT_LIST_DIR}/profile/launcher_test.cpp)
target_link_libraries(profile_test PRIVATE headroom_profile)
target_compile_definitions(profile_test PRIVATE HEADROOM_FAKE_PROCESS="$<TARGET_FILE:profile_fake_process>"
                                                HEADROOM_CLI="$<TARGET_FILE:headroom_cli>")
add_dependencies(profile_test profile_fake_process headroom_cli)
