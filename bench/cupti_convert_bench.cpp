// Per-record cost of turning CUPTI kernel records into event-stream records, on fabricated records
// (no GPU). 1M kernel records over 200 distinct names of ~120 characters, the length of real
// mangled CUTLASS names; the stream goes to /dev/null so only conversion and framing are timed.
// Usage: cupti_convert_bench [--benchmark_repetitions=N ...] (Google Benchmark's flags).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cupti_convert.hpp"
#include "headroom/trace/event_stream.hpp"

namespace {

using namespace headroom;

constexpr std::size_t records_per_run = 1'000'000;
constexpr std::size_t distinct_names = 200;
constexpr std::size_t ring_size = 16'384;  // prebuilt records cycled through: ~3.5 MB, not 216 MB

// CUTLASS-style mangled names: a long shared prefix and tile shapes that differ, ~120 characters.
std::vector<std::string> kernel_names() {
  std::vector<std::string> names;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> tile(0, 3), stages(2, 7), align(1, 16);
  const int tiles[] = {64, 128, 256, 32};
  for (std::size_t i = 0; i < distinct_names; ++i) {
    names.push_back(
        fmt::format("_ZN7cutlass6KernelINS_4gemm6kernel4GemmINS1_11threadblock12MmaPipelined"
                    "INS1_9GemmShapeILi{}ELi{}ELi{}EEELi{}ELi{}E{}EEEEvNT_6ParamsE",
                    tiles[tile(rng)], tiles[tile(rng)], tiles[tile(rng)] / 2, stages(rng), align(rng), i));
  }
  return names;
}

// copies_per_name > 1 puts each name's text at several addresses, as when the same kernel is
// registered by more than one module: the text is equal, the pointers are not.
void convert_kernels(benchmark::State& state) {
  const auto copies_per_name = static_cast<std::size_t>(state.range(0));
  const auto names = kernel_names();
  std::vector<std::string> texts;  // owns every address a record points at
  texts.reserve(names.size() * copies_per_name);
  for (std::size_t c = 0; c < copies_per_name; ++c) texts.insert(texts.end(), names.begin(), names.end());

  std::vector<cupti::kernel_record> ring(ring_size);
  std::mt19937 rng(11);
  std::uniform_int_distribution<std::size_t> pick(0, texts.size() - 1);
  std::uint64_t t = 1'700'000'000'000'000'000ULL;
  for (std::size_t i = 0; i < ring_size; ++i) {
    auto& k = ring[i];
    std::memset(&k, 0, sizeof k);
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.name = texts[pick(rng)].c_str();
    k.start = t;
    k.end = t += 4'000;
    t += 500;
    k.correlationId = static_cast<std::uint32_t>(i + 1);
    k.streamId = 7;
    k.gridX = 132;
    k.gridY = k.gridZ = 1;
    k.blockX = 256;
    k.blockY = k.blockZ = 1;
    k.registersPerThread = 128;
    k.dynamicSharedMemory = 98'304;
  }

  std::size_t name_length = 0;
  for (const auto& n : names) name_length += n.size();
  for (auto _ : state) {
    trace::event_stream_writer out("/dev/null", trace::event_stream_header{});
    cupti::activity_converter converter(out, nullptr);
    for (std::size_t i = 0; i < records_per_run; ++i) {
      converter.convert(reinterpret_cast<const CUpti_Activity&>(ring[i % ring_size]));
    }
    converter.finish();
    if (converter.counts().kernels != records_per_run || !out.ok()) state.SkipWithError("records were lost");
    benchmark::DoNotOptimize(out.bytes_written());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * records_per_run));
  // Seconds per record, printed with an SI prefix ("150n" is 150 ns).
  state.counters["per_record"] =
      benchmark::Counter(static_cast<double>(records_per_run),
                         benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["mean_name_chars"] = static_cast<double>(name_length) / static_cast<double>(names.size());
}

}  // namespace

BENCHMARK(convert_kernels)->ArgName("copies_per_name")->Arg(1)->Arg(4)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
