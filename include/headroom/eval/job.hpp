#pragma once
// The job model of `headroom eval`: a problem (a KernelBench reference), a candidate for it, and the
// job that pairs them (docs/eval.md, "Format"). What reads them from files is loaders.hpp.
#include <filesystem>
#include <string>

#include "headroom/record/evaluation.hpp"

namespace headroom::eval {

struct problem_spec {
  std::string id;  // "<folder>/<stem>"
  std::filesystem::path path;
  std::string hash;
  std::string text;
};

struct candidate_spec {
  std::filesystem::path path;
  std::string hash;
  std::string source;
  std::string text;
};

struct eval_job {
  problem_spec problem;
  candidate_spec candidate;
};

// An evaluation of `candidate` on `problem` under `checker`, not judged yet: what identifies it
// (hashes, source, path, problem id) filled in.
record::evaluation evaluation_of(const candidate_spec& candidate, const problem_spec& problem, int checker);

}  // namespace headroom::eval
