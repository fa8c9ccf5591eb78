// The evaluations table's columns (src/store/evaluation_columns.hpp), from which the store's table
// and a release's evaluation object are made: what a new column must satisfy before either works.
#include "evaluation_columns.hpp"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <utility>

#include "store/full_evaluation.hpp"

using namespace headroom;
using store::column_kind;
using store::evaluation_columns;

TEST(EvaluationColumns, NamesAndReleaseKeysAreDistinct) {
  std::set<std::string> names;
  std::set<std::pair<store::release_part, std::string>> keys;
  for (const auto& c : evaluation_columns()) {
    EXPECT_TRUE(names.insert(c.name).second) << "two columns named " << c.name;
    EXPECT_TRUE(keys.insert({c.part, c.release_key}).second) << "two columns under the release key " << c.release_key;
  }
}

// The round-trip tests (results_store_test.cpp, release_test.cpp) prove a column only where full_row
// gives it a value of its own: every column but the derived `verified` must differ there from a
// default evaluation's.
TEST(EvaluationColumns, FullRowSetsEveryColumn) {
  const record::evaluation full = test::full_row(), none;
  for (const auto& c : evaluation_columns()) {
    if (c.kind == column_kind::flag) continue;
    EXPECT_NE(c.get(full), c.get(none)) << c.name << ": set it in full_row (tests/cpu/store/full_evaluation.hpp)";
  }
}

// Each column puts back into an evaluation what it takes from one, groups included.
TEST(EvaluationColumns, EachColumnPutsBackWhatItTakes) {
  const record::evaluation full = test::full_row();
  record::evaluation copy;
  for (const auto& c : evaluation_columns()) c.set(copy, c.get(full), "test");
  test::expect_same(copy, full);
}

namespace {

// Another value of a column's kind than the one given: what a store that lost or mixed up the column
// would have handed back.
store::cell another(column_kind kind, const store::cell& c) {
  if (kind == column_kind::json) return std::string("[]");
  if (const auto* i = std::get_if<std::int64_t>(&c)) return *i + 1;
  if (const auto* d = std::get_if<double>(&c)) return *d * 2 + 1;
  // A text column of names (the verdict) takes another name; any other, any other text.
  if (const auto* t = std::get_if<std::string>(&c))
    return *t == "correct" ? std::string("incorrect") : *t + " (changed)";
  return 1.0;
}

}  // namespace

// The round-trip tests' comparison (test::expect_same) is kept by hand: it must notice a change to
// any column, or a new column would round-trip unchecked.
TEST(EvaluationColumns, TheRoundTripComparisonSeesEveryColumn) {
  const record::evaluation full = test::full_row();
  for (const auto& c : evaluation_columns()) {
    if (c.kind == column_kind::flag) continue;  // derived, never read back
    record::evaluation changed = full;
    c.set(changed, another(c.kind, c.get(full)), "test");
    ASSERT_NE(c.get(changed), c.get(full)) << c.name;
    testing::TestPartResultArray failures;
    {
      testing::ScopedFakeTestPartResultReporter intercept(
          testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
      test::expect_same(changed, full);
    }
    EXPECT_GT(failures.size(), 0) << c.name << ": compare it in expect_same (tests/cpu/store/full_evaluation.hpp)";
  }
}
