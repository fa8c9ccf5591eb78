#pragma once
// How durations and shares are written for people: "12.3 ms", "41.2%".
#include <cstdint>
#include <string>

namespace headroom::report {

// Picks ns, us, ms or s so that the number has 1 to 3 digits before the point.
std::string format_duration(std::int64_t ns);
std::string format_percent(double fraction, int decimals = 1);

}  // namespace headroom::report
