#pragma once
// Hand-built evaluations and a scratch folder for the results store and stats tests.
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <optional>
#include <string>

#include "headroom/record/evaluation.hpp"

namespace headroom::test {

// A folder under the system temp directory, removed with everything in it.
class scratch_dir {
 public:
  explicit scratch_dir(const std::string& name) {
    static std::atomic<int> serial{0};
    path_ = std::filesystem::temp_directory_path() /
            ("headroom-" + name + "-" + std::to_string(::getpid()) + "-" + std::to_string(serial++));
    std::filesystem::remove_all(path_);
  }
  ~scratch_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

inline record::timing_summary timing(double median_ms, int samples = 50) {
  record::timing_summary t;
  t.samples = samples;
  t.median_ms = median_ms;
  t.mean_ms = median_ms * 1.01;
  t.stddev_ms = median_ms * 0.02;
  t.min_ms = median_ms * 0.97;
  t.max_ms = median_ms * 1.2;
  t.rel_spread = 0.0015;
  t.wall_median_ms = median_ms * 1.03;
  t.score_ms = median_ms * 1.03;
  return t;
}

// One evaluation of `candidate` (its hash is derived from the name) on a level-1 problem.
inline record::evaluation row(const std::string& source, const std::string& candidate, record::verdict v,
                              std::optional<double> speedup = std::nullopt,
                              const std::string& problem = "level1/19_ReLU") {
  record::evaluation e;
  e.source = source;
  e.candidate_hash = "sha-" + source + "-" + candidate;
  e.candidate_path = "runs/" + source + "/" + candidate + ".py";
  e.problem = problem;
  e.problem_hash = "sha-" + problem;
  e.result = v;
  e.speedup = speedup;
  if (speedup) {
    e.candidate_timing = timing(1.0 / *speedup);
    e.eager_timing = timing(1.0);
  }
  e.env.device = "cuda:0";
  e.env.gpu = "NVIDIA H200";
  e.checker = 1;
  e.started_at = "2025-01-01T00:00:00Z";
  e.duration_s = 3.5;
  return e;
}

}  // namespace headroom::test
