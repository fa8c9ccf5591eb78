#include "output_memory.hpp"

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "worker/cuda_poison.hpp"

namespace headroom::worker {

bool mapped_read_write(const void* begin, std::size_t bytes) {
  auto lo = reinterpret_cast<std::uintptr_t>(begin);
  std::uintptr_t hi = lo + bytes;
  std::ifstream maps("/proc/self/maps");
  // Consecutive mappings may cover the range together; each must be rw.
  std::uintptr_t covered = lo;
  for (std::string line; std::getline(maps, line) && covered < hi;) {
    std::uintptr_t a = 0, b = 0;
    char perms[5] = {};
    if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR " %4s", &a, &b, perms) != 3) continue;
    if (b <= covered || a > covered) continue;
    if (perms[0] != 'r' || perms[1] != 'w') return false;
    covered = b;
  }
  return covered >= hi;
}

std::string check_output_memory(const std::vector<output_extent>& outputs, const util::allocation_log& host,
                                const cuda_poison* device) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const output_extent& o = outputs[i];
    if (o.bytes == 0) continue;
    bool logged = o.on_device ? device && device->holds(o.begin, o.bytes) : host.holds(o.begin, o.bytes);
    if (!logged)
      return fmt::format(
          "output {} ({} bytes at {}) lies in no block the harness's allocator handed out during the "
          "call ({} blocks were): memory the candidate mapped or kept itself, an input, or an earlier "
          "call's output",
          i, o.bytes, o.begin, o.on_device ? (device ? device->logged_blocks() : 0) : host.blocks());
    if (!o.on_device && !mapped_read_write(o.begin, o.bytes))
      return fmt::format(
          "output {} ({} bytes at {}) is not mapped readable and writable: memory that is filled "
          "only when first read",
          i, o.bytes, o.begin);
  }
  return {};
}

}  // namespace headroom::worker
