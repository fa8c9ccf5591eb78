#include "headroom/analyze/activity_classes.hpp"

namespace headroom::analyze {
namespace {
const classify::classification memory{classify::category::memory, classify::provenance::runtime, "", ""};
}

activity_classes::activity_classes(const trace::trace& t, const classify::classifier& c)
    : t_(t), c_(c), done_(t.strings.size(), 0), cache_(t.strings.size()) {}

const classify::classification& activity_classes::of(const trace::activity& a) {
  if (a.kind != trace::activity_kind::kernel) return memory;
  if (!done_[a.name]) {
    cache_[a.name] = c_.classify(t_.strings[a.name]);
    done_[a.name] = 1;
  }
  return cache_[a.name];
}

}  // namespace headroom::analyze
