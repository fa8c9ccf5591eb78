#pragma once
// Launch geometry as SQLite rows hold it. The trace store's activities table and Nsight Systems'
// kernel table both keep it as nine consecutive integer columns: grid x, y, z, block x, y, z,
// registers per thread, static and dynamic shared memory bytes.
#include <cstdint>

#include "headroom/store/sqlite.hpp"
#include "headroom/trace/model.hpp"

namespace headroom::trace {

// The geometry in the nine columns of `s`'s current row that start at `first_column`.
inline launch_geometry geometry_columns(const store::sqlite::statement& s, int first_column) {
  launch_geometry g;
  for (int d = 0; d < 3; ++d) {
    g.grid[d] = static_cast<std::uint32_t>(s.int64(first_column + d));
    g.block[d] = static_cast<std::uint32_t>(s.int64(first_column + 3 + d));
  }
  g.registers_per_thread = static_cast<std::uint32_t>(s.int64(first_column + 6));
  g.static_shared_bytes = static_cast<std::uint32_t>(s.int64(first_column + 7));
  g.dynamic_shared_bytes = static_cast<std::uint32_t>(s.int64(first_column + 8));
  return g;
}

}  // namespace headroom::trace
