#include "eval_options.hpp"

#include <cstdlib>
#include <limits>
#include <malloc.h>
#include <unistd.h>
#include <filesystem>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "headroom/report/eval_output.hpp"
#include "headroom/report/eval_pace.hpp"
#include "headroom/util/error.hpp"

namespace headroom::cli {

void add_eval_options(CLI::App* sub, eval_cli& e, bool timing) {
  auto& o = e.options;
  o.device = "auto";
  sub->add_option("--device", o.device, "cpu, cuda (every visible GPU, one worker each), cuda:N, or auto (default)");
  sub->add_option(
      "--python", o.python,
      "The Python whose environment holds PyTorch; the worker embeds it (default $HEADROOM_PYTHON, else the "
      "interpreter headroom was built against)");
  o.cache = ".headroom-cache";
  sub->add_option("--cache", o.cache,
                  "Build folders (one per candidate hash) and worker logs (default .headroom-cache)");
  sub->add_flag("!--no-sandbox", o.sandbox,
                "Run candidates without isolation (only for code you trust, on a machine that cannot sandbox: "
                "`headroom-sandbox --check` says why). By default every candidate process runs in its own pid, mount, "
                "network, ipc and uts namespaces as an unprivileged user with a system-call filter and limits, and "
                "sees only its own files (docs/eval.md, \"Sandbox\")");
  sub->add_option("--sandbox-bind", o.sandbox_binds,
                  "A host folder candidates may read (repeatable), beyond the system, the Python environment and "
                  "their own files");
  sub->add_option("--trials", o.trials, "Correctness trials: seeds and input distributions (default 4)")
      ->check(CLI::Range(1, 64));
  sub->add_option("--seed", o.seed, "Run seed (default: random, so no candidate can predict its inputs)");
  sub->add_option("--memory-budget", e.memory_budget_gib,
                  "GiB of host memory one problem's evaluation may hold, this process and its workers together "
                  "(default: 85% of the memory available when the run starts, MemAvailable or the cgroup's room, "
                  "split among the problems in flight). Beyond it the parent stops keeping trials (the reference "
                  "makes them again), then fewer timing sets; a problem that still does not fit is a "
                  "reference_error saying what it needs (docs/eval.md, \"Memory\")")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--load-timeout", e.load_timeout, "Seconds to start a worker and construct the model (default 120)");
  sub->add_option("--run-timeout", e.run_timeout, "Seconds per forward call request (default 120; timing gets 10x)");
  if (!timing) return;
  sub->add_option("--compile-timeout", e.compile_timeout, "Seconds to build a candidate's extension (default 600)");
  sub->add_option("--jobs", o.jobs, "Parallel compilations (default: half the cores)");
  sub->add_option("--lanes", o.lanes,
                  "Evaluations in flight per GPU (default 1): worker start-up, transfers and checks overlap, each "
                  "timing has the GPU to itself; host and GPU memory grow with it (the default memory budget is "
                  "split among the problems in flight). Above 1 on the CPU only with --no-timing")
      ->check(CLI::Range(1, 16));
  sub->add_flag("!--no-timing", o.timing, "Check correctness only");
  sub->add_flag("!--no-baselines", o.baselines, "Do not time the reference (no speedups)");
  sub->add_flag("!--no-compile-baseline", o.compiled_baseline, "Do not time the reference under torch.compile");
  sub->add_option("--timing-sets", o.timing_sets, "Distinct input sets the timed calls cycle through (default 3)");
  sub->add_option("--warmup", o.warmup, "Untimed calls before sampling (default 3)");
  sub->add_flag("!--no-hold", o.hold_launches,
                "CUDA: time each call with its host dispatch included (as KernelBench does) instead of holding its "
                "launches until it returns and timing device work only");
  sub->add_option(
         "--paired-rounds", o.paired_rounds,
         "When the host's speed can set the outcome (a call timed with its dispatch, or whose dispatch takes at "
         "least half its device time), time the candidate and the reference's worker again in this many "
         "short turns each, one after the other on one CPU, alternating which goes first. Held turns compare "
         "each side's median device cost and least host time; turns timed with their dispatch, the geometric "
         "mean of the two orders' median ratios. On the CPU the two workers' calls alternate one by one "
         "instead, for --max-time and at least this many times --min-samples calls a side, and each call is "
         "compared with its neighbours on the other side (docs/eval.md, \"Alternating calls\"). Default 6; 0: "
         "never")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--min-samples", o.min_samples, "Fewest timed samples (default 10)");
  sub->add_option("--max-samples", o.max_samples, "Most timed samples (default 2000)");
  sub->add_option("--max-time", o.max_seconds, "Seconds of sampling per timing (default 10)");
  sub->add_option("--target-spread", o.target_spread,
                  "Stop sampling when the standard error of the median is below this share of it (default 0.002)");
}

void finish_eval_options(eval_cli& e) {
  // Reference data comes and goes in gigabyte tensors: keep freed memory in the heap for the next
  // trial instead of returning it to the kernel and faulting it in again (glibc serves blocks this
  // large with mmap otherwise, whatever M_MMAP_THRESHOLD says).
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  auto& o = e.options;
  o.compile_timeout = std::chrono::seconds(e.compile_timeout);
  o.load_timeout = std::chrono::seconds(e.load_timeout);
  o.run_timeout = std::chrono::seconds(e.run_timeout);
  o.memory_budget = static_cast<std::uint64_t>(e.memory_budget_gib * (1ull << 30));
  if (o.jobs <= 0) o.jobs = 1;
  if (o.python.empty() || o.python == "python3") {
    if (const char* p = std::getenv("HEADROOM_PYTHON"); p && *p) o.python = p;
#ifdef HEADROOM_DEFAULT_PYTHON
    else o.python = HEADROOM_DEFAULT_PYTHON;
#endif
  }
  std::error_code ec;
  // The worker computes the environment's paths from this name: it must be a real interpreter.
  if (o.python.find('/') == std::string::npos) {
    std::string found;
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "";
    for (std::size_t at = 0; at <= dirs.size() && found.empty();) {
      std::size_t end = dirs.find(':', at);
      if (end == std::string::npos) end = dirs.size();
      auto candidate = std::filesystem::path(dirs.substr(at, end - at)) / o.python;
      if (end > at && access(candidate.c_str(), X_OK) == 0) found = candidate.string();
      at = end + 1;
    }
    if (found.empty()) throw input_error(fmt::format("--python {}: not found on PATH", o.python));
    o.python = found;
  } else if (access(o.python.c_str(), X_OK) != 0) {
    throw input_error(fmt::format("--python {}: no such executable", o.python));
  }
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  auto bin = ec ? std::filesystem::path(".") : exe.parent_path();
  if (const char* w = std::getenv("HEADROOM_WORKER"); w && *w) o.worker = w;
  else o.worker = bin / "headroom-worker";
  if (!std::filesystem::is_regular_file(o.worker, ec))
    throw input_error(
        fmt::format("{} not found: this headroom was built without an embeddable Python "
                    "(install libpython3-dev and rebuild), or set HEADROOM_WORKER",
                    o.worker.string()));
  if (const char* sb = std::getenv("HEADROOM_SANDBOX"); sb && *sb) o.sandbox_exe = sb;
  else o.sandbox_exe = bin / "headroom-sandbox";
  if (o.sandbox && !std::filesystem::is_regular_file(o.sandbox_exe, ec))
    throw input_error(fmt::format("{} not found (set HEADROOM_SANDBOX, or --no-sandbox for trusted candidates only)",
                                  o.sandbox_exe.string()));
  for (std::string& b : o.sandbox_binds) {
    auto p = std::filesystem::absolute(b);
    if (!std::filesystem::is_directory(p, ec)) throw input_error(fmt::format("--sandbox-bind {}: not a folder", b));
    b = p.string();
  }
  auto alloc = bin / ".." / "lib" / "libheadroom_poison_alloc.so";
  if (std::filesystem::is_regular_file(alloc, ec)) o.poison_allocator = std::filesystem::weakly_canonical(alloc, ec);
  auto tracker = bin / ".." / "lib" / "libheadroom_alloc_tracker.so";
  if (std::filesystem::is_regular_file(tracker, ec)) o.alloc_tracker = std::filesystem::weakly_canonical(tracker, ec);
  auto record = bin / ".." / "lib" / "libheadroom_op_record.so";
  if (std::filesystem::is_regular_file(record, ec)) o.op_record = std::filesystem::weakly_canonical(record, ec);
  o.cache = std::filesystem::absolute(o.cache);
}

eval::eval_callback print_progress() {
  auto pace = std::make_shared<report::eval_pace>();
  return [pace](const eval::eval_job& j, const record::evaluation& e, int done, int total) {
    fmt::print(stderr, "{}\n", report::progress_line(j, e, done, total, pace->finished(done, total)));
  };
}

}  // namespace headroom::cli
