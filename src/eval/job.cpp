// The job model (job.hpp).
#include "headroom/eval/job.hpp"

namespace headroom::eval {

using record::evaluation;

evaluation evaluation_of(const candidate_spec& candidate, const problem_spec& problem, int checker) {
  evaluation e;
  e.candidate_hash = candidate.hash;
  e.source = candidate.source;
  e.candidate_path = candidate.path.string();
  e.problem = problem.id;
  e.problem_hash = problem.hash;
  e.checker = checker;
  return e;
}

}  // namespace headroom::eval
