// The speed-of-light floor (include/headroom/eval/speed_of_light.hpp): a lower bound from the bytes
// every correct kernel moves, the informative roofline beside it, the floor the reference itself
// beats, the share of the gap closed, and the flag each gives a timed result.
#include "headroom/eval/speed_of_light.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace headroom::eval {
namespace {

// torch.diag(a) @ B on an H100 (3.35 TB/s; 990 TFLOP/s of dense bf16), a 4096-vector and a 4096 x
// 4096 float32 matrix: every correct kernel reads a and B and writes the 64 MiB product, 0.040 ms.
// The reference's 137 GFLOP take 0.139 ms at that rate; a row scaling does not do them (issue 43:
// 31.6x over the reference on an H100, refused when the floor counted the FLOPs). The FLOPs are
// the roofline, not the floor.
TEST(SpeedOfLight, TheFloorIsTheBytesEveryKernelMoves) {
  const std::uint64_t a = 4096 * 4, b = 4096 * 4096 * 4, out = 4096 * 4096 * 4;
  floor_bytes bytes = count_floor_bytes({a, b}, {true, true}, out, std::nullopt);
  EXPECT_EQ(bytes.read, a + b);
  EXPECT_EQ(bytes.write, out);
  EXPECT_FALSE(bytes.declared);
  EXPECT_FALSE(bytes.read_may_be_cached);
  const double bw = 3.35e12, mm = 9.9e14;
  auto floor = bandwidth_floor_ms(bytes, bw);
  ASSERT_TRUE(floor);
  EXPECT_NEAR(*floor, static_cast<double>(a + b + out) / bw * 1e3, 1e-12);
  EXPECT_NEAR(*floor, 0.0401, 1e-4);
  auto roofline = roofline_ms(static_cast<double>(a + b + out), 2.0 * 4096 * 4096 * 4096, bw, mm);
  ASSERT_TRUE(roofline);
  EXPECT_NEAR(*roofline, 2.0 * 4096 * 4096 * 4096 / mm * 1e3, 1e-12);
  EXPECT_NEAR(*roofline, 0.139, 1e-3);
  // A row scaling at 0.046 ms: under the roofline, over the floor; no flag.
  EXPECT_FALSE(judge_against_floor(floor, bytes.basis, "", 0.046, 31.6));
  EXPECT_FALSE(bandwidth_floor_ms(bytes, 0));  // no bandwidth, no floor
  // The FLOPs unknown (PyTorch before 2.1 has no FLOP counter): the roofline is the bytes'.
  EXPECT_NEAR(*roofline_ms(static_cast<double>(a + b + out), -1, bw, mm), *floor, 1e-12);
}

TEST(SpeedOfLight, AnInputTheOutputsDoNotDependOnIsNotCounted) {
  floor_bytes bytes = count_floor_bytes({4096, 1 << 20, 64}, {true, false, true}, 8192, std::nullopt);
  EXPECT_EQ(bytes.read, 4096u + 64u);
  EXPECT_EQ(bytes.write, 8192u);
  EXPECT_EQ(bytes.basis, "2 of 3 input(s) read (0.00416 MB), 0.00819 MB written");
}

// suites/dlrm-bench's 01_embedding_bag_zipf declares its compulsory bytes (each distinct row of the
// table, a parameter, read once; the ids, offsets and outputs): the read bytes are the declaration
// less the outputs, and they may sit in a cache between calls (a parameter is not evicted).
TEST(SpeedOfLight, ADeclaredFloorReplacesTheCount) {
  floor_bytes bytes = count_floor_bytes({8 << 20, 1 << 20}, {true, true}, 32 << 20, std::uint64_t{139} << 20);
  EXPECT_TRUE(bytes.declared);
  EXPECT_TRUE(bytes.read_may_be_cached);
  EXPECT_EQ(bytes.read, (std::uint64_t{139} << 20) - (32u << 20));
  EXPECT_EQ(bytes.write, 32u << 20);
  // A declaration below the outputs leaves nothing to read.
  EXPECT_EQ(count_floor_bytes({}, {}, 100, std::uint64_t{40}).read, 0u);
}

TEST(SpeedOfLight, TheCpuFloorIsAShareOfTheLongerTransfer) {
  EXPECT_DOUBLE_EQ(transfer_floor_ms(0.8, 0.3), host_floor_share * 0.8);
  EXPECT_DOUBLE_EQ(transfer_floor_ms(0.2, 0.5), host_floor_share * 0.5);
  EXPECT_DOUBLE_EQ(transfer_floor_ms(0, 0), 0);
}

TEST(SpeedOfLight, FlagsAScoreBelowTheFloorWhateverTheSpeedup) {
  auto f = judge_against_floor(0.5, "2 of 2 input(s) read", "", 0.4, 1.2);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->code, "below_speed_of_light");
  EXPECT_NE(f->detail.find("0.4 ms is below the speed-of-light floor of 0.5 ms (2 of 2 input(s) read)"),
            std::string::npos)
      << f->detail;
  // Over the floor, any speedup stands: 1400x of a row scaling over a dense matmul on the CPU.
  EXPECT_FALSE(judge_against_floor(0.5, "", "", 0.6, 1400.0));
}

TEST(SpeedOfLight, OverTenTimesIsExcessiveOnlyWithoutAFloor) {
  auto f = judge_against_floor(std::nullopt, "", "the reference (eager) ran in 0.1 ms, below the floor", 0.01, 12.0);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->code, "excessive_speedup");
  EXPECT_NE(f->detail.find("12.0x over eager PyTorch"), std::string::npos) << f->detail;
  EXPECT_NE(f->detail.find("below the floor"), std::string::npos) << f->detail;
  EXPECT_FALSE(judge_against_floor(std::nullopt, "", "", 0.01, 9.5));
  EXPECT_FALSE(judge_against_floor(std::nullopt, "", "", 0.01, std::nullopt));
}

// A gather from a table passed as an input reads a few rows; the floor counts the whole table, and
// the reference, reading only its rows, runs below it: the floor is not one for this problem.
TEST(SpeedOfLight, AFloorTheReferenceBeatsIsContradicted) {
  EXPECT_EQ(floor_contradiction(1.0, 2.0, 1.5), "");
  EXPECT_NE(floor_contradiction(1.0, 0.2, std::nullopt).find("the reference (eager) ran in 0.2 ms, below the floor"),
            std::string::npos);
  EXPECT_NE(floor_contradiction(1.0, 2.0, 0.9).find("(compiled)"), std::string::npos);
  EXPECT_EQ(floor_contradiction(1.0, std::nullopt, std::nullopt), "");
}

// SOL-ExecBench's score against eager: eager at 10 ms, the floor at 2 ms.
TEST(SpeedOfLight, TheShareOfTheGapClosed) {
  EXPECT_DOUBLE_EQ(*gap_closed(10, 1.0, 2), 0.0);  // eager's own time
  EXPECT_DOUBLE_EQ(*gap_closed(10, 2.0, 2), 5.0 / 8);  // 5 ms: 5 of the 8 ms gap
  EXPECT_DOUBLE_EQ(*gap_closed(10, 5.0, 2), 1.0);  // at the floor
  EXPECT_DOUBLE_EQ(*gap_closed(10, 0.5, 2), -10.0 / 8);  // twice eager's time
  EXPECT_FALSE(gap_closed(2, 3.0, 2));  // the reference at the floor: no gap to close
  EXPECT_FALSE(gap_closed(10, 0, 2));
}

}  // namespace
}  // namespace headroom::eval
