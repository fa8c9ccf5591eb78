#include "worker/output_memory.hpp"

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>

#include <fmt/format.h>

namespace headroom::worker {
namespace {

std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

bool overlaps(const output_extent& x, const memory_span& s) {
  if (x.on_device != s.on_device || s.bytes == 0) return false;
  return address(x.begin) < address(s.begin) + s.bytes && address(s.begin) < address(x.begin) + x.bytes;
}

bool inside(const output_extent& x, const memory_span& s) {
  return x.on_device == s.on_device && address(s.begin) <= address(x.begin) &&
         address(x.begin) + x.bytes <= address(s.begin) + s.bytes;
}

std::string where(std::size_t i, const output_extent& x) {
  return fmt::format("output {} ({} bytes at {}{})", i, x.bytes, x.begin, x.on_device ? " on the device" : "");
}

// The place of one output, or the failure (code and message) it is.
std::optional<output_place> place_one(std::size_t i, const output_extent& x, const output_sources& s, std::string& code,
                                      std::string& why) {
  for (std::size_t k = 0; k < s.inputs.size(); ++k)
    if (overlaps(x, s.inputs[k])) {
      code = "output_aliases_input";
      why = fmt::format(
          "{} is the memory of input {} (a view of it, or the input itself): forward must write its "
          "result into memory of its own, not hand back what it was given",
          where(i, x), k);
      return std::nullopt;
    }
  if (!x.on_device && s.private_read_write && !s.private_read_write(x)) {
    code = "foreign_output";
    why = fmt::format(
        "{} is not mapped readable, writable and private: memory that is filled only when first read, or that "
        "another process shares and can write after the call",
        where(i, x));
    return std::nullopt;
  }
  if (s.allocated_during_call(x)) return output_place{output_memory::fresh, 0};
  for (std::size_t k = 0; k < s.filled.size(); ++k)
    if (x.dense && inside(x, s.filled[k])) return output_place{output_memory::kept, k};
  if (!s.allocated_since_load(x))
    why = fmt::format(
        "{} lies in no block the harness's allocators handed out, during the call ({} blocks) or before it: "
        "memory the candidate mapped or allocated itself, outside PyTorch's allocator",
        where(i, x), s.blocks_during_call);
  else if (!x.dense)
    why = fmt::format(
        "{} is a strided view of memory the call did not allocate: the harness proves memory a candidate "
        "keeps rewritten by filling it before each call, which it does only for an output that covers its "
        "memory exactly",
        where(i, x));
  else if (!s.first_return_allowed)
    why = fmt::format(
        "{} lies in memory the candidate allocated before this timed call and returns for the first time: the "
        "harness fills the memory of every output an earlier call returned before each call, so that it can "
        "tell a rewritten output from a stale one; memory no call returned before is accepted only in the "
        "trials, where every value is compared",
        where(i, x));
  else return output_place{output_memory::first_returned, 0};
  code = "foreign_output";
  return std::nullopt;
}

}  // namespace

output_placement place_outputs(const std::vector<output_extent>& outputs, const output_sources& sources) {
  output_placement placed;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].bytes == 0) {
      placed.places.push_back({});
      continue;
    }
    std::optional<output_place> p = place_one(i, outputs[i], sources, placed.code, placed.why);
    if (!p) {
      placed.places.clear();
      return placed;
    }
    placed.places.push_back(*p);
  }
  return placed;
}

bool mapped_private_read_write(const void* begin, std::size_t bytes) {
  auto lo = reinterpret_cast<std::uintptr_t>(begin);
  std::uintptr_t hi = lo + bytes;
  std::ifstream maps("/proc/self/maps");
  // Consecutive mappings may cover the range together; each must be rw and private.
  std::uintptr_t covered = lo;
  for (std::string line; std::getline(maps, line) && covered < hi;) {
    std::uintptr_t a = 0, b = 0;
    char perms[5] = {};
    if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR " %4s", &a, &b, perms) != 3) continue;
    if (b <= covered || a > covered) continue;
    if (perms[0] != 'r' || perms[1] != 'w' || perms[3] != 'p') return false;
    covered = b;
  }
  return covered >= hi;
}

}  // namespace headroom::worker
