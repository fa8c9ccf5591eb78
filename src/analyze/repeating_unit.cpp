#include <algorithm>
#include <vector>

#include "headroom/analyze/window.hpp"

namespace headroom::analyze {
namespace {

struct candidate {
  trace::string_id anchor;
  std::size_t period;
  std::size_t run_first;  // index into the anchor's occurrences where its longest regular run starts
  std::size_t run_gaps;  // gaps of exactly `period` in that run
  std::vector<std::size_t> const* positions;
};

// A name counts as an anchor candidate when most of its gaps agree: warm-up and the edges of the
// trace may break a few, a per-layer name breaks one per step (and loses to the step's period).
constexpr double min_gap_consistency = 0.6;
// The sequence must follow the period almost everywhere inside the chosen units.
constexpr double min_match = 0.9;
// The units must cover a fair part of the sequence, or an accident of warm-up could win.
constexpr double min_coverage = 0.25;
constexpr int max_verifications = 64;

}  // namespace

std::optional<repeating_unit> find_repeating_unit(std::span<const trace::string_id> seq, int warmup_units) {
  const std::size_t n = seq.size();
  if (n < 6) return std::nullopt;

  // Occurrences per name, grouped by a counting sort on the (dense) string ids.
  trace::string_id max_id = *std::max_element(seq.begin(), seq.end());
  std::vector<std::size_t> counts(static_cast<std::size_t>(max_id) + 1, 0);
  for (auto id : seq) ++counts[id];
  std::vector<std::vector<std::size_t>> positions(counts.size());
  for (std::size_t id = 0; id < counts.size(); ++id) {
    if (counts[id] >= 3) positions[id].reserve(counts[id]);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (counts[seq[i]] >= 3) positions[seq[i]].push_back(i);
  }

  std::vector<candidate> candidates;
  std::vector<std::size_t> gaps;
  for (std::size_t id = 0; id < positions.size(); ++id) {
    const auto& pos = positions[id];
    if (pos.size() < 3) continue;
    gaps.clear();
    for (std::size_t k = 1; k < pos.size(); ++k) gaps.push_back(pos[k] - pos[k - 1]);
    std::vector<std::size_t> sorted = gaps;
    std::sort(sorted.begin(), sorted.end());
    std::size_t mode = sorted[0], best = 0;
    for (std::size_t i = 0; i < sorted.size();) {
      std::size_t j = i;
      while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
      if (j - i > best || (j - i == best && sorted[i] > mode)) best = j - i, mode = sorted[i];
      i = j;
    }
    if (static_cast<double>(best) < min_gap_consistency * static_cast<double>(gaps.size())) continue;
    // Longest run of consecutive gaps equal to the mode.
    std::size_t run_first = 0, run_len = 0;
    for (std::size_t k = 0; k < gaps.size();) {
      if (gaps[k] != mode) {
        ++k;
        continue;
      }
      std::size_t j = k;
      while (j < gaps.size() && gaps[j] == mode) ++j;
      if (j - k > run_len) run_len = j - k, run_first = k;
      k = j;
    }
    if (run_len < 2) continue;
    if (static_cast<double>(run_len * mode) < min_coverage * static_cast<double>(n)) continue;
    candidates.push_back({static_cast<trace::string_id>(id), mode, run_first, run_len, &pos});
  }
  // The step is the largest consistent period; a per-layer name repeats at a divisor of it.
  std::sort(candidates.begin(), candidates.end(), [](const candidate& a, const candidate& b) {
    return a.period != b.period ? a.period > b.period : a.run_gaps > b.run_gaps;
  });

  int tries = 0;
  std::size_t last_period = 0;
  for (const auto& c : candidates) {
    if (c.period == last_period) continue;  // one verification per period
    last_period = c.period;
    if (++tries > max_verifications) break;
    const auto& pos = *c.positions;
    const std::size_t begin = pos[c.run_first];
    const std::size_t end = pos[c.run_first + c.run_gaps];  // start of the first unit after the run
    // Each unit against the next one: i and i + period both inside the run.
    std::size_t same = 0;
    for (std::size_t i = begin; i + c.period < end; ++i) same += seq[i] == seq[i + c.period];
    const double match = static_cast<double>(same) / static_cast<double>(end - begin - c.period);
    if (match < min_match) continue;
    repeating_unit u;
    u.anchor = c.anchor;
    u.period = c.period;
    u.match = match;
    int units = static_cast<int>(c.run_gaps);
    const int skip = units - warmup_units >= 2 ? std::max(warmup_units, 0) : 0;
    u.skipped = skip;
    u.units = units - skip;
    u.first = pos[c.run_first + static_cast<std::size_t>(skip)];
    return u;
  }
  return std::nullopt;
}

}  // namespace headroom::analyze
