// headroom profile [-o FILE] [--kinds LIST] [--api A] [--capture-range R [--capture-range-end E]] [--no-nvtx]
//                  [--keep-streams] -- CMD ARGS...
#include <memory>
#include <string>
#include <vector>

#include "command.hpp"
#include "headroom/profile/launcher.hpp"

namespace headroom::cli {
namespace {

const command_registration registration{command{
    "profile", 10, [](CLI::App& app) -> std::function<int()> {
      auto args = std::make_shared<profile::profile_options>();
      auto no_nvtx = std::make_shared<bool>(false);
      auto* sub =
          app.add_subcommand("profile", "Run a CUDA program under the headroom profiler and write a trace store");
      sub->description(
          "Run a CUDA program under the headroom profiler and write a trace store.\n\n"
          "Runs CMD with the headroom CUPTI injection library loaded into every CUDA process it starts\n"
          "(no change to the program: the CUDA driver loads the library), then merges what each process\n"
          "recorded into one trace store that 'headroom analyze' reads. Records kernels, copies, memsets,\n"
          "CUDA runtime and driver calls (launches with correlation ids), NVTX ranges and marks, and\n"
          "synchronisations (cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize,\n"
          "cudaStreamWaitEvent).\n"
          "Child processes (torchrun ranks, multiprocessing workers) each add a process to the store.\n"
          "The exit status is CMD's (128+N when it died of signal N; 127 when it could not be run).\n"
          "SIGINT, SIGTERM and SIGHUP sent to headroom are passed on to CMD's process group.");
      sub->add_option("-o,--output", args->output, "Trace store to write (default headroom-YYYYmmdd-HHMMSS.sqlite)");
      sub->add_option(
          "--kinds", args->kinds,
          "What to record, a comma list of kernel,memcpy,memset,runtime,driver,nvtx,overhead,sync (default all)");
      sub->add_option("--api", args->api,
                      "launches (default): every CUDA runtime and driver call except the queries that put no work on\n"
                      "a device (cudaGetDevice, cudaGetLastError, cudaStreamIsCapturing, cuCtxGetCurrent...), which\n"
                      "frameworks make several times per kernel; all: every call")
          ->check(CLI::IsMember({"launches", "all"}));
      sub->add_option("--capture-range", args->capture,
                      "whole (default): record the whole process; cudaProfilerApi: record only between the program's\n"
                      "cudaProfilerStart and cudaProfilerStop (torch.cuda.profiler.start()/stop()), as nsys does")
          ->check(CLI::IsMember({"whole", "cudaProfilerApi"}));
      sub->add_option("--capture-range-end", args->capture_end,
                      "With --capture-range cudaProfilerApi, what the program's cudaProfilerStop ends. repeat\n"
                      "(default): one range; the next cudaProfilerStart records again. stop: the recording; the\n"
                      "trace is closed and CUPTI detached a flush period later, so the rest of the program runs\n"
                      "as if never profiled (CUPTI left attached after tracing API calls slows a program by about\n"
                      "1%, bench/RESULTS.md)")
          ->check(CLI::IsMember({"repeat", "stop"}));
      sub->add_flag("--no-nvtx", *no_nvtx,
                    "Do not route NVTX ranges to the profiler (NVTX_INJECTION64_PATH is left unset)");
      sub->add_flag("--keep-streams", args->keep_streams,
                    "Keep the per-process event streams (FILE.streams.XXXXXX/<pid>.hrs) after merging");
      sub->add_option("command", args->command, "The command and its arguments, after --")->required();
      sub->footer(
          "Examples:\n"
          "  headroom profile -o train.sqlite -- python3 train.py --steps 50\n"
          "  headroom profile -o job.sqlite -- torchrun --nproc-per-node 8 train.py   # one process per rank\n"
          "  headroom profile --capture-range cudaProfilerApi -o steps.sqlite -- python3 train.py\n"
          "  headroom profile --capture-range cudaProfilerApi --capture-range-end stop -- python3 serve.py\n"
          "  headroom analyze train.sqlite\n"
          "\n"
          "Environment:\n"
          "  HEADROOM_INJECT_LIB        the injection library (default <headroom dir>/../lib/libheadroom_inject.so)\n"
          "  HEADROOM_PROFILE_FLUSH_MS  how often each process flushes its records to disk\n"
          "  HEADROOM_PROFILE_BUFFER_MB activity buffer memory per process\n"
          "Set for CMD: CUDA_INJECTION64_PATH, NVTX_INJECTION64_PATH (the injection library, which hands NVTX to\n"
          "the program's libcupti), HEADROOM_PROFILE_DIR, HEADROOM_PROFILE_KINDS, HEADROOM_PROFILE_API,\n"
          "HEADROOM_PROFILE_CAPTURE, HEADROOM_PROFILE_CAPTURE_END (docs/profiler.md lists every variable).\n"
          "Another CUPTI client in CMD (torch.profiler, nsys, ncu) takes precedence: that process runs unprofiled.");
      return [args, no_nvtx] {
        args->nvtx = !*no_nvtx;
        return profile::run_profile(*args);
      };
    }}};

}  // namespace
}  // namespace headroom::cli
