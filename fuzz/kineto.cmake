# The Kineto reader under libFuzzer (clang; configure with the `fuzz` preset).
add_executable(kineto_reader_fuzz ${CMAKE_CURRENT_LIST_DIR}/kineto_reader_fuzz.cpp)
target_compile_options(kineto_reader_fuzz PRIVATE -fsanitize=fuzzer)
target_link_options(kineto_reader_fuzz PRIVATE -fsanitize=fuzzer)
target_link_libraries(kineto_reader_fuzz PRIVATE headroom_trace headroom_util)
# Coverage feedback needs the reader itself instrumented, not only the harness; the library is
# built only for the harness in a fuzz build, so this changes nothing elsewhere.
target_compile_options(headroom_trace PRIVATE -fsanitize=fuzzer-no-link)
