// Reading workloads/study.toml and finding the workloads folder.
#include "headroom/study/workloads.hpp"

#include <toml++/toml.h>
#include <unistd.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <set>

#include "headroom/util/error.hpp"

namespace headroom::study {
namespace {

constexpr std::array known_keys{"name", "script", "args", "domain", "timeout"};

std::string required_string(const toml::table& entry, std::string_view key, const std::string& where) {
  const auto* value = entry.get_as<std::string>(key);
  if (value == nullptr || value->get().empty()) {
    throw input_error(fmt::format("{}: `{}` must be a non-empty string", where, key));
  }
  return value->get();
}

workload read_entry(const toml::table& entry, const std::string& where) {
  for (auto&& [key, value] : entry) {
    if (std::find(known_keys.begin(), known_keys.end(), key.str()) == known_keys.end()) {
      throw input_error(fmt::format("{}: unknown key `{}` (line {})", where, key.str(), value.source().begin.line));
    }
  }
  workload w;
  w.name = required_string(entry, "name", where);
  if (w.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_-") != std::string::npos) {
    // The name becomes a folder name and a comma-list item.
    throw input_error(fmt::format("{}: name '{}' may hold only a-z, 0-9, '_' and '-'", where, w.name));
  }
  w.script = required_string(entry, "script", where);
  w.domain = required_string(entry, "domain", where);
  if (const auto* args = entry.get("args")) {
    const auto* array = args->as_array();
    if (array == nullptr) throw input_error(fmt::format("{}: `args` must be an array of strings", where));
    for (const auto& a : *array) {
      if (!a.is_string()) throw input_error(fmt::format("{}: `args` must be an array of strings", where));
      w.args.push_back(a.as_string()->get());
    }
  }
  if (const auto* timeout = entry.get("timeout")) {
    const auto* seconds = timeout->as_integer();
    if (seconds == nullptr || seconds->get() < 1)
      throw input_error(fmt::format("{}: `timeout` must be a positive integer (seconds)", where));
    w.timeout_s = static_cast<int>(seconds->get());
  }
  return w;
}

}  // namespace

std::vector<workload> read_workloads(const std::filesystem::path& toml_file) {
  toml::table doc;
  try {
    doc = toml::parse_file(toml_file.string());
  } catch (const toml::parse_error& e) {
    throw input_error(fmt::format("{}: {} (line {})", toml_file.string(), e.description(), e.source().begin.line));
  }
  const auto* entries = doc.get_as<toml::array>("workload");
  if (entries == nullptr || entries->empty()) {
    throw input_error(fmt::format("{}: no [[workload]] entries", toml_file.string()));
  }
  std::vector<workload> out;
  std::set<std::string> names;
  for (std::size_t i = 0; i < entries->size(); ++i) {
    const auto where = fmt::format("{}: workload {}", toml_file.string(), i + 1);
    const auto* entry = entries->get(i)->as_table();
    if (entry == nullptr) throw input_error(where + ": not a table");
    auto w = read_entry(*entry, where);
    if (!names.insert(w.name).second) throw input_error(fmt::format("{}: name '{}' appears twice", where, w.name));
    out.push_back(std::move(w));
  }
  return out;
}

std::vector<workload> select_workloads(const std::vector<workload>& all, std::string_view list) {
  if (list.empty() || list == "all") return all;
  std::set<std::string, std::less<>> wanted;
  std::vector<std::string> unknown;
  for (std::size_t start = 0; start <= list.size();) {
    const auto comma = std::min(list.find(',', start), list.size());
    const auto name = list.substr(start, comma - start);
    start = comma + 1;
    if (name.empty()) continue;
    const bool known = std::any_of(all.begin(), all.end(), [&](const workload& w) { return w.name == name; });
    if (known) wanted.emplace(name);
    else unknown.emplace_back(name);
  }
  if (!unknown.empty() || wanted.empty()) {
    std::string known_names;
    for (const auto& w : all) known_names += (known_names.empty() ? "" : ", ") + w.name;
    throw input_error(unknown.empty()
                          ? fmt::format("--workloads names no workload; the study knows {}", known_names)
                          : fmt::format("unknown workload{} '{}'; the study knows {}", unknown.size() > 1 ? "s" : "",
                                        fmt::join(unknown, "', '"), known_names));
  }
  std::vector<workload> out;
  for (const auto& w : all) {
    if (wanted.contains(w.name)) out.push_back(w);
  }
  return out;
}

std::filesystem::path find_workloads_dir(const std::filesystem::path& chosen) {
  std::filesystem::path dir = chosen;
  if (dir.empty()) {
    if (const char* env = std::getenv("HEADROOM_WORKLOADS"); env != nullptr && *env != '\0') {
      dir = env;
    } else if (std::filesystem::exists(std::filesystem::path(HEADROOM_SOURCE_WORKLOADS) / "study.toml")) {
      dir = HEADROOM_SOURCE_WORKLOADS;
    } else {
      std::error_code ec;
      const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
      dir = exe.parent_path().parent_path() / "share" / "headroom" / "workloads";
    }
  }
  if (!std::filesystem::exists(dir / "study.toml")) {
    throw input_error(
        fmt::format("no study.toml in the workloads folder {} (name the folder with --workloads-dir "
                    "or HEADROOM_WORKLOADS)",
                    dir.string()));
  }
  return std::filesystem::absolute(dir);
}

}  // namespace headroom::study
