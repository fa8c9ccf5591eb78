// Where the profile launcher finds its injection library, and its checks of --kinds.
#include <fmt/format.h>

#include <cstdlib>
#include <sstream>
#include <system_error>

#include "headroom/util/error.hpp"
#include "headroom/profile/launcher.hpp"

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

void check_kinds(const std::string& kinds) {
  static constexpr std::string_view known[] = {"all",    "kernel", "memcpy",   "memset", "runtime",
                                               "driver", "nvtx",   "overhead", "sync"};
  std::istringstream in(kinds);
  std::string k;
  while (std::getline(in, k, ',')) {
    if (std::find(std::begin(known), std::end(known), k) == std::end(known)) {
      throw input_error(
          fmt::format("--kinds: unknown kind '{}' (known: all, kernel, memcpy, memset, runtime, driver, "
                      "nvtx, overhead, sync)",
                      k));
    }
  }
}

}  // namespace headroom::profile
