#include "headroom/sandbox/policy.hpp"

#include <stdexcept>
#include <string_view>

namespace headroom::sandbox {

std::vector<std::string> to_arguments(const policy& p) {
  std::vector<std::string> a;
  for (const bind_mount& b : p.binds) {
    a.push_back(b.writable ? "--rw" : "--ro");
    a.push_back(b.host);
    a.push_back(b.inside.empty() ? b.host : b.inside);
  }
  for (const std::string& d : p.devices) {
    a.push_back("--dev");
    a.push_back(d);
  }
  for (const scratch_mount& s : p.scratch) {
    a.push_back("--tmpfs");
    a.push_back(s.inside);
    a.push_back(std::to_string(s.bytes));
  }
  for (const std::string& e : p.environment) {
    a.push_back("--setenv");
    a.push_back(e);
  }
  a.push_back("--chdir");
  a.push_back(p.workdir);
  if (!p.copy_out_inside.empty()) {
    a.push_back("--copy-out");
    a.push_back(p.copy_out_inside);
    a.push_back(p.copy_out_host);
  }
  a.push_back("--max-processes");
  a.push_back(std::to_string(p.limits.processes));
  a.push_back("--max-file-bytes");
  a.push_back(std::to_string(p.limits.file_bytes));
  a.push_back("--max-open-files");
  a.push_back(std::to_string(p.limits.open_files));
  a.push_back("--max-output-bytes");
  a.push_back(std::to_string(p.limits.output_bytes));
  return a;
}

policy parse_arguments(const std::vector<std::string>& args, std::size_t& consumed) {
  policy p;
  std::size_t i = 0;
  auto take = [&](std::string_view option) -> const std::string& {
    if (i + 1 >= args.size()) throw std::invalid_argument(std::string(option) + " needs a value");
    return args[++i];
  };
  auto number = [&](std::string_view option) -> std::uint64_t {
    const std::string& v = take(option);
    std::size_t used = 0;
    std::uint64_t n = 0;
    try {
      n = std::stoull(v, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != v.size() || v.empty()) throw std::invalid_argument(std::string(option) + ": not a number: " + v);
    return n;
  };
  auto absolute = [](std::string_view option, const std::string& path) -> const std::string& {
    if (path.empty() || path.front() != '/')
      throw std::invalid_argument(std::string(option) + ": not an absolute path: " + path);
    return path;
  };
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      consumed = i + 1;
      return p;
    }
    if (a == "--ro" || a == "--rw") {
      bind_mount b;
      b.host = absolute(a, take(a));
      b.inside = absolute(a, take(a));
      b.writable = a == "--rw";
      p.binds.push_back(b);
    } else if (a == "--dev") {
      p.devices.push_back(absolute(a, take(a)));
    } else if (a == "--tmpfs") {
      scratch_mount s;
      s.inside = absolute(a, take(a));
      s.bytes = number(a);
      p.scratch.push_back(s);
    } else if (a == "--setenv") {
      const std::string& kv = take(a);
      if (kv.find('=') == std::string::npos || kv.front() == '=')
        throw std::invalid_argument("--setenv: not KEY=VALUE: " + kv);
      p.environment.push_back(kv);
    } else if (a == "--chdir") {
      p.workdir = absolute(a, take(a));
    } else if (a == "--copy-out") {
      p.copy_out_inside = absolute(a, take(a));
      p.copy_out_host = absolute(a, take(a));
    } else if (a == "--max-processes") {
      p.limits.processes = number(a);
    } else if (a == "--max-file-bytes") {
      p.limits.file_bytes = number(a);
    } else if (a == "--max-open-files") {
      p.limits.open_files = number(a);
    } else if (a == "--max-output-bytes") {
      p.limits.output_bytes = number(a);
    } else {
      throw std::invalid_argument("unknown option " + a);
    }
  }
  throw std::invalid_argument("no program: its command line follows \"--\"");
}

}  // namespace headroom::sandbox
