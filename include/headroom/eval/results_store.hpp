#pragma once
// The results store: a SQLite file with a documented, versioned schema (docs/eval-results.md).
// Every evaluation is one row; candidates' sources are kept so `headroom reverify` can rerun them.
// A row is identified by (candidate hash, problem hash, checker version, device); writing one that
// exists replaces it, so an interrupted run that starts again neither duplicates nor loses work.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "headroom/eval/evaluation.hpp"

namespace headroom::eval {

inline constexpr int results_schema_version = 2;

struct stored_candidate {
  std::string hash;
  std::string source;  // model configuration
  std::string path;
  std::string text;    // the file's contents
};

struct stored_problem {
  std::string id;
  std::string hash;
  std::string path;
  std::string text;
};

struct evaluation_filter {
  std::optional<std::string> source;
  std::optional<std::string> problem;
  std::optional<int> checker;  // only rows made by this checker version
  bool latest_only = true;     // per (candidate, problem, device): the newest checker's row
};

class results_store {
 public:
  // read_only: for readers such as `headroom stats`; the file must exist and is never changed
  // (an older schema is migrated in memory).
  enum class access { read_write, read_only };

  // Creates the file (and its folder) when missing; refuses a file of a newer schema version.
  explicit results_store(const std::filesystem::path& path, access mode = access::read_write);
  ~results_store();
  results_store(const results_store&) = delete;
  results_store& operator=(const results_store&) = delete;

  void put_candidate(const stored_candidate& c);
  void put_problem(const stored_problem& p);
  std::optional<stored_candidate> candidate(const std::string& hash);
  std::optional<stored_problem> problem_by_hash(const std::string& hash);

  // True when this candidate was evaluated on this problem, by this checker, on one of these devices
  // (a run over every GPU of a host continues what an earlier run did on any of them), or, when
  // `gpu` is given ("NVIDIA H200"), on any CUDA device of that model: a GPU's index says nothing
  // from one run or machine to the next.
  bool has(const std::string& candidate_hash, const std::string& problem_hash, int checker,
           const std::vector<std::string>& devices, const std::string& gpu = {});
  // Inserts or replaces (one transaction; durable when it returns).
  void put(const evaluation& e);
  std::vector<evaluation> evaluations(const evaluation_filter& f = {});

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace headroom::eval
