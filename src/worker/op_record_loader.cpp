#include "worker/op_record_loader.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <string_view>

#include "worker/op_record.h"

namespace headroom::worker {
namespace {

std::vector<std::string> lines(const char* text) {
  std::vector<std::string> out;
  std::string_view s = text ? text : "";
  while (!s.empty()) {
    std::size_t end = s.find('\n');
    if (end == std::string_view::npos) end = s.size();
    if (end > 0) out.emplace_back(s.substr(0, end));
    s.remove_prefix(std::min(end + 1, s.size()));
  }
  return out;
}

}  // namespace

std::string op_record::load(const std::string& path, const std::function<bool()>& probe, const std::string& probe_op) {
  if (path.empty())
    return "no libheadroom_op_record.so beside headroom: it is built only where HEADROOM_PYTHON's torch has its "
           "C++ headers";
  // Its libtorch_cpu and libc10 are the ones torch's Python module loaded already (same sonames),
  // so the callback lands in the dispatcher PyTorch runs.
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    return std::string("cannot load ") + path + ": " + (e ? e : "unknown error");
  }
  auto arm = reinterpret_cast<int (*)()>(dlsym(h, "headroom_op_record_arm"));
  auto disarm = reinterpret_cast<int (*)()>(dlsym(h, "headroom_op_record_disarm"));
  auto names = reinterpret_cast<const char* (*)(int)>(dlsym(h, "headroom_op_record_names"));
  if (!arm || !disarm || !names) return path + " lacks the op_record.h functions";
  arm_ = arm;
  disarm_ = disarm;
  names_ = names;
  std::string why;
  if (!this->arm()) {
    why = "PyTorch refused its RecordFunction callback";
  } else {
    bool ran = probe();
    op_record_result r = this->disarm();
    if (!ran) why = "its probe operator failed";
    else if (!r.lost.empty()) why = "its probe found it switched off: " + r.lost.front();
    else if (std::find(r.dispatched.begin(), r.dispatched.end(), probe_op) == r.dispatched.end())
      why = "it did not see " + probe_op + " run (built against another PyTorch?)";
  }
  if (!why.empty()) {
    arm_ = nullptr;
    disarm_ = nullptr;
    names_ = nullptr;
    return path + ": " + why;
  }
  return "";
}

bool op_record::arm() const { return arm_ && arm_() == 0; }

op_record_result op_record::disarm() const {
  op_record_result r;
  if (!disarm_) return r;
  int lost = disarm_();
  r.dispatched = lines(names_(headroom_op_record_dispatched));
  r.outer = lines(names_(headroom_op_record_outer));
  r.dispatched_sized = lines(names_(headroom_op_record_dispatched_sized));
  r.outer_sized = lines(names_(headroom_op_record_outer_sized));
  if (lost & headroom_op_record_lost_here)
    r.lost.emplace_back(lost & headroom_op_record_unchecked
                            ? "operators run on the calling thread were not recorded when forward returned (whether "
                              "on other threads could not be checked: no thread could be started)"
                            : "RecordFunction was off on the calling thread when forward returned");
  if (lost & headroom_op_record_lost_elsewhere)
    r.lost.emplace_back("the record's callback was gone from PyTorch when forward returned");
  return r;
}

}  // namespace headroom::worker
