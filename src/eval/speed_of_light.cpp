#include "headroom/eval/speed_of_light.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace headroom::eval {

namespace {

std::string megabytes(std::uint64_t bytes) { return fmt::format("{:.3g} MB", static_cast<double>(bytes) / 1e6); }

}  // namespace

floor_bytes count_floor_bytes(const std::vector<std::uint64_t>& input_bytes, const std::vector<bool>& depends,
                              std::uint64_t output_bytes, std::optional<std::uint64_t> declared) {
  floor_bytes b;
  b.write = output_bytes;
  if (declared) {
    b.declared = true;
    b.read = *declared > output_bytes ? *declared - output_bytes : 0;
    b.read_may_be_cached = true;
    b.basis = fmt::format("declared by the problem: {} ({} read, {} written)", megabytes(*declared), megabytes(b.read),
                          megabytes(b.write));
    return b;
  }
  std::size_t counted = 0;
  const std::size_t inputs = input_bytes.size();
  for (std::size_t i = 0; i < inputs; ++i)
    if (i < depends.size() && depends[i]) {
      b.read += input_bytes[i];
      ++counted;
    }
  b.basis =
      fmt::format("{} of {} input(s) read ({}), {} written", counted, inputs, megabytes(b.read), megabytes(b.write));
  return b;
}

std::optional<double> bandwidth_floor_ms(const floor_bytes& b, double bandwidth) {
  if (bandwidth <= 0) return std::nullopt;
  return static_cast<double>(b.read + b.write) / bandwidth * 1e3;
}

double transfer_floor_ms(double read_ms, double write_ms) { return host_floor_share * std::max(read_ms, write_ms); }

std::optional<double> roofline_ms(double bytes, double flops, double bandwidth, double matmul) {
  if (bandwidth <= 0) return std::nullopt;
  double seconds = bytes / bandwidth;
  if (flops > 0 && matmul > 0) seconds = std::max(seconds, flops / matmul);
  return seconds * 1e3;
}

std::string floor_contradiction(double floor_ms, std::optional<double> eager_ms, std::optional<double> compiled_ms) {
  for (auto [name, ms] : {std::pair{"eager", eager_ms}, std::pair{"compiled", compiled_ms}})
    if (ms && *ms > 0 && *ms < floor_ms)
      return fmt::format(
          "the reference ({}) ran in {:.4g} ms, below the floor of {:.4g} ms: it does not read all "
          "of what the floor counts",
          name, *ms, floor_ms);
  return {};
}

std::optional<double> gap_closed(double eager_ms, double speedup, double floor_ms) {
  if (!(eager_ms > floor_ms) || !(speedup > 0) || floor_ms < 0) return std::nullopt;
  return (eager_ms - eager_ms / speedup) / (eager_ms - floor_ms);
}

std::optional<floor_flag> judge_against_floor(std::optional<double> floor_ms, std::string_view floor_basis,
                                              std::string_view no_floor, double score_ms,
                                              std::optional<double> speedup) {
  if (floor_ms) {
    if (score_ms < *floor_ms)
      return floor_flag{"below_speed_of_light",
                        fmt::format("{:.4g} ms is below the speed-of-light floor of {:.4g} ms ({})", score_ms,
                                    *floor_ms, floor_basis)};
    return std::nullopt;
  }
  if (speedup && *speedup > 10)
    return floor_flag{"excessive_speedup",
                      fmt::format("{:.1f}x over eager PyTorch, and no speed-of-light floor to check it against ({})",
                                  *speedup, no_floor.empty() ? "none measured" : no_floor)};
  return std::nullopt;
}

}  // namespace headroom::eval
