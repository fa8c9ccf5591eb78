#pragma once
// The results store (docs/eval-results.md): a SQLite file, or a PostgreSQL database that any number
// of `headroom eval` processes on any number of hosts share. Every evaluation is one row;
// candidates' and problems' texts are kept so `headroom reverify` can rerun them. A row is
// identified by (candidate hash, problem hash, checker version, device); writing one that exists
// replaces it, so an interrupted run that starts again neither duplicates nor loses work. The work
// queue (work_queue.hpp) lives in the same store.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "headroom/record/evaluation.hpp"
#include "headroom/store/connection.hpp"

namespace headroom::store {

inline constexpr int results_schema_version = 4;

using record::evaluation;

struct stored_candidate {
  std::string hash;
  std::string source;  // model configuration
  std::string path;
  std::string text;  // the file's contents
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
  bool latest_only = true;  // per (candidate, problem, device): the newest checker's row
};

class results_store {
 public:
  // read_only: for readers such as `headroom stats`; the store must exist and is never changed
  // (an older schema is migrated where the store does not see it).
  enum class access { read_write, read_only };

  // `where`: a file path (created with its folder when missing) or a postgresql:// URL. Refuses a
  // store of a newer schema version, and anything that is not a results store.
  explicit results_store(const std::string& where, access mode = access::read_write);
  ~results_store();
  results_store(const results_store&) = delete;
  results_store& operator=(const results_store&) = delete;

  const location& where() const { return where_; }
  // Whether several processes may write it at once and share its work queue (PostgreSQL).
  bool shared() const { return where_.kind == backend::postgresql; }

  void put_candidate(const stored_candidate& c);
  void put_problem(const stored_problem& p);
  std::optional<stored_candidate> candidate(const std::string& hash);
  std::optional<stored_problem> problem_by_hash(const std::string& hash);
  std::vector<stored_candidate> candidates();
  std::vector<stored_problem> problems();

  // True when this candidate was evaluated on this problem, by this checker, on one of these devices
  // (a run over every GPU of a host continues what an earlier run did on any of them), or, when
  // `gpu` is given ("NVIDIA H200"), on any CUDA device of that model: a GPU's index says nothing
  // from one run or machine to the next.
  bool has(const std::string& candidate_hash, const std::string& problem_hash, int checker,
           const std::vector<std::string>& devices, const std::string& gpu = {});
  // Inserts or replaces (one transaction; durable when it returns).
  void put(const evaluation& e);
  // Sorted by source, problem, candidate path and hash, device, checker (the same on both back ends).
  std::vector<evaluation> evaluations(const evaluation_filter& f = {});

  // The store's own connection, for the work queue (work_queue.hpp) and tests.
  connection& db() { return *db_; }

 private:
  location where_;
  std::unique_ptr<connection> db_;
  bool empty_ = false;  // read-only open of a database without tables: a store nothing was written to
};

// Whether `where` names a results store: a postgresql:// URL (a server holds no other headroom
// store), or a SQLite file whose headroom_meta says so. False for anything else, a file that is not
// SQLite among them; reads nothing but that one row.
bool is_results_store(const std::string& where);

// The statement that inserts or replaces one evaluation, and its parameters (work_queue.cpp stores
// an evaluation inside its own transaction).
void put_evaluation(connection& db, const evaluation& e);

}  // namespace headroom::store
