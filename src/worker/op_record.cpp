// libheadroom_op_record.so: which operators PyTorch's dispatcher runs during a call, on every thread
// of the process (docs/eval.md, "Verdicts"). A global RecordFunction callback sees each operator at
// the dispatcher's entry, whoever called it (Python on any thread, a C++ extension, a kernel calling
// another operator); nothing in Python holds it, so no patch of a Python module, no dispatch-mode
// trick and no helper thread hides an operator from it. The callback is in place only between arm
// and disarm: while it is installed every operator takes PyTorch's slower, observed path, so timed
// calls run without it.
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/ivalue.h>
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
  // The same with each operator's operand sizes: "div(2097152,512)" (operand_sizes).
  std::set<std::string> dispatched_sized;
  std::set<std::string> outer_sized;
  std::unordered_map<std::string, bool> composite;  // by "name.overload", as the dispatcher answered
  std::string text[4];
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

// How many elements of a tensor an operator reads: a dimension broadcast by a zero stride counts once
// (the divisor F.normalize expands to its input's shape reads one column, as the reference's
// broadcast one does).
std::int64_t elements_read(const at::Tensor& t) {
  if (t.layout() != c10::kStrided) return t.numel();
  std::int64_t n = 1;
  const auto sizes = t.sizes();
  const auto strides = t.strides();
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return 0;
    if (strides[d] != 0) n *= sizes[d];
  }
  return n;
}

// "name(n1,n2,...)": the operator with the elements each tensor operand reads, in the order of its
// arguments (the tensors of a list argument in their order); other arguments are left out.
std::string operand_sizes(const std::string& name, const at::RecordFunction& fn) {
  std::string s = name + "(";
  bool first = true;
  auto add = [&](const c10::IValue& v) {
    if (!v.isTensor()) return;
    const at::Tensor& t = v.toTensor();
    if (!t.defined()) return;
    s += (first ? "" : ",") + std::to_string(elements_read(t));
    first = false;
  };
  for (const c10::IValue& v : fn.inputs()) {
    if (v.isList()) {
      c10::List<c10::IValue> list = v.toList();
      for (std::size_t i = 0; i < list.size(); ++i) add(list.get(i));
    } else {
      add(v);
    }
  }
  return s + ")";
}

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
      std::string s = short_name(name->name);
      std::string sized;
      try {
        sized = operand_sizes(s, fn);
      } catch (...) {
        sized = s + "(?)";  // an operand whose sizes cannot be read: never the reference's
      }
      record& r = state();
      std::lock_guard<std::mutex> lock(r.mutex);
      kernel = !is_composite(r, *name);
      if (kernel && f.kernels == 0) {
        r.outer.insert(s);
        r.outer_sized.insert(sized);
      }
      r.dispatched.insert(std::move(s));
      r.dispatched_sized.insert(std::move(sized));
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
    r.dispatched_sized.clear();
    r.outer_sized.clear();
  }
  generation.fetch_add(1, std::memory_order_acq_rel);
  try {
    if (handle == 0)
      handle = at::addGlobalCallback(
          at::RecordFunctionCallback(on_start, on_end).needsInputs(true).scopes({at::RecordScope::FUNCTION}));
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
  r.text[headroom_op_record_dispatched_sized] = joined(r.dispatched_sized);
  r.text[headroom_op_record_outer_sized] = joined(r.outer_sized);
  return lost;
}

__attribute__((visibility("default"))) const char* headroom_op_record_names(int which) {
  if (which < headroom_op_record_dispatched || which > headroom_op_record_outer_sized) return "";
  return state().text[which].c_str();
}

}  // extern "C"
