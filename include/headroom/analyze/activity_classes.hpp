#pragma once
// The classification of a trace's activities, each distinct kernel name classified once: a trace
// repeats a few hundred names millions of times. Copies and memsets are memory/runtime without
// asking the classifier (docs/method.md).
#include <vector>

#include "headroom/classify/classifier.hpp"
#include "headroom/trace/model.hpp"

namespace headroom::analyze {

class activity_classes {
 public:
  // Both must outlive this object; the classifications' views point into the classifier.
  activity_classes(const trace::trace& t, const classify::classifier& c);

  const classify::classification& of(const trace::activity& a);

 private:
  const trace::trace& t_;
  const classify::classifier& c_;
  std::vector<char> done_;
  std::vector<classify::classification> cache_;
};

}  // namespace headroom::analyze
