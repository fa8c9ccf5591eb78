#pragma once
// The speed-of-light floor of a problem on a device (docs/eval.md, "The speed-of-light floor"): a
// lower bound on the time of every correct kernel, from the bytes every correct kernel must move;
// a candidate timed below it is flagged `below_speed_of_light`. Beside it, the informative roofline
// (the reference's FLOPs counted in too) and the share of the gap to the floor a candidate closes.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headroom::eval {

// The bytes every correct kernel of a problem moves: the inputs its outputs depend on, read once,
// and its outputs, written once; or what the problem declares (then `read` is the declaration less
// the outputs: a declaration counts the outputs too).
struct floor_bytes {
  std::uint64_t read = 0;
  std::uint64_t write = 0;
  bool declared = false;
  // Read bytes that may stay in a cache between timed calls (a declaration's: it may count a
  // module's parameters); a timed call's inputs never do (the CPU evicts them before each call).
  bool read_may_be_cached = false;
  std::string basis;  // how they were counted, in words
};

// floor_bytes from the inputs' sizes and whether the outputs depend on each, the outputs' size and
// a declaration (bytes, when the problem declares a floor).
floor_bytes count_floor_bytes(const std::vector<std::uint64_t>& input_bytes, const std::vector<bool>& depends,
                              std::uint64_t output_bytes, std::optional<std::uint64_t> declared);

// A GPU's floor in ms: the bytes over the measured copy bandwidth (bytes read and written per
// second: read and written bytes share the device's memory); none without a bandwidth.
std::optional<double> bandwidth_floor_ms(const floor_bytes& b, double bandwidth_bytes_per_s);

// The CPU's floor in ms: host_floor_share of the longer of the least times this host took to read
// the bytes and to write them in a timed call's conditions (src/worker/host_transfers.hpp). The
// share allows for a kernel that moves bytes faster than the measurement's plain loops (software
// prefetch, non-temporal stores, more threads than the worker's copy threads) and for the host's
// speed between the measurement and the candidate's timing (docs/eval.md says what was measured).
inline constexpr double host_floor_share = 0.5;
double transfer_floor_ms(double read_ms, double write_ms);

// The informative roofline in ms: the bytes over the copy bandwidth or the reference's FLOPs over
// the dense matmul rate, whichever is longer (the FLOPs are the reference's work, not a bound on the
// problem's: a kernel that does less, a row scaling for a product with a diagonal matrix, runs below
// it). `flops` < 0 means unknown; no bandwidth, none.
std::optional<double> roofline_ms(double bytes, double flops, double bandwidth_bytes_per_s, double matmul_flops_per_s);

// Why a floor does not hold for a problem, or empty: the reference itself, timed in the same
// conditions, ran below it (its outputs do not need all of an input the floor counts: a gather from
// a table passed as an input, a slice of a product). `baseline_ms`: the eager and compiled scores.
std::string floor_contradiction(double floor_ms, std::optional<double> eager_ms, std::optional<double> compiled_ms);

// The share of the speed-of-light gap a candidate closes (SOL-ExecBench's SOL score, measured against
// eager PyTorch): (T_eager - T_candidate) / (T_eager - T_floor), with T_candidate = T_eager / speedup.
// 0 at the reference's time, 1 at the floor, negative when slower than the reference; none when
// the reference is at or below the floor.
std::optional<double> gap_closed(double eager_ms, double speedup, double floor_ms);

// The floor's flag on a timed result, or none: `below_speed_of_light` when the score is under the
// floor; with no floor (`no_floor` says why), `excessive_speedup` over 10x.
struct floor_flag {
  std::string code;
  std::string detail;
};
std::optional<floor_flag> judge_against_floor(std::optional<double> floor_ms, std::string_view floor_basis,
                                              std::string_view no_floor, double score_ms,
                                              std::optional<double> speedup);

}  // namespace headroom::eval
