# Every dependency is a Debian package (scripts/install-deps lists them); README.md says what each is for.
find_package(simdjson REQUIRED)          # libsimdjson-dev: the Kineto JSON reader
find_package(fmt REQUIRED)               # libfmt-dev: formatting of tables and messages
find_package(CLI11 REQUIRED)             # libcli11-dev: command-line parsing
find_package(SQLite3 REQUIRED)           # libsqlite3-dev: the trace store and Nsight Systems exports
find_package(ZLIB REQUIRED)              # zlib1g-dev: .json.gz traces
find_package(Threads REQUIRED)
find_package(PostgreSQL REQUIRED)        # libpq-dev: results stores on a PostgreSQL server
if(HEADROOM_GENERATE)
  find_package(CURL REQUIRED)            # libcurl4-openssl-dev: headroom generate's requests to model endpoints
endif()
# A library found by its header and its name: both searches honour CMAKE_PREFIX_PATH, where a GPU
# machine's unpacked .deb files sit (docs/device.md), which a Debian .pc file's /usr prefix would not.
function(headroom_find_library target header name)
  find_path(${target}_INCLUDE_DIR ${header} REQUIRED)
  find_library(${target}_LIBRARY ${name} REQUIRED)
  add_library(${target} UNKNOWN IMPORTED)
  set_target_properties(${target} PROPERTIES IMPORTED_LOCATION ${${target}_LIBRARY}
                                             INTERFACE_INCLUDE_DIRECTORIES ${${target}_INCLUDE_DIR}
                                             INTERFACE_LINK_LIBRARIES Threads::Threads)
endfunction()
headroom_find_library(headroom::re2 re2/re2.h re2)  # libre2-dev: user and rule patterns in linear time
headroom_find_library(headroom::isal isa-l/igzip_lib.h isal)  # libisal-dev: .json.gz inflated by igzip
# toml++ ships a pkg-config file and, depending on the version, a CMake package.
find_package(tomlplusplus QUIET)
if(TARGET tomlplusplus::tomlplusplus)
  set(HEADROOM_TOMLPP tomlplusplus::tomlplusplus)
else()
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(TOMLPP REQUIRED IMPORTED_TARGET tomlplusplus)
  set(HEADROOM_TOMLPP PkgConfig::TOMLPP)
endif()
