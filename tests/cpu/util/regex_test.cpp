// util::regex: user and rule patterns on names of any length, in linear time.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "headroom/util/error.hpp"
#include "headroom/util/regex.hpp"

namespace headroom::util {
namespace {

TEST(Regex, SearchesAnywhereInTheText) {
  const regex r("gemm", "pattern");
  EXPECT_TRUE(r.search("ampere_sgemm_128x64_nn"));
  EXPECT_FALSE(r.search("triton_poi_fused_add_0"));
  EXPECT_TRUE(regex("^ProfilerStep#\\d+$", "--step-marker").search("ProfilerStep#12"));
}

TEST(Regex, APatternThatBacktrackingEnginesRecurseOnMatchesA50KilobyteName) {
  std::string name(50000, 'a');
  name.insert(25000, "gemm");
  EXPECT_TRUE(regex(".*gemm.*", "kernel pattern").search(name));
  EXPECT_FALSE(regex("^(a|aa)*b$", "kernel pattern").search(std::string(50000, 'a')));
  EXPECT_TRUE(regex("^(.|\\n)*ZZZ$", "rule").search(std::string(30000, '7') + "ZZZ"));
}

TEST(Regex, ABadPatternNamesWhatItWasAndWhy) {
  try {
    regex("gemm([", "kernel pattern");
    FAIL() << "no error";
  } catch (const input_error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("kernel pattern 'gemm([' is not a valid regular expression"));
  }
}

}  // namespace
}  // namespace headroom::util
