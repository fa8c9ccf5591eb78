#pragma once
// The trace store: our own SQLite file holding a trace (docs/trace-store.md is the schema).
#include <filesystem>
#include <ostream>

#include "headroom/trace/model.hpp"

namespace headroom::trace {

inline constexpr int store_schema_version = 4;

// Writes `t` as a store: the bytes of the SQLite file, into `out` (a util::output_file's stream).
void write_store(const trace& t, std::ostream& out);
// The same into a new file at `path` through util::output_file (atomic, every write checked).
void write_store(const trace& t, const std::filesystem::path& path);

// Reads a store; older schema versions are migrated on read. Throws input_error.
trace read_store(const std::filesystem::path& path);

}  // namespace headroom::trace
