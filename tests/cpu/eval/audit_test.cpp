// The discrimination audit over prepared reference data: which fakes our check rejects, and a fake
// that happens to be the right answer (the mean of a one-element loss) is not counted against it.
#include <gtest/gtest.h>

#include "eval/audit_tally.hpp"

namespace headroom::eval {
namespace {

trial_data trial(std::vector<double> output, std::vector<std::int64_t> shape) {
  trial_data t;
  t.inputs.push_back(make_tensor(dtype::f32, {4}, {0.5, -1.0, 2.0, 3.0}));
  t.outputs.push_back(make_tensor(dtype::f32, std::move(shape), output));
  return t;
}

const audit_fake& fake(const audit_result& r, const std::string& name) {
  for (const audit_fake& f : r.fakes)
    if (f.name == name) return f;
  throw std::runtime_error("no fake " + name);
}

TEST(Audit, RejectsEveryFakeOfAnOrdinaryOutput) {
  reference_data ref;
  ref.trials = {trial({1.0, -2.0, 3.5, 0.25}, {4}), trial({-0.5, 4.0, 1.5, 2.0}, {4})};
  audit_result r = audit_reference("p", ref);
  ASSERT_EQ(r.fakes.size(), 4u);
  for (const audit_fake& f : r.fakes) {
    EXPECT_TRUE(f.applicable) << f.name;
    EXPECT_FALSE(f.passes_ours) << f.name;
    EXPECT_FALSE(f.equals_reference) << f.name;
  }
  EXPECT_TRUE(r.discriminating());
}

TEST(Audit, AMeanThatIsTheAnswerIsNotAFake) {
  // A loss: one element. Its mean is itself; zeros and the constant 1 stay fakes.
  reference_data ref;
  ref.trials = {trial({0.731}, {}), trial({0.694}, {})};
  audit_result r = audit_reference("loss", ref);
  const audit_fake& mean = fake(r, "mean");
  EXPECT_FALSE(mean.applicable);
  EXPECT_TRUE(mean.equals_reference);
  EXPECT_FALSE(mean.passes_ours);
  EXPECT_FALSE(mean.passes_legacy_1e2);
  EXPECT_TRUE(fake(r, "zeros").applicable);
  EXPECT_FALSE(fake(r, "zeros").passes_ours);
  EXPECT_TRUE(fake(r, "constant").applicable);
  EXPECT_FALSE(fake(r, "constant").passes_ours);
  EXPECT_TRUE(r.discriminating());
}

TEST(Audit, AFakeEqualOnOneTrialOnlyIsStillAFake) {
  // ReLU: on inputs in [0, 1) the output is the input, on inputs shifted below zero it is all zeros.
  // Passthrough and zeros each equal one trial's answer and fail the other: both are fakes ours rejects.
  reference_data ref;
  trial_data pass_through;
  pass_through.inputs.push_back(make_tensor(dtype::f32, {4}, {0.5, 0.25, 0.75, 0.125}));
  pass_through.outputs.push_back(make_tensor(dtype::f32, {4}, {0.5, 0.25, 0.75, 0.125}));
  trial_data all_zero;
  all_zero.inputs.push_back(make_tensor(dtype::f32, {4}, {-1.5, -1.25, -1.75, -1.125}));
  all_zero.outputs.push_back(make_tensor(dtype::f32, {4}, {0, 0, 0, 0}));
  ref.trials.push_back(pass_through);
  ref.trials.push_back(all_zero);
  audit_result r = audit_reference("relu", ref);
  for (const char* name : {"zeros", "passthrough"}) {
    EXPECT_TRUE(fake(r, name).applicable) << name;
    EXPECT_FALSE(fake(r, name).equals_reference) << name;
    EXPECT_FALSE(fake(r, name).passes_ours) << name;
  }
  // The legacy check sees trial 0 only, where passthrough is the answer.
  EXPECT_TRUE(fake(r, "passthrough").passes_legacy_1e2);
  EXPECT_TRUE(fake(r, "passthrough").passes_legacy_1e4);
  EXPECT_FALSE(fake(r, "zeros").passes_legacy_1e2);
  EXPECT_TRUE(r.discriminating());
}

TEST(Audit, ZerosPassingTheLegacyCheckIsReported) {
  // Outputs near zero: allclose with atol 1e-2 takes zeros; ours does not.
  reference_data ref;
  ref.trials = {trial({1e-3, -2e-3, 4e-3, 5e-4}, {4})};
  audit_result r = audit_reference("tiny", ref);
  const audit_fake& zeros = fake(r, "zeros");
  EXPECT_TRUE(zeros.applicable);
  EXPECT_FALSE(zeros.passes_ours);
  EXPECT_TRUE(zeros.passes_legacy_1e2);
  EXPECT_FALSE(zeros.passes_legacy_1e4);
}

TEST(Audit, AnOutputThatDoesNotDependOnTheInputsIsDegenerate) {
  // A softmax over a singleton axis: ones on every trial, whatever the inputs (a KernelBench level-2
  // pattern). The constant fake equals the answer, so it is not counted as a fake, and the problem
  // must not read as discriminating.
  reference_data ref;
  ref.trials = {trial({1, 1, 1, 1}, {4, 1}), trial({1, 1, 1, 1}, {4, 1}), trial({1, 1, 1, 1}, {4, 1})};
  ref.trials[1].inputs[0] = make_tensor(dtype::f32, {4}, {9.0, -7.0, 0.0, 1e3});
  audit_result r = audit_reference("singleton_softmax", ref);
  EXPECT_TRUE(fake(r, "constant").equals_reference);
  EXPECT_FALSE(r.discriminating());
  EXPECT_NE(r.degenerate.find("same on all 3 trials"), std::string::npos) << r.degenerate;
  EXPECT_NE(audit_json(r).find(R"("degenerate":"the reference's output is the same)"), std::string::npos);
}

// ReLU of inputs that happen to be positive on every trial run: the input itself is the answer.
reference_data relu_of_positive_inputs(int trials) {
  reference_data ref;
  for (int i = 0; i < trials; ++i) {
    trial_data t;
    std::vector<double> x{0.25 + i, 0.5, 1.0 + i, 0.125};
    t.inputs.push_back(make_tensor(dtype::f32, {4}, x));
    t.outputs.push_back(make_tensor(dtype::f32, {4}, x));
    ref.trials.push_back(t);
  }
  return ref;
}

TEST(Audit, ATrivialFakeDecidesOnlyOnceEveryInputDistributionIsDrawn) {
  // Two trials (the problem's own draw and a shifted one) can both be positive for ReLU, which a
  // normal draw would not: the passthrough's PASS stays in the table, the problem is not called
  // degenerate.
  audit_result two = audit_reference("relu", relu_of_positive_inputs(2));
  EXPECT_TRUE(fake(two, "passthrough").equals_reference);
  EXPECT_TRUE(two.degenerate.empty()) << two.degenerate;
  // Every distribution drawn and the input still the answer: nothing can tell a kernel from it.
  audit_result four = audit_reference("relu", relu_of_positive_inputs(4));
  EXPECT_NE(four.degenerate.find("'passthrough' equals the reference's output on all 4 trials"), std::string::npos)
      << four.degenerate;
  EXPECT_FALSE(four.discriminating());
}

TEST(Audit, AnOrdinaryProblemIsNotDegenerate) {
  reference_data ref;
  ref.trials = {trial({1.0, -2.0, 3.5, 0.25}, {4}), trial({-0.5, 4.0, 1.5, 2.0}, {4})};
  audit_result r = audit_reference("p", ref);
  EXPECT_TRUE(r.degenerate.empty()) << r.degenerate;
  EXPECT_NE(audit_json(r).find(R"("degenerate":null)"), std::string::npos);
  // A loss of one element equals its own mean; that is not a trivial output.
  reference_data loss;
  loss.trials = {trial({0.731}, {}), trial({0.694}, {})};
  EXPECT_TRUE(audit_reference("loss", loss).degenerate.empty());
}

TEST(Audit, AnErrorAtTheReferenceIsReportedNotAudited) {
  reference_data ref;
  ref.error = "RuntimeError: boom";
  audit_result r = audit_reference("broken", ref);
  EXPECT_EQ(r.error, "RuntimeError: boom");
  EXPECT_TRUE(r.fakes.empty());
}

}  // namespace
}  // namespace headroom::eval
