// The torch_fallback flag from the operators the worker's record reports, with the names Debian's
// torch 1.13 dispatched for the adversarial suite's problems and candidates (the C++ record: every
// operator a candidate dispatched, the reference's outermost kernels).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "eval/torch_fallback.hpp"

namespace headroom::eval {
namespace {

TEST(TorchFallback, CandidateCallingTheReferencesOperatorIsFlagged) {
  // torch.softmax dispatches softmax, which CompositeImplicitAutograd turns into _softmax.
  std::vector<std::string> reference = {"_softmax"};
  std::set<std::string> candidate = {"_softmax", "softmax"};
  EXPECT_EQ(torch_fallback(reference, candidate), "_softmax");
}

TEST(TorchFallback, OperatorReachedThroughADecompositionIsFlagged) {
  // The reference calls torch.matmul (its kernel: mm); a candidate calling torch.mm is the same work.
  std::vector<std::string> reference = {"mm"};
  EXPECT_EQ(torch_fallback(reference, {"mm", "resolve_conj"}), "mm");
}

TEST(TorchFallback, OwnKernelsAreNotFlagged) {
  // matmul_addmm_blocked: K-blocked in-place addmm, never mm.
  std::vector<std::string> reference = {"mm"};
  EXPECT_EQ(torch_fallback(reference, {"addmm_", "as_strided", "empty", "resolve_conj", "slice", "zero_", "zeros"}),
            std::nullopt);
  // relu_ext: a C++ extension that only allocates through torch::empty.
  EXPECT_EQ(torch_fallback(std::vector<std::string>{"relu"}, {"empty"}), std::nullopt);
  // softmax_python: amax, sub, exp, sum, div; no _softmax.
  EXPECT_EQ(torch_fallback(std::vector<std::string>{"_softmax"}, {"amax", "div", "exp", "sub", "sum"}), std::nullopt);
}

TEST(TorchFallback, EveryComputeOperatorOfTheReferenceIsNeeded) {
  // scale_shift: torch.relu(A) * s + k. A candidate without relu (clamp_min is relu's own kernel,
  // but not the operator the reference called) is not flagged; one with all three is.
  std::vector<std::string> reference = {"add", "mul", "relu"};
  EXPECT_EQ(torch_fallback(reference, {"add", "clamp_min", "mul"}), std::nullopt);
  EXPECT_EQ(torch_fallback(reference, {"_to_copy", "add", "clamp_min", "copy_", "mul", "relu", "to"}),
            "add, mul, relu");
}

TEST(TorchFallback, AllocationsAndViewsAreNotTheReferencesWork) {
  // A reference that only reshapes gives nothing to hand back; views and copies beside a compute
  // operator are not required of the candidate.
  EXPECT_EQ(torch_fallback(std::vector<std::string>{"view", "reshape"}, {"reshape", "view"}), std::nullopt);
  std::vector<std::string> reference = {"_embedding_bag_forward_only", "copy_", "empty"};
  EXPECT_EQ(torch_fallback(reference, {"_embedding_bag_forward_only", "embedding_bag"}), "_embedding_bag_forward_only");
  EXPECT_EQ(torch_fallback(std::vector<std::string>{}, {"relu"}), std::nullopt);
}

TEST(TorchFallback, ComputeOperatorNames) {
  EXPECT_TRUE(is_compute_operator("relu"));
  EXPECT_TRUE(is_compute_operator("_softmax"));
  EXPECT_TRUE(is_compute_operator("my_ext::relu"));
  for (const char* name : {"view", "copy_", "empty_strided", "resolve_conj", "zeros", "_to_copy", "t", ""})
    EXPECT_FALSE(is_compute_operator(name)) << name;
}

}  // namespace
}  // namespace headroom::eval
