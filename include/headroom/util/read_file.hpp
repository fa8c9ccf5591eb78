#pragma once
// The whole of a file as bytes: rule files, category tables, CSV and JSON inputs, candidate
// sources and cgroup limits are all small enough to read at once.
#include <filesystem>
#include <optional>
#include <string>

namespace headroom::util {

// The file's bytes, unchanged (binary mode); a pipe reads to its end. nullopt for a folder, or when
// the file cannot be opened or a read fails.
// Callers word the error, since only they know what the file was meant to be.
std::optional<std::string> read_file(const std::filesystem::path& path);

}  // namespace headroom::util
