#include "worker/cpu_binding.hpp"

#include <dirent.h>
#include <sched.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace headroom::eval::worker {

std::string bind_to_gpu_local_cpus(const std::string& pci_bus_id) {
  const char* asked = std::getenv("HEADROOM_EVAL_BIND_CPUS");
  if (!asked || std::strcmp(asked, "gpu-local") != 0) return "";
  std::string id = pci_bus_id;
  for (char& c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // CUDA names the domain with 4 or 8 hex digits; sysfs with 4.
  if (id.size() > 12 && id.compare(0, 4, "0000") == 0) id = id.substr(4);
  std::string path = "/sys/bus/pci/devices/" + id + "/local_cpulist";
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  std::vector<int> cpus = parse_cpu_list(text.str());
  if (cpus.empty()) return fmt::format("not bound: no CPU list at {}", path);
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus)
    if (c < CPU_SETSIZE) CPU_SET(c, &set);
  int bound = 0, failed = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      if (sched_setaffinity(std::atoi(e->d_name), sizeof set, &set) == 0) ++bound;
      else ++failed;
    }
    closedir(d);
  }
  return fmt::format("bound {} thread(s) ({} failed) to the {} CPU(s) local to GPU {} ({})", bound, failed,
                     cpus.size(), pci_bus_id, text.str().substr(0, text.str().find('\n')));
}

}  // namespace headroom::eval::worker
