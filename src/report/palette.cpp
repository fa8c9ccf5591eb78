#include "headroom/report/palette.hpp"

#include <array>

namespace headroom::report {

std::string_view category_colour(classify::category c) {
  // Tableau 10 for the categories that carry most time (distinct in print and for the common forms
  // of colour blindness), then further hues; `other` and `memory` greys.
  static constexpr std::array<std::string_view, classify::category_count> colours{
      "#4e79a7",  // gemm
      "#f28e2b",  // attention
      "#59a14f",  // convolution
      "#b07aa1",  // normalization
      "#edc948",  // softmax
      "#76b7b2",  // elementwise
      "#e15759",  // reduction
      "#9c755f",  // embedding
      "#ff9da7",  // sort_scan
      "#8cd17d",  // optimizer
      "#17becf",  // communication
      "#8c8c8c",  // memory
      "#c7c7c7",  // other
  };
  return colours[static_cast<std::size_t>(c)];
}

}  // namespace headroom::report
