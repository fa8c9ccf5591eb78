// Itanium C++ demangling of kernel names that reach us mangled (CUPTI without demangling, nsys
// StringIds of some versions, names that a profiler failed to demangle).
#include <cxxabi.h>

#include <cstdlib>
#include <memory>

#include "headroom/classify/classifier.hpp"

namespace headroom::classify {
namespace {

std::optional<std::string> try_demangle(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                                  &std::free);
  if (status != 0 || !out) return std::nullopt;
  return std::string(out.get());
}

}  // namespace

std::string demangle(std::string_view name) {
  std::string_view body = name;
  if (body.starts_with("__Z")) body.remove_prefix(1);  // Mach-O style extra underscore
  if (!body.starts_with("_Z")) return std::string(name);
  const std::string whole(body);
  if (auto out = try_demangle(whole)) return *out;  // also handles GCC's ".clone.N"-style suffixes
  // A suffix the demangler does not know ("$local", ".llvm.123", a truncation marker): demangle
  // what precedes it and keep the suffix visible, since it can tell specialisations apart.
  const std::size_t cut = body.find_first_of(".$");
  if (cut != std::string_view::npos && cut > 2) {
    if (auto out = try_demangle(std::string(body.substr(0, cut)))) {
      return *out + " [" + std::string(body.substr(cut)) + "]";
    }
  }
  return std::string(name);
}

}  // namespace headroom::classify
