#pragma once
// The speed-of-light floor of a problem on a device (docs/eval.md, "Timing").
#include <optional>

namespace headroom::eval {

// The speed-of-light floor in ms (docs/eval.md): the problem's minimum traffic (inputs read once,
// outputs written once) over the measured copy bandwidth, or its FLOPs over the measured dense
// matmul rate, whichever is longer. `flops` < 0 means unknown (bytes only); no bandwidth, no floor.
std::optional<double> speed_of_light_ms(double bytes, double flops, double bandwidth_bytes_per_s,
                                        double matmul_flops_per_s);

}  // namespace headroom::eval
