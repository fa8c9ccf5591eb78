#pragma once
// How much host memory `headroom eval` may use when --memory-budget is not given (docs/eval.md,
// "Memory"): a share of the least of what the kernel says is available (MemAvailable) and what the
// process's memory cgroup leaves below its limit (v2 memory.max, v1 memory.limit_in_bytes, over the
// cgroup and its ancestors), page cache that can be reclaimed counted as free in both.
#include <cstdint>
#include <optional>
#include <string_view>

namespace headroom::eval {

// The share of the available memory a run takes by default: the rest is left for the estimate's
// error (memory_plan.hpp) and for what else the machine runs.
inline constexpr double default_budget_share = 0.85;

// MemAvailable of a /proc/meminfo text, in bytes.
std::optional<std::uint64_t> meminfo_available(std::string_view meminfo);

// What a memory cgroup leaves: limit - (usage - inactive file pages), from the texts of its limit
// file ("max", or a v1 limit of 2^63 rounded down to a page: no limit), its usage file and its
// memory.stat (inactive_file, or v1's total_inactive_file). nullopt when it has no limit.
std::optional<std::uint64_t> cgroup_room(std::string_view limit, std::string_view usage, std::string_view stat);

// The least of MemAvailable and every limited cgroup's room on the way from this process's memory
// cgroup to the root of the mount; 0 when none can be read.
std::uint64_t available_memory();

// default_budget_share of available_memory(), split among `lanes` problems in flight.
std::uint64_t default_memory_budget(int lanes);

}  // namespace headroom::eval
