// The CPU list sysfs gives for a GPU's PCI device (worker/cpu_binding.hpp): what the worker binds to
// when HEADROOM_EVAL_BIND_CPUS=gpu-local.
#include "worker/cpu_binding.hpp"

#include <gtest/gtest.h>

using headroom::eval::worker::parse_cpu_list;

TEST(CpuList, RangesAndSinglesInOrder) {
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11\n"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpu_list("5"), (std::vector<int>{5}));
  EXPECT_EQ(parse_cpu_list("16-31"), (std::vector<int>{16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31}));
}

// Anything malformed binds nothing rather than to a wrong set.
TEST(CpuList, MalformedGivesNothing) {
  for (const char* bad : {"", "\n", "a-b", "3-1", "1,", ",1", "1--2", "-1", "0-3,x", "1 2"})
    EXPECT_TRUE(parse_cpu_list(bad).empty()) << '"' << bad << '"';
}
