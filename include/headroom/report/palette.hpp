#pragma once
// The report's colours: one per kernel category, the same in every plot and every report, so a
// reader who learnt that embedding is brown in one report finds it brown in the next.
#include <string_view>

#include "headroom/classify/classifier.hpp"

namespace headroom::report {

std::string_view category_colour(classify::category c);
inline constexpr std::string_view idle_colour = "#ffffff";
// Lines of the three estimates of the join, and of the Amdahl curves.
inline constexpr std::string_view primary_colour = "#1f4e79";
inline constexpr std::string_view secondary_colour = "#c0504d";

}  // namespace headroom::report
