// Trace replay on a fabricated 1M-kernel trace (no GPU): building the dependency graph, one replay,
// and, measured in the same run as the baseline, Amdahl's projection over the same trace (what
// `headroom project` costs without --replay).
//
// The trace: one host thread launching 1,000 kernels per step 4 us apart (call 3 us), durations 2 to
// 30 us, every tenth kernel on a side stream that waits for the main one (event record + stream
// wait), a CUDA graph launch of 8 kernels every 100 kernels, and a cudaStreamSynchronize ending
// each step, with ProfilerStep#N markers. Kernel times follow the dependencies, as a real trace's do.
// Usage: replay_bench [--kernels N] [Google Benchmark's flags]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "headroom/classify/classifier.hpp"
#include "headroom/project/replay.hpp"
#include "headroom/project/replay_graph.hpp"
#include "headroom/project/what_if.hpp"

namespace {

using namespace headroom;
using trace::time_ns;

std::size_t kernel_count = 1'000'000;

struct fabricated {
  trace::trace t;
  std::uint64_t correlation = 0;
  time_ns host = 1'000'000;  // the host thread's clock
  time_ns stream_end[2] = {0, 0};

  std::uint64_t call(std::string_view name, time_ns duration) {
    trace::api_call c;
    c.start = host;
    c.end = host + duration;
    c.correlation = ++correlation;
    c.name = t.strings.intern(name);
    c.thread = 1;
    t.api_calls.push_back(c);
    host = c.end + 1000;
    return c.correlation;
  }

  // The synchronisation record of the call just made.
  void sync(trace::sync_kind kind, std::int32_t stream, std::uint64_t record = 0) {
    const auto& c = t.api_calls.back();
    trace::synchronization y;
    y.kind = kind;
    y.correlation = c.correlation;
    y.record_correlation = record;
    y.stream = stream;
    y.device = 0;
    y.thread = 1;
    y.start = c.start;
    y.end = c.end;
    t.synchronizations.push_back(y);
  }

  void kernel(std::uint64_t corr, trace::string_id name, time_ns launched, time_ns after, time_ns duration, int side) {
    trace::activity a;
    a.start = std::max({launched + 5000, stream_end[side] + 1000, after});
    a.end = a.start + duration;
    a.correlation = corr;
    a.name = name;
    a.stream = side ? 13 : 7;
    a.device = 0;
    t.activities.push_back(a);
    stream_end[side] = a.end;
  }
};

trace::trace make_trace(std::size_t kernels) {
  fabricated f;
  f.t.platform = "cuda";
  f.t.processes.push_back({1000, "bench", 0, "host"});
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> duration_us(2, 30);
  const trace::string_id names[] = {
      f.t.strings.intern("triton_poi_fused_add_mul_0"), f.t.strings.intern("triton_red_fused_sum_1"),
      f.t.strings.intern("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn"),
      f.t.strings.intern("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float> >")};
  const auto step_name = [&](std::size_t s) { return f.t.strings.intern("ProfilerStep#" + std::to_string(s)); };
  std::size_t made = 0;
  for (std::size_t step = 0; made < kernels; ++step) {
    trace::range r;
    r.start = f.host;
    r.name = step_name(step);
    r.thread = 1;
    for (std::size_t k = 0; k < 1000 && made < kernels; ++k) {
      if (k % 100 == 50 && made + 8 <= kernels) {
        const time_ns at = f.host;
        const auto g = f.call("cudaGraphLaunch", 8000);
        for (int n = 0; n < 8; ++n, ++made) f.kernel(g, names[0], at, 0, duration_us(rng) * 1000, 0);
        continue;
      }
      const bool side = k % 10 == 9;
      time_ns after = 0;
      if (side) {
        const auto rec = f.call("cudaEventRecord", 2000);
        f.sync(trace::sync_kind::event_record, 7);
        f.call("cudaStreamWaitEvent", 2000);
        f.sync(trace::sync_kind::stream_wait_event, 13, rec);
        after = f.stream_end[0] + 2000;
      }
      const time_ns at = f.host;
      const auto c = f.call("cudaLaunchKernel", 3000);
      f.kernel(c, names[made % 4], at, after, duration_us(rng) * 1000, side ? 1 : 0);
      ++made;
    }
    f.call("cudaStreamSynchronize", 1000);
    auto& call = f.t.api_calls.back();
    call.end = std::max(call.end, std::max(f.stream_end[0], f.stream_end[1]) + 3000);
    f.host = call.end + 2000;
    f.sync(trace::sync_kind::stream_synchronize, 7);
    r.end = f.host - 1000;
    r.kind = trace::range_kind::cpu_annotation;
    f.t.ranges.push_back(r);
  }
  return std::move(f.t);
}

const trace::trace& the_trace() {
  static const trace::trace t = make_trace(kernel_count);
  return t;
}

const project::replay_graph& the_graph() {
  static const project::replay_graph g = project::build_replay_graph(the_trace());
  return g;
}

void BM_BuildReplayGraph(benchmark::State& state) {
  const auto& t = the_trace();
  for (auto _ : state) {
    auto g = project::build_replay_graph(t);
    benchmark::DoNotOptimize(g.order.data());
  }
  state.counters["kernels"] = static_cast<double>(t.activities.size());
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * t.activities.size()));
}

void BM_Replay(benchmark::State& state) {
  const auto& t = the_trace();
  const auto& g = the_graph();
  std::vector<double> speedup(t.activities.size(), 1.0);
  for (std::size_t i = 0; i < speedup.size(); i += 2) speedup[i] = 2.0;
  for (auto _ : state) {
    auto r = project::replay(g, speedup);
    benchmark::DoNotOptimize(r.end.data());
  }
  state.counters["nodes"] = static_cast<double>(g.nodes.size());
  state.counters["edges"] = static_cast<double>(g.edges.size());
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * t.activities.size()));
}

void BM_AmdahlProjection(benchmark::State& state) {
  const auto& t = the_trace();
  const auto classifier = classify::classifier::with_user_rules({});
  const std::vector<project::speedup_rule> rules = {project::parse_addressable_speedup("2")};
  for (auto _ : state) {
    auto p = project::project_amdahl(t, classifier, {}, rules);
    benchmark::DoNotOptimize(p.speedup);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * t.activities.size()));
}

BENCHMARK(BM_BuildReplayGraph)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_Replay)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_AmdahlProjection)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--kernels") == 0) {
      kernel_count = std::strtoull(argv[i + 1], nullptr, 10);
      for (int j = i; j + 2 < argc; ++j) argv[j] = argv[j + 2];
      argc -= 2;
      break;
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
