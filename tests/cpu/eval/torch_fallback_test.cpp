// The torch_fallback flag from the operators the worker's record reports, each with the elements its
// tensor operands read, as Debian's torch 1.13 dispatched them for the adversarial and honest suites'
// problems and candidates (the C++ record: every operator a candidate dispatched, the reference's
// outermost kernels).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "eval/torch_fallback.hpp"

namespace headroom::eval {
namespace {

TEST(TorchFallback, CandidateCallingTheReferencesOperatorIsFlagged) {
  // softmax_wide: torch.softmax dispatches softmax, which CompositeImplicitAutograd turns into
  // _softmax, on the same 64 x 8192 input.
  std::vector<std::string> reference = {"_softmax(524288)"};
  std::set<std::string> candidate = {"_softmax(524288)", "softmax(524288)"};
  EXPECT_EQ(torch_fallback(reference, candidate), "_softmax(524288)");
}

TEST(TorchFallback, OperatorReachedThroughADecompositionIsFlagged) {
  // The reference calls torch.matmul (its kernel: mm); a candidate calling torch.mm on the same
  // operands is the same work.
  std::vector<std::string> reference = {"mm(16777216,16777216)"};
  EXPECT_EQ(torch_fallback(reference, {"mm(16777216,16777216)", "resolve_conj(16777216)"}), "mm(16777216,16777216)");
}

TEST(TorchFallback, OwnKernelsAreNotFlagged) {
  // matmul_addmm_blocked: K-blocked in-place addmm, never mm.
  std::vector<std::string> reference = {"mm(16777216,16777216)"};
  EXPECT_EQ(torch_fallback(reference, {"addmm_(4194304,4194304,4194304)", "as_strided(16777216)", "empty()",
                                       "resolve_conj(4194304)", "slice(16777216)", "zero_(16777216)", "zeros()"}),
            std::nullopt);
  // relu_ext: a C++ extension that only allocates through torch::empty.
  EXPECT_EQ(torch_fallback(std::vector<std::string>{"relu(2097152)"}, {"empty()"}), std::nullopt);
  // softmax_python: amax, sub, exp, sum, div; no _softmax.
  EXPECT_EQ(torch_fallback(std::vector<std::string>{"_softmax(524288)"},
                           {"amax(524288)", "div(524288,64)", "exp(524288)", "sub(524288,64)", "sum(524288)"}),
            std::nullopt);
}

TEST(TorchFallback, EveryComputeOperatorOfTheReferenceIsNeeded) {
  // scale_shift: torch.relu(A) * s + k. A candidate without relu (clamp_min is relu's own kernel,
  // but not the operator the reference called) is not flagged; one with all three is.
  std::vector<std::string> reference = {"add(4096,1)", "mul(4096,1)", "relu(4096)"};
  EXPECT_EQ(torch_fallback(reference, {"add(4096,1)", "clamp_min(4096)", "mul(4096,1)"}), std::nullopt);
  EXPECT_EQ(torch_fallback(reference, {"_to_copy(4096)", "add(4096,1)", "clamp_min(4096)", "copy_(4096,4096)",
                                       "mul(4096,1)", "relu(4096)", "to(4096)"}),
            "add(4096,1), mul(4096,1), relu(4096)");
}

TEST(TorchFallback, SameOperatorsOnOtherOperandsAreTheCandidatesOwnWork) {
  // outer_sum_factor: the reference multiplies 32 x 384 x 1 by 32 x 1 x 384 (an 18 MiB outer
  // product) and sums it; the candidate sums each 32 x 384 row and multiplies two 32-vectors.
  std::vector<std::string> outer_sum = {"mul(12288,12288)", "sum(4718592)"};
  EXPECT_EQ(torch_fallback(outer_sum, {"mul(32,32)", "sum(12288)"}), std::nullopt);
  // lowrank_reassociate: the reference forms U V (1024 x 32 times 32 x 1024) and multiplies the
  // 256 x 1024 batch by it; the candidate multiplies by U, then by V.
  std::vector<std::string> lowrank = {"mm(32768,32768)", "mm(262144,1048576)"};
  EXPECT_EQ(torch_fallback(lowrank, {"mm(262144,32768)", "mm(8192,32768)"}), std::nullopt);
  // Half of it is not enough: the reference's weight formed, then applied another way.
  EXPECT_EQ(torch_fallback(lowrank, {"mm(32768,32768)", "mm(8192,32768)"}), std::nullopt);
}

TEST(TorchFallback, ABroadcastOperandIsTheSameOperand) {
  // l2norm_functional: F.normalize divides by the norm expanded to the input's shape (a zero
  // stride: one column read), where the reference's division broadcasts the 512 x 1 norm; the
  // norm's kernel is the reference's own, and the eps clamp is beside it.
  std::vector<std::string> reference = {"div(2097152,512)", "norm(2097152)"};
  std::set<std::string> normalize = {"clamp_min(512)", "div(2097152,512)", "expand(512)", "norm(2097152)"};
  EXPECT_EQ(torch_fallback(reference, normalize), "div(2097152,512), norm(2097152)");
  // Divided by the norm materialised at the input's shape instead, it reads 2097152 divisors.
  EXPECT_EQ(torch_fallback(reference, {"div(2097152,2097152)", "norm(2097152)", "repeat(512)"}), std::nullopt);
}

TEST(TorchFallback, AllocationsAndViewsAreNotTheReferencesWork) {
  // A reference that only reshapes gives nothing to hand back; views and copies beside a compute
  // operator are not required of the candidate.
  EXPECT_EQ(torch_fallback(std::vector<std::string>{"view(64)", "reshape(64)"}, {"reshape(64)", "view(64)"}),
            std::nullopt);
  std::vector<std::string> reference = {"_embedding_bag_forward_only(1024,64,16)", "copy_(64,64)", "empty()"};
  EXPECT_EQ(torch_fallback(reference, {"_embedding_bag_forward_only(1024,64,16)", "embedding_bag(1024,64,16)"}),
            "_embedding_bag_forward_only(1024,64,16)");
  EXPECT_EQ(torch_fallback(std::vector<std::string>{}, {"relu(64)"}), std::nullopt);
}

TEST(TorchFallback, ComputeOperatorNames) {
  EXPECT_TRUE(is_compute_operator("relu"));
  EXPECT_TRUE(is_compute_operator("relu(2097152)"));
  EXPECT_TRUE(is_compute_operator("_softmax"));
  EXPECT_TRUE(is_compute_operator("my_ext::relu"));
  for (const char* name : {"view", "copy_", "empty_strided", "resolve_conj", "zeros", "_to_copy", "t", "", "view(64)",
                           "copy_(64,64)", "empty()", "(12)"})
    EXPECT_FALSE(is_compute_operator(name)) << name;
}

}  // namespace
}  // namespace headroom::eval
