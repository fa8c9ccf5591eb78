# The module graph (docs/architecture.md): which modules' public headers each module's code may
# include. A module is a folder src/<module>/ with its public headers in include/headroom/<module>/;
# its private headers (src/<module>/*.hpp) are its own. Adding a module is one line here.
#
# Every build checks the product code (src/, include/, tools/) against this graph
# (cmake/check_module_graph.cmake): an include of a module not listed, or of another module's
# private header, fails the build with the file, the line and the rule it breaks.
set(HEADROOM_MODULES "")
macro(headroom_module name)
  list(APPEND HEADROOM_MODULES ${name})
  set(HEADROOM_MODULE_DEPS_${name} ${ARGN})
endmacro()

#               module     may include
headroom_module(util)
headroom_module(record)
headroom_module(store      record util)
headroom_module(trace      store util)
headroom_module(classify   util)
headroom_module(analyze    trace classify util)
headroom_module(project    analyze eval store trace classify record util)
headroom_module(report     analyze eval project store trace classify record util)
headroom_module(study      analyze classify project report trace util)
headroom_module(profile    trace util)
headroom_module(cupti      trace util)
headroom_module(sandbox    util)
headroom_module(worker     sandbox record util)
headroom_module(cuda       worker util)
headroom_module(eval       sandbox store worker trace record util)
headroom_module(generate   eval record util)
# The CLI (tools/headroom) may include every module's public headers, and no private one.
headroom_module(tools      util record store trace classify analyze project report study profile sandbox worker cuda eval generate)

# Lists travel to the script joined by ',' (a ';' would split the command line).
list(JOIN HEADROOM_MODULES "," _modules)
set(_module_check_args -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DMODULES=${_modules})
foreach(m IN LISTS HEADROOM_MODULES)
  list(JOIN HEADROOM_MODULE_DEPS_${m} "," _deps)
  list(APPEND _module_check_args -DDEPS_${m}=${_deps})
endforeach()
file(GLOB_RECURSE _module_checked_files CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/src/*.cpp ${PROJECT_SOURCE_DIR}/src/*.hpp ${PROJECT_SOURCE_DIR}/src/*.cu
  ${PROJECT_SOURCE_DIR}/src/*.cuh ${PROJECT_SOURCE_DIR}/include/*.hpp ${PROJECT_SOURCE_DIR}/tools/*.cpp
  ${PROJECT_SOURCE_DIR}/tools/*.hpp)
add_custom_command(
  OUTPUT ${PROJECT_BINARY_DIR}/module_graph.checked
  COMMAND ${CMAKE_COMMAND} ${_module_check_args} -P ${PROJECT_SOURCE_DIR}/cmake/check_module_graph.cmake
  COMMAND ${CMAKE_COMMAND} -E touch ${PROJECT_BINARY_DIR}/module_graph.checked
  DEPENDS ${_module_checked_files} ${PROJECT_SOURCE_DIR}/cmake/check_module_graph.cmake
          ${PROJECT_SOURCE_DIR}/cmake/modules.cmake
  COMMENT "Checking the module graph (cmake/modules.cmake)"
  VERBATIM)
add_custom_target(module_graph ALL DEPENDS ${PROJECT_BINARY_DIR}/module_graph.checked)
