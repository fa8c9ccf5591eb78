#pragma once
// A job's texts: problems and candidates read from their files into specs (job.hpp), and stored in
// the results store (what reverify reruns).
#include <filesystem>
#include <string>
#include <vector>

#include "headroom/eval/job.hpp"

namespace headroom::store {
class results_store;
}

namespace headroom::eval {

// Reads a file into a spec (hash = sha256 of its bytes).
problem_spec load_problem(const std::filesystem::path& path);
candidate_spec load_candidate(const std::filesystem::path& path, const std::string& source);
// Stores the problems' and candidates' texts of `jobs` (what reverify reruns), each once, in hash
// order, so processes storing the same texts together wait for each other instead of deadlocking.
// Inside the caller's transaction.
void put_texts(store::results_store& store, const std::vector<const eval_job*>& jobs);

}  // namespace headroom::eval
