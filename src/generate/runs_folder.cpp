#include "headroom/generate/runs_folder.hpp"

#include <fmt/format.h>

#include <map>
#include <regex>

#include "headroom/util/error.hpp"

namespace headroom::generate {

std::vector<named_problem> name_problems(const std::vector<eval::problem_spec>& problems) {
  static const std::regex level_pattern(R"(level(\d+))");
  static const std::regex number_pattern(R"((\d+)_.*)");
  std::vector<named_problem> out;
  std::map<std::string, std::string> taken;  // candidate name of sample 0 -> problem path
  for (const auto& p : problems) {
    named_problem n{p, "1", ""};
    std::smatch m;
    const std::string folder = p.path.parent_path().filename().string();
    if (std::regex_match(folder, m, level_pattern)) n.level = m[1].str();
    const std::string stem = p.path.stem().string();
    if (std::regex_match(stem, m, number_pattern)) n.number = m[1].str();
    const std::string name = candidate_file_name(n, 0);
    auto [it, fresh] = taken.emplace(name, p.path.string());
    if (!fresh)
      throw input_error(
          fmt::format("{} and {} would both be {} in a runs folder (KernelBench names a candidate by its "
                      "level and problem number); give them in separate runs",
                      it->second, p.path.string(), name));
    out.push_back(std::move(n));
  }
  return out;
}

std::string candidate_file_name(const named_problem& p, int sample) {
  if (p.number.empty()) return fmt::format("{}_sample_{}_kernel.py", p.spec.path.stem().string(), sample);
  return fmt::format("level_{}_problem_{}_sample_{}_kernel.py", p.level, p.number, sample);
}

std::filesystem::path turn_folder(const std::filesystem::path& runs_dir, const std::string& config, int turn) {
  return turn == 1 ? runs_dir / config : runs_dir / fmt::format("{}.turn{}", config, turn);
}

}  // namespace headroom::generate
