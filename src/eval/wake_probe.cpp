#include "wake_probe.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <chrono>

namespace headroom::eval {

wake_probe::wake_probe(int cpu)
    : thread_([this, cpu] {
        if (cpu >= 0) {
          cpu_set_t one;
          CPU_ZERO(&one);
          CPU_SET(cpu, &one);
          pthread_setaffinity_np(pthread_self(), sizeof one, &one);  // unpinned if refused
        }
        using clock = std::chrono::steady_clock;
        constexpr auto period = std::chrono::milliseconds(2);
        while (running_.load(std::memory_order_relaxed)) {
          const auto before = clock::now();
          std::this_thread::sleep_for(period);
          const double slept = std::chrono::duration<double, std::milli>(clock::now() - before).count();
          overruns_ms_.push_back(std::max(0.0, slept - 2.0));
        }
      }) {}

wake_probe::~wake_probe() { stop(); }

double wake_probe::stop() {
  running_.store(false, std::memory_order_relaxed);
  if (thread_.joinable()) thread_.join();
  return median_overrun_ms(overruns_ms_);
}

double median_overrun_ms(std::vector<double> overruns_ms) {
  if (overruns_ms.empty()) return 0;
  auto mid = overruns_ms.begin() + static_cast<std::ptrdiff_t>(overruns_ms.size() / 2);
  std::nth_element(overruns_ms.begin(), mid, overruns_ms.end());
  return *mid;
}

}  // namespace headroom::eval
