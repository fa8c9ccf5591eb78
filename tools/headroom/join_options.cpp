#include "join_options.hpp"

#include <fmt/format.h>

#include "headroom/util/error.hpp"

namespace headroom::cli {

void add_join_options(CLI::App* sub, join_args& a) {
  sub->add_option("--source", a.source, "only this results source (a model configuration of a store, a CSV's source)");
  sub->add_option("--uncovered", a.uncovered,
                  "what a kernel category without an evaluated problem gets: pooled (the source's whole distribution; "
                  "default) or none (1x)");
  sub->add_option("--bootstrap", a.resamples, "bootstrap resamples for the intervals (default 2000; 0: none)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--confidence", a.confidence, "of the intervals (default 0.95)")->check(CLI::Range(0.5, 0.999));
  sub->add_option("--seed", a.seed, "of the resampling (default 1: the same intervals every run)");
  sub->add_option("--problem-categories", a.problem_categories,
                  "extra problem categories (TOML, as data/problems/categories.toml); repeatable; they take precedence")
      ->allow_extra_args(false);
}

project::join_options to_join_options(const join_args& a) {
  project::join_options o;
  const auto u = project::parse_uncovered_policy(a.uncovered);
  if (!u) throw input_error(fmt::format("--uncovered '{}': expected pooled or none", a.uncovered));
  o.uncovered = *u;
  o.resamples = a.resamples;
  o.confidence = a.confidence;
  o.seed = a.seed;
  return o;
}

}  // namespace headroom::cli
