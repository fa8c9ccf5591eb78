#include "freezer.hpp"

#include <algorithm>
#include <cstdio>
#include <mutex>

#include "headroom/sandbox/freeze.hpp"

namespace headroom::sandbox {
namespace {

// Held by a freeze_others for its whole life: no worker comes or goes while others are frozen.
std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}

std::vector<worker_process*>& registry() {
  static std::vector<worker_process*> workers;
  return workers;
}

}  // namespace

void registry_add(worker_process* w) {
  std::lock_guard lock(registry_mutex());
  registry().push_back(w);
}

void registry_remove(worker_process* w) {
  std::lock_guard lock(registry_mutex());
  std::erase(registry(), w);
}

freeze_others::freeze_others(const std::vector<const worker_process*>& measured) {
  registry_mutex().lock();
  for (worker_process* w : registry()) {
    if (std::find(measured.begin(), measured.end(), w) != measured.end()) continue;
    if (w->freeze()) frozen_.push_back(w);
    else if (w->alive())
      std::fprintf(stderr,
                   "headroom: a candidate's sandbox did not confirm it was frozen within a second; the "
                   "measurement goes on without it frozen\n");
  }
}

freeze_others::~freeze_others() {
  for (worker_process* w : frozen_) w->thaw();
  registry_mutex().unlock();
}

}  // namespace headroom::sandbox
