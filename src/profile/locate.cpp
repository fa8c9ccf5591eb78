#include <dlfcn.h>
#include <link.h>
#include <fmt/format.h>

#include <cstdlib>
#include <sstream>
#include <system_error>

#include "headroom/util/error.hpp"
#include "launcher.hpp"

namespace headroom::profile {
namespace {

bool is_file(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec);
}

std::filesystem::path absolute_of(const std::filesystem::path& p) {
  std::error_code ec;
  auto a = std::filesystem::absolute(p, ec);
  return ec ? p : a;
}

}  // namespace

std::filesystem::path find_inject_library() {
  if (const char* env = std::getenv("HEADROOM_INJECT_LIB"); env && *env) {
    if (!is_file(env)) throw input_error(fmt::format("HEADROOM_INJECT_LIB={}: no such file", env));
    return absolute_of(env);
  }
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto lib = exe.parent_path() / ".." / "lib" / "libheadroom_inject.so";
    if (is_file(lib)) return std::filesystem::weakly_canonical(lib, ec);
  }
  throw input_error(
      "this headroom was built without CUDA/CUPTI: profile needs the injection library (configure with the "
      "CUDA toolkit installed), or point HEADROOM_INJECT_LIB at libheadroom_inject.so");
}

std::optional<std::filesystem::path> find_cupti_library() {
  if (const char* env = std::getenv("HEADROOM_CUPTI_LIB"); env && *env) {
    if (is_file(env)) return absolute_of(env);
  }
#ifdef HEADROOM_CUPTI_LIBRARY
  if (is_file(HEADROOM_CUPTI_LIBRARY)) return std::filesystem::path(HEADROOM_CUPTI_LIBRARY);
#endif
  // Where the dynamic loader would find it (LD_LIBRARY_PATH, ld.so.cache). Loading libcupti does not
  // start CUPTI: that happens only when a client subscribes.
  if (void* h = ::dlopen("libcupti.so", RTLD_LAZY | RTLD_LOCAL)) {
    link_map* map = nullptr;
    std::optional<std::filesystem::path> found;
    if (::dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name) found = map->l_name;
    ::dlclose(h);
    if (found && is_file(*found)) return found;
  }
  std::vector<std::filesystem::path> dirs;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    if (const char* env = std::getenv(var); env && *env) dirs.push_back(std::filesystem::path(env) / "lib64");
  }
  dirs.emplace_back("/usr/local/cuda/lib64");
  dirs.emplace_back("/usr/local/cuda/extras/CUPTI/lib64");
  dirs.emplace_back("/usr/local/cuda/targets/x86_64-linux/lib");
  for (const auto& d : dirs) {
    if (is_file(d / "libcupti.so")) return d / "libcupti.so";
  }
  return std::nullopt;
}

void check_kinds(const std::string& kinds) {
  static constexpr std::string_view known[] = {"all",    "kernel", "memcpy",   "memset", "runtime",
                                               "driver", "nvtx",   "overhead", "sync"};
  std::istringstream in(kinds);
  std::string k;
  while (std::getline(in, k, ',')) {
    if (std::find(std::begin(known), std::end(known), k) == std::end(known)) {
      throw input_error(fmt::format("--kinds: unknown kind '{}' (known: all, kernel, memcpy, memset, runtime, driver, "
                                    "nvtx, overhead, sync)", k));
    }
  }
}

}  // namespace headroom::profile
