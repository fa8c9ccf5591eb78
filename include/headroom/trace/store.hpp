#pragma once
// The trace store: our own SQLite file holding a trace (docs/trace-store.md is the schema).
#include <filesystem>

#include "headroom/trace/model.hpp"

namespace headroom::trace {

inline constexpr int store_schema_version = 3;

// Writes `t` to a new store at `path` (an existing file is replaced atomically: written beside it,
// then renamed, so an interrupted write never leaves a half file under the name).
void write_store(const trace& t, const std::filesystem::path& path);

// Reads a store; older schema versions are migrated on read. Throws input_error.
trace read_store(const std::filesystem::path& path);

}  // namespace headroom::trace
