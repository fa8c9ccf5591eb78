#pragma once
// An experiment, off unless HEADROOM_EVAL_BIND_CPUS=gpu-local is in the worker's environment: the
// worker binds itself (every thread it has, and so every thread started later) to the CPUs local
// to its GPU, as sysfs lists them for the GPU's PCI device (local_cpulist).
//
// Why: on the H200 machine some worker processes dispatched a 0.056 ms problem's forward in 0.058
// or 0.081 ms for their whole life where the others took 0.02-0.035 ms (bench/RESULTS.md, session
// 8), which moves a launch-bound call's cost. A process whose threads and memory sit on the NUMA
// node away from its GPU is the suspect; the sample log's CPU column and this switch are the test.
#include <string>
#include <string_view>
#include <vector>

namespace headroom::eval::worker {

// "0-15,32-47" -> {0, ..., 15, 32, ..., 47}; empty on anything malformed.
inline std::vector<int> parse_cpu_list(std::string_view text) {
  std::vector<int> cpus;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  if (text.empty()) return {};
  auto number = [](std::string_view s, int& out) {
    if (s.empty() || s.size() > 6) return false;
    out = 0;
    for (char c : s) {
      if (c < '0' || c > '9') return false;
      out = out * 10 + (c - '0');
    }
    return true;
  };
  while (!text.empty()) {
    std::size_t comma = text.find(',');
    std::string_view part = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    std::size_t dash = part.find('-');
    int lo = 0, hi = 0;
    if (dash == std::string_view::npos) {
      if (!number(part, lo)) return {};
      hi = lo;
    } else if (!number(part.substr(0, dash), lo) || !number(part.substr(dash + 1), hi) || hi < lo) {
      return {};
    }
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
    if (comma != std::string_view::npos && text.empty()) return {};  // a trailing comma
  }
  return cpus;
}

// When HEADROOM_EVAL_BIND_CPUS=gpu-local: binds this process's threads to the CPUs local to the GPU
// at `pci_bus_id` ("0000:1B:00.0"). Returns what it did, for the worker's log ("" when not asked).
std::string bind_to_gpu_local_cpus(const std::string& pci_bus_id);

}  // namespace headroom::eval::worker
