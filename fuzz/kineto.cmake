# The Kineto reader under libFuzzer (clang; configure with the `fuzz` preset).
add_executable(kineto_reader_fuzz ${CMAKE_CURRENT_LIST_DIR}/kineto_reader_fuzz.cpp)
target_compile_options(kineto_reader_fuzz PRIVATE -fsanitize=fuzzer)
target_link_options(kineto_reader_fuzz PRIVATE -fsanitize=fuzzer)
target_link_libraries(kineto_reader_fuzz PRIVATE headroom_trace headroom_util)
