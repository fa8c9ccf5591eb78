// A release's evaluation object (docs/releases.md): the bytes written for evaluations of every
// shape, pinned by a golden file, and read back into the same evaluation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "eval/results_rows.hpp"
#include "golden.hpp"
#include "headroom/store/release.hpp"
#include "headroom/util/error.hpp"
#include "store/full_evaluation.hpp"

using namespace headroom;
using record::verdict;
using store::evaluation_from_json;
using store::evaluation_json;
using test::expect_same;
using test::row;

namespace {

// Every shape an evaluation's object takes: every field set; no timing, speedup or reason; a
// timing present with no samples; not-a-number and infinite figures (KernelBench imports).
std::vector<record::evaluation> shapes() {
  auto bare = row("b", "bare", verdict::compile_error);
  bare.log = "nvcc fatal: unsupported gpu architecture";
  auto partial = row("c", "partial", verdict::correct, 0.75);
  partial.candidate_timing->samples = 0;
  auto imported = row("kernelbench/lax", "level_1_problem_1_sample_0", verdict::correct, 5.0);
  imported.checker = 0;
  imported.candidate_timing->median_ms = imported.candidate_timing->rel_spread = std::nan("");
  imported.eager_timing.reset();
  imported.errors.max_abs_error = std::numeric_limits<double>::infinity();
  imported.errors.normwise_error = -std::numeric_limits<double>::infinity();
  imported.duration_s = std::nan("");
  return {test::full_row(), bare, partial, imported};
}

// The text of an evaluation's object with `key` and its value taken out.
std::string without_key(std::string json, const std::string& key) {
  const std::size_t at = json.find("\"" + key + "\": ");
  const std::size_t end = json.find(", \"", at);
  json.erase(at, end + 2 - at);
  return json;
}

}  // namespace

// The release format is a contract: a change to these bytes must bump release_schema_version.
// HEADROOM_UPDATE_GOLDEN=1 rewrites the golden file.
TEST(Release, EvaluationObjectsMatchGolden) {
  std::string text;
  for (const auto& e : shapes()) text += evaluation_json(e) + "\n";
  test::expect_golden(text, std::string(HEADROOM_SOURCE_DIR) + "/tests/cpu/store/golden/release_evaluations.jsonl");
}

TEST(Release, EveryEvaluationFieldRoundTrips) {
  for (const auto& e : shapes()) {
    SCOPED_TRACE(e.candidate_path);
    expect_same(evaluation_from_json(evaluation_json(e), "release.jsonl:2"), e);
  }
}

// Release schema version 1 had no roofline and no share of the speed-of-light gap closed.
TEST(Release, AVersionOneEvaluationReadsWithoutTheRoofline) {
  auto e = test::full_row();
  const std::string v1 = without_key(without_key(evaluation_json(e), "roofline_ms"), "sol_gap_closed");
  ASSERT_EQ(v1.find("roofline_ms"), std::string::npos) << v1;
  e.roofline_ms.reset();
  e.sol_gap_closed.reset();
  expect_same(evaluation_from_json(v1, "old.jsonl:4"), e);
}

TEST(Release, AnObjectOutsideTheSchemaIsRefusedNamingItsLine) {
  const std::string good = evaluation_json(test::full_row());
  for (const std::string& bad : {without_key(good, "speedup"), without_key(good, "started_at"),
                                 std::string(good).replace(good.find("\"correct\""), 9, "\"great\""),
                                 std::string(good).replace(good.find("\"checker\": 3"), 12, "\"checker\": \"3\"")}) {
    try {
      evaluation_from_json(bad, "release.jsonl:7");
      FAIL() << "read: " << bad;
    } catch (const input_error& e) {
      EXPECT_NE(std::string(e.what()).find("release.jsonl:7"), std::string::npos) << e.what();
    }
  }
}
