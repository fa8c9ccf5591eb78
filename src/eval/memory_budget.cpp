#include "headroom/eval/memory_budget.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "headroom/util/read_file.hpp"

namespace headroom::eval {

namespace {

std::optional<std::uint64_t> number(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end == s.data()) return std::nullopt;
  return v;
}

// The value of `key` in a text of "key value" or "key: value" lines.
std::optional<std::uint64_t> field(std::string_view text, std::string_view key) {
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (line.size() <= key.size() || line.substr(0, key.size()) != key) continue;
    std::string_view rest = line.substr(key.size());
    if (rest.front() == ':') rest.remove_prefix(1);
    else if (rest.front() != ' ') continue;
    return number(rest);
  }
  return std::nullopt;
}

// A cgroup file that is not there reads as empty: that level sets no limit.
std::string read(const std::filesystem::path& p) { return util::read_file(p).value_or(std::string()); }

// The cgroup folders whose limits apply to this process, from its own to the mount's root.
std::vector<std::filesystem::path> cgroup_chain(const std::filesystem::path& mount, const std::string& own) {
  std::vector<std::filesystem::path> chain;
  std::error_code ec;
  std::filesystem::path p = mount / std::filesystem::path(own).relative_path();
  // In a container the own path may be the host's: the mount's root is then the container's cgroup.
  if (!std::filesystem::is_directory(p, ec)) p = mount;
  for (;; p = p.parent_path()) {
    chain.push_back(p);
    if (p == mount || !p.has_relative_path() || p.parent_path() == p) break;
  }
  return chain;
}

}  // namespace

std::optional<std::uint64_t> meminfo_available(std::string_view meminfo) {
  auto kib = field(meminfo, "MemAvailable");
  if (!kib) return std::nullopt;
  return *kib * 1024;
}

std::optional<std::uint64_t> cgroup_room(std::string_view limit, std::string_view usage, std::string_view stat) {
  if (limit.substr(0, 3) == "max") return std::nullopt;
  auto l = number(limit), u = number(usage);
  // cgroup v1 writes "no limit" as the largest page-aligned 63-bit value.
  if (!l || !u || *l >= (1ull << 62)) return std::nullopt;
  std::uint64_t reclaimable = field(stat, "total_inactive_file").value_or(field(stat, "inactive_file").value_or(0));
  std::uint64_t held = *u > reclaimable ? *u - reclaimable : 0;
  return *l > held ? *l - held : 0;
}

std::uint64_t available_memory() {
  std::optional<std::uint64_t> least = meminfo_available(read("/proc/meminfo"));
  auto take = [&](std::optional<std::uint64_t> room) {
    if (room) least = least ? std::min(*least, *room) : *room;
  };
  std::istringstream cgroups(read("/proc/self/cgroup"));
  for (std::string line; std::getline(cgroups, line);) {
    // "0::/path" (v2) or "4:memory:/path" (v1)
    std::size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    std::string controllers = line.substr(a + 1, b - a - 1), own = line.substr(b + 1);
    if (controllers.empty() && std::filesystem::exists("/sys/fs/cgroup/cgroup.controllers"))
      for (const auto& dir : cgroup_chain("/sys/fs/cgroup", own))
        take(cgroup_room(read(dir / "memory.max"), read(dir / "memory.current"), read(dir / "memory.stat")));
    if (controllers == "memory")
      for (const auto& dir : cgroup_chain("/sys/fs/cgroup/memory", own))
        take(cgroup_room(read(dir / "memory.limit_in_bytes"), read(dir / "memory.usage_in_bytes"),
                         read(dir / "memory.stat")));
  }
  return least.value_or(0);
}

std::uint64_t default_memory_budget(int lanes) {
  return static_cast<std::uint64_t>(static_cast<double>(available_memory()) * default_budget_share) /
         static_cast<std::uint64_t>(std::max(1, lanes));
}

}  // namespace headroom::eval
