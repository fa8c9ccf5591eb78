# Checks every include of the product code against the module graph of cmake/modules.cmake:
#   - "headroom/<d>/..." (a public header) only for d the including module's own or one it lists;
#   - a private header (anything under src/) only from its own module, never from a public header;
#   - <Python.h> only in the worker's Python gateway (src/worker/python*.cpp).
# Run by the build (target module_graph): cmake -DSOURCE_DIR=... -DMODULES=a,b -DDEPS_<m>=a,b
# -P check_module_graph.cmake. Prints every violation, then fails if any.
cmake_minimum_required(VERSION 3.25)
string(REPLACE "," ";" MODULES "${MODULES}")
foreach(m IN LISTS MODULES)
  string(REPLACE "," ";" DEPS_${m} "${DEPS_${m}}")
endforeach()

file(GLOB_RECURSE files RELATIVE ${SOURCE_DIR}
  ${SOURCE_DIR}/src/*.cpp ${SOURCE_DIR}/src/*.hpp ${SOURCE_DIR}/src/*.cu ${SOURCE_DIR}/src/*.cuh
  ${SOURCE_DIR}/include/*.hpp ${SOURCE_DIR}/tools/*.cpp ${SOURCE_DIR}/tools/*.hpp)

# The module a path (relative to the source folder) belongs to; "" outside every module.
function(module_of path out)
  set(m "")
  if(path MATCHES "^src/([^/]+)/")
    set(m ${CMAKE_MATCH_1})
  elseif(path MATCHES "^include/headroom/([^/]+)/")
    set(m ${CMAKE_MATCH_1})
  elseif(path MATCHES "^tools/")
    set(m tools)
  endif()
  set(${out} ${m} PARENT_SCOPE)
endfunction()

set(violations 0)
foreach(f IN LISTS files)
  module_of(${f} m)
  if(NOT m IN_LIST MODULES)
    message(SEND_ERROR "${f}: module '${m}' is not in cmake/modules.cmake (add a headroom_module line)")
    math(EXPR violations "${violations} + 1")
    continue()
  endif()
  get_filename_component(dir ${f} DIRECTORY)
  file(STRINGS ${SOURCE_DIR}/${f} includes REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<][^\">]+[\">]")
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[\"<]([^\">]+)[\">].*" "\\1" header "${line}")
    if(header MATCHES "^headroom/([^/]+)/")
      set(d ${CMAKE_MATCH_1})
      if(NOT d STREQUAL m AND NOT d IN_LIST DEPS_${m})
        message(SEND_ERROR "${f}: #include \"${header}\": module ${m} may not include module ${d} "
                           "(cmake/modules.cmake lists what ${m} may include)")
        math(EXPR violations "${violations} + 1")
      endif()
      continue()
    endif()
    if(line MATCHES "#[ \t]*include[ \t]*<")
      # CPython only in the worker's Python gateway (docs/architecture.md, the worker's components).
      if(header STREQUAL "Python.h" AND NOT f MATCHES "^src/worker/python[a-z_]*\\.cpp$")
        message(SEND_ERROR "${f}: #include <Python.h>: only the worker's Python gateway "
                           "(src/worker/python*.cpp) calls CPython")
        math(EXPR violations "${violations} + 1")
      endif()
      continue()  # a system or library header
    endif()
    # A quoted header of our own: where the compiler would find it.
    set(found "")
    # The including file's folder, the module roots, then every module's folder (a target may expose
    # its source folder to others, which is what this check catches).
    set(bases ${dir} src src/${m} include)
    foreach(other IN LISTS MODULES)
      list(APPEND bases src/${other})
    endforeach()
    foreach(base IN LISTS bases)
      if(EXISTS ${SOURCE_DIR}/${base}/${header})
        file(REAL_PATH ${SOURCE_DIR}/${base}/${header} full)
        file(RELATIVE_PATH found ${SOURCE_DIR} ${full})
        break()
      endif()
    endforeach()
    if(found STREQUAL "" OR NOT found MATCHES "^src/")
      continue()  # generated, or a public header by another path
    endif()
    module_of(${found} owner)
    if(f MATCHES "^include/")
      message(SEND_ERROR "${f}: #include \"${header}\": a public header may not include a private one (${found})")
      math(EXPR violations "${violations} + 1")
    elseif(NOT owner STREQUAL m)
      message(SEND_ERROR "${f}: #include \"${header}\": ${found} is private to module ${owner}; "
                         "include its public headers (include/headroom/${owner}/) instead")
      math(EXPR violations "${violations} + 1")
    endif()
  endforeach()
endforeach()
if(violations GREATER 0)
  message(FATAL_ERROR "${violations} include(s) break the module graph (docs/architecture.md)")
endif()
