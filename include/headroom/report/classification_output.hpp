#pragma once
// Renderings of `headroom classify`: kernel names with their classification, and the rules in the
// order they are tried, as a console table, tab-separated values or JSON.
#include <ostream>
#include <string>
#include <vector>

#include "headroom/classify/classifier.hpp"

namespace headroom::report {

enum class listing_format { console, tsv, json };

void write_classifications(std::ostream& out, const std::vector<std::string>& names, const classify::classifier& c,
                           listing_format format);
void write_rules(std::ostream& out, const std::vector<classify::rule_summary>& rules, listing_format format);

}  // namespace headroom::report
