# headroom_embed_files(TARGET VAR FILES...) generates a source that defines
#   std::span<const headroom::util::embedded_file> VAR()
# holding each file's name and contents, so data ships inside the binary.
function(headroom_embed_files target var)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/${var}_embedded.cpp")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DVAR=${var} "-DFILES=${ARGN}"
            -P "${PROJECT_SOURCE_DIR}/cmake/embed_script.cmake"
    VERBATIM  # FILES is a list: its semicolons must reach cmake -P, not the shell
    DEPENDS ${ARGN} "${PROJECT_SOURCE_DIR}/cmake/embed_script.cmake"
    COMMENT "Embedding ${var}")
  target_sources(${target} PRIVATE "${out}")
endfunction()
