#include "headroom/record/timing_summary.hpp"

#include <iterator>
#include <variant>

#include <fmt/format.h>

namespace headroom::record {

std::string kept_statistics_json(const timing_summary& s) {
  std::string out;
  for (const timing_statistic& st : kept_timing_statistics)
    std::visit(
        [&](auto member) {
          fmt::format_to(std::back_inserter(out), R"({}"{}":{})", out.empty() ? "" : ",", st.name, s.*member);
        },
        st.member);
  return out;
}

}  // namespace headroom::record
