#pragma once
// Where a candidate's processes run (docs/eval.md, "Sandbox"): the policy of the sandbox that
// headroom-sandbox builds for a compile or an evaluation worker, the stored text of the candidate
// written where that worker imports it, and the check that this machine can isolate at all.
#include <string>

#include "headroom/eval/job.hpp"
#include "headroom/eval/run_state.hpp"
#include "headroom/sandbox/policy.hpp"

namespace headroom::eval {

using record::environment;

// Paths inside a sandbox.
inline constexpr const char* sandbox_worker_path = "/sandbox/bin/headroom-worker";
inline constexpr const char* sandbox_poison_path = "/sandbox/lib/libheadroom_poison_alloc.so";
inline constexpr const char* sandbox_alloc_tracker_path = "/sandbox/lib/libheadroom_alloc_tracker.so";
inline constexpr const char* sandbox_op_record_path = "/sandbox/lib/libheadroom_op_record.so";
inline constexpr const char* sandbox_candidate_path = "/sandbox/candidate.py";
inline constexpr const char* sandbox_build_path = "/sandbox/build";

// The host folder that holds a candidate's build (its extension, made once in the compile phase).
std::filesystem::path build_folder(const run_state& run, const candidate_spec& c);
// The candidate's stored text, written once by the parent (never read again from the user's path):
// the file its worker imports. Returns its host path.
std::filesystem::path candidate_file(const run_state& run, const candidate_spec& c);
// Where a candidate's worker finds its file and build folder (inside the sandbox, or on the host).
std::string candidate_import_path(const run_state& run, const candidate_spec& c);
std::string candidate_build_path(const run_state& run, const candidate_spec& c);

// The sandbox of a candidate's worker on `device`. compile: its build folder is a size-capped tmpfs
// copied out to build_folder() when the worker exits cleanly; otherwise the built folder is bound
// read-only (or, never built, an empty tmpfs).
sandbox::policy candidate_policy(const run_state& run, const std::string& device, const candidate_spec& c, bool compile,
                                 const std::map<std::string, std::string>& env);

// The sandbox of a candidate's evaluation worker, or none with --no-sandbox.
std::optional<sandbox::policy> candidate_isolation(const run_state& run, const std::string& device,
                                                   const candidate_spec& c);

// What the candidate's sandbox must show of the host so that the worker, its Python and the
// libraries both load: the Python prefixes and search path, the folders of the shared libraries
// this process was loaded from (outside the system's), and the folders named in CUDA_HOME,
// LD_LIBRARY_PATH and PYTHONPATH. Found once per run (it starts the Python).
std::vector<std::string> sandbox_roots(const std::string& python);

// Whether the candidate's build folder holds a build made for this run's torch and GPU
// architectures (a stamp beside it, written by mark_compiled once a compile worker ended cleanly).
bool compiled_already(const run_state& run, const candidate_spec& c);
void mark_compiled(const run_state& run, const candidate_spec& c, const environment& env);

// Throws input_error, with what is missing, when this machine cannot isolate candidates
// (`headroom-sandbox --check`); asked once per process.
void require_sandbox(const run_state& run);

}  // namespace headroom::eval
