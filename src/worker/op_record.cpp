// libheadroom_op_record.so: which operators PyTorch's dispatcher runs during a call, on every thread
// of the process (docs/eval.md, "Verdicts"). A global RecordFunction callback sees each operator at
// the dispatcher's entry, whoever called it (Python on any thread, a C++ extension, a kernel calling
// another operator); nothing in Python holds it, so no patch of a Python module, no dispatch-mode
// trick and no helper thread hides an operator from it. The callback is in place only between arm
// and disarm: while it is installed every operator takes PyTorch's slower, observed path, so timed
// calls run without it.
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/record_function.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "worker/op_record.h"

namespace {

struct record {
  std::mutex mutex;
  std::set<std::string> dispatched;
  std::set<std::string> outer;
  std::unordered_map<std::string, bool> composite;  // by "name.overload", as the dispatcher answered
  std::string text[2];
};

// Never destroyed: an operator in flight on a thread that outlives main may still end into it.
record& state() {
  static record* r = new record;
  return *r;
}

std::atomic<bool> armed{false};
std::atomic<std::uint64_t> generation{0};  // one per record: a thread's frames from an older one are dropped
at::CallbackHandle handle = 0;

// The operators in progress on this thread, innermost last: whether each is a kernel (not a
// CompositeImplicitAutograd decomposition), and how many kernels enclose the next operator.
struct thread_frames {
  std::uint64_t generation = 0;
  std::vector<bool> kernel;
  int kernels = 0;
  bool canary = false;  // disarm's check is running on this thread
  bool canary_seen = false;
};
thread_local thread_frames frames;

std::string short_name(const std::string& name) { return name.rfind("aten::", 0) == 0 ? name.substr(6) : name; }

// Called with the record's mutex held.
bool is_composite(record& r, const c10::OperatorName& name) {
  std::string key = name.name + "." + name.overload_name;
  auto it = r.composite.find(key);
  if (it != r.composite.end()) return it->second;
  auto op = c10::Dispatcher::singleton().findOp(name);
  bool composite = op && op->hasKernelForDispatchKey(c10::DispatchKey::CompositeImplicitAutograd);
  r.composite.emplace(std::move(key), composite);
  return composite;
}

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  thread_frames& f = frames;
  if (f.canary) f.canary_seen = true;
  std::uint64_t g = generation.load(std::memory_order_acquire);
  if (f.generation != g) {
    f.kernel.clear();
    f.kernels = 0;
    f.generation = g;
  }
  bool kernel = false;
  if (armed.load(std::memory_order_acquire)) {
    if (auto name = fn.operator_name()) {
      record& r = state();
      std::lock_guard<std::mutex> lock(r.mutex);
      kernel = !is_composite(r, *name);
      std::string s = short_name(name->name);
      if (kernel && f.kernels == 0) r.outer.insert(s);
      r.dispatched.insert(std::move(s));
    }
  }
  f.kernel.push_back(kernel);
  f.kernels += kernel ? 1 : 0;
  return nullptr;
}

void on_end(const at::RecordFunction&, at::ObserverContext*) {
  thread_frames& f = frames;
  if (f.kernel.empty()) return;
  f.kernels -= f.kernel.back() ? 1 : 0;
  f.kernel.pop_back();
}

// Whether an observed function run on this thread now reaches the callback: what an operator's
// dispatch asks of RecordFunction (enabled on the thread, a callback in place), without running one.
bool recorded_here() {
  thread_frames& f = frames;
  f.canary = true;
  f.canary_seen = false;
  {
    at::RecordFunction probe(at::RecordScope::FUNCTION);
    if (probe.isActive()) probe.before("headroom::op_record_check");
  }
  f.canary = false;
  return f.canary_seen;
}

std::string joined(const std::set<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += n + "\n";
  return s;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int headroom_op_record_arm(void) {
  record& r = state();
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    r.dispatched.clear();
    r.outer.clear();
  }
  generation.fetch_add(1, std::memory_order_acq_rel);
  try {
    if (handle == 0)
      handle = at::addGlobalCallback(at::RecordFunctionCallback(on_start, on_end).scopes({at::RecordScope::FUNCTION}));
  } catch (...) {
    return -1;
  }
  armed.store(true, std::memory_order_release);
  return 0;
}

__attribute__((visibility("default"))) int headroom_op_record_disarm(void) {
  // Seen here means RecordFunction is on for this thread and the callback is in place for all.
  // Only when it is not does a new thread (a scheduling round trip: milliseconds on a busy host)
  // tell which of the two was switched off.
  int lost = 0;
  if (!recorded_here()) {
    try {
      bool elsewhere = false;
      std::thread probe([&elsewhere] { elsewhere = recorded_here(); });
      probe.join();
      lost |= elsewhere ? headroom_op_record_lost_here : headroom_op_record_lost_elsewhere;
    } catch (...) {
      lost |= headroom_op_record_lost_here | headroom_op_record_unchecked;
    }
  }
  armed.store(false, std::memory_order_release);
  if (handle != 0) {
    try {
      at::removeCallback(handle);
    } catch (...) {}
    handle = 0;
  }
  record& r = state();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.text[headroom_op_record_dispatched] = joined(r.dispatched);
  r.text[headroom_op_record_outer] = joined(r.outer);
  return lost;
}

__attribute__((visibility("default"))) const char* headroom_op_record_names(int which) {
  if (which != headroom_op_record_dispatched && which != headroom_op_record_outer) return "";
  return state().text[which].c_str();
}

}  // extern "C"
