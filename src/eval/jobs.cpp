#include "headroom/eval/jobs.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>

#include <fmt/format.h>

#include "headroom/eval/loaders.hpp"
#include "headroom/record/evaluation.hpp"
#include "headroom/util/error.hpp"

namespace headroom::eval {
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> python_files(const fs::path& p) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (fs::is_directory(p, ec)) {
    for (const auto& e : fs::directory_iterator(p))
      if (e.is_regular_file() && e.path().extension() == ".py") out.push_back(e.path());
    std::sort(out.begin(), out.end());
  } else if (fs::is_regular_file(p, ec)) {
    out.push_back(p);
  } else {
    throw input_error(fmt::format("{}: no such file or folder", p.string()));
  }
  return out;
}

bool starts_with_stem(const std::string& name, const std::string& stem) {
  return name == stem || (name.size() > stem.size() && name.compare(0, stem.size(), stem) == 0 &&
                          (name[stem.size()] == '_' || name[stem.size()] == '.'));
}

}  // namespace

std::optional<generation_name> parse_generation_name(const std::string& filename) {
  static const std::regex pattern(R"(level_(\d+)_problem_(\d+)_sample_(\d+)_kernel\.py)");
  std::smatch m;
  if (!std::regex_match(filename, m, pattern)) return std::nullopt;
  return generation_name{m[1].str(), m[2].str(), m[3].str()};
}

std::vector<problem_spec> find_problems(const std::vector<fs::path>& paths) {
  std::vector<problem_spec> out;
  for (const fs::path& p : paths)
    for (const fs::path& f : python_files(p)) {
      std::string name = f.filename().string();
      if (parse_generation_name(name) || name == "__init__.py") continue;
      out.push_back(load_problem(f));
    }
  if (out.empty()) throw input_error("no problem files (*.py) found");
  return out;
}

std::vector<eval_job> pair_candidates(const std::vector<problem_spec>& problems,
                                      const std::vector<fs::path>& candidates, const std::string& source) {
  std::vector<eval_job> jobs;
  std::vector<std::string> unpaired;
  for (const fs::path& c : candidates)
    for (const fs::path& f : python_files(c)) {
      std::string name = f.filename().string();
      std::string src = source.empty() ? fs::absolute(f).parent_path().filename().string() : source;
      const problem_spec* match = nullptr;
      if (const auto g = parse_generation_name(name)) {
        std::string level = "level" + g->level;
        std::string prefix = g->problem + "_";
        std::vector<const problem_spec*> hits;
        for (const auto& p : problems)
          if (p.path.filename().string().rfind(prefix, 0) == 0) hits.push_back(&p);
        if (hits.size() > 1) {
          auto it = std::find_if(hits.begin(), hits.end(), [&](const problem_spec* p) {
            return p->path.parent_path().filename().string() == level;
          });
          if (it != hits.end()) hits = {*it};
        }
        if (hits.size() == 1) match = hits[0];
      } else {
        std::string stem = f.stem().string();
        const problem_spec* best = nullptr;
        for (const auto& p : problems) {
          std::string ps = p.path.stem().string();
          if (starts_with_stem(stem, ps) && (!best || ps.size() > best->path.stem().string().size())) best = &p;
        }
        match = best;
        if (!match && problems.size() == 1) match = &problems[0];
      }
      if (!match) {
        unpaired.push_back(f.string());
        continue;
      }
      jobs.push_back({*match, load_candidate(f, src)});
    }
  if (!unpaired.empty()) {
    std::string list;
    for (const auto& u : unpaired) list += "\n  " + u;
    throw input_error(
        fmt::format("no problem matches {} candidate file(s) (name them like the problem, e.g. "
                    "19_ReLU_v2.py, or as KernelBench runs do, level_1_problem_19_sample_0_kernel.py):{}",
                    unpaired.size(), list));
  }
  return jobs;
}

std::vector<eval_job> reference_jobs(const std::vector<problem_spec>& problems, const fs::path& cache) {
  std::vector<eval_job> jobs;
  fs::create_directories(cache / "reference");
  for (const problem_spec& p : problems) {
    fs::path f = cache / "reference" / (p.hash.substr(0, 16) + "_" + p.path.filename().string());
    {
      std::ofstream out(f, std::ios::binary);
      out << p.text << "\n\n# headroom: the problem's own Model, evaluated as a candidate.\nModelNew = Model\n";
    }
    jobs.push_back({p, load_candidate(f, "reference")});
  }
  return jobs;
}

}  // namespace headroom::eval
