#pragma once
// The job model of `headroom eval`: a problem (a KernelBench reference), a candidate for it, and the
// job that pairs them (docs/eval.md, "Format"). What reads them from files is loaders.hpp.
#include <filesystem>
#include <optional>
#include <string>

#include "headroom/record/evaluation.hpp"

namespace headroom::eval {

// A problem's own speed-of-light floor, declared beside its file (`<stem>.toml`, as
// suites/dlrm-bench's metadata is; docs/eval.md, "The speed-of-light floor"): the bytes every
// correct kernel moves, outputs included, as a formula over the constructor's and forward's
// arguments by their parameter names and the declared variables.
struct declared_floor {
  std::filesystem::path file;
  std::string formula;  // [formulas] compulsory_bytes
  std::string variables_json;  // [variables] as a JSON object of name -> formula
};

struct problem_spec {
  std::string id;  // "<folder>/<stem>"
  std::filesystem::path path;
  std::string hash;
  std::string text;
  std::optional<declared_floor> floor;
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
