# Every dependency is a Debian package (scripts/install-deps lists them); README.md says what each is for.
find_package(simdjson REQUIRED)          # libsimdjson-dev: the Kineto JSON reader
find_package(fmt REQUIRED)               # libfmt-dev: formatting of tables and messages
find_package(CLI11 REQUIRED)             # libcli11-dev: command-line parsing
find_package(SQLite3 REQUIRED)           # libsqlite3-dev: the trace store and Nsight Systems exports
find_package(ZLIB REQUIRED)              # zlib1g-dev: .json.gz traces
find_package(Threads REQUIRED)
find_package(PostgreSQL REQUIRED)        # libpq-dev: results stores on a PostgreSQL server
# toml++ ships a pkg-config file and, depending on the version, a CMake package.
find_package(tomlplusplus QUIET)
if(TARGET tomlplusplus::tomlplusplus)
  set(HEADROOM_TOMLPP tomlplusplus::tomlplusplus)
else()
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(TOMLPP REQUIRED IMPORTED_TARGET tomlplusplus)
  set(HEADROOM_TOMLPP PkgConfig::TOMLPP)
endif()
