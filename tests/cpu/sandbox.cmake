# The trust boundary of `headroom eval`: the framed worker channel and its shared regions.
headroom_cpu_test(sandbox_channel_test ${CMAKE_CURRENT_LIST_DIR}/sandbox/channel_test.cpp)
target_link_libraries(sandbox_channel_test PRIVATE headroom_channel)
