# The eval channel's big payloads: a new /dev/shm file per message against the shared region.
add_executable(channel_payload_bench ${CMAKE_CURRENT_LIST_DIR}/channel_payload_bench.cpp)
target_link_libraries(channel_payload_bench PRIVATE headroom_eval Threads::Threads)
