#pragma once
// Released evaluation sets (docs/releases.md): a results store written out as JSON Lines, every
// evaluation with its candidate's code, its problem's text and hash, verdict, reasons, error
// metrics, timing summaries, hardware and software, and checker version, in a versioned schema;
// and read back into any store, where `headroom reverify` can judge it again.
#include <cstdint>
#include <istream>
#include <ostream>
#include <string>

#include "headroom/store/results_store.hpp"

namespace headroom::store {

inline constexpr int release_schema_version = 2;
inline constexpr std::string_view release_kind = "headroom-eval-release";

struct release_counts {
  std::int64_t problems = 0;
  std::int64_t candidates = 0;
  std::int64_t evaluations = 0;
};

// Writes every evaluation of the store (every checker version's row), the candidates and problems
// they name, in a fixed order: the same store always gives the same bytes.
release_counts write_release(results_store& from, std::ostream& out);

// Reads a release into the store (one transaction: all of it or, on an error, nothing). `name`
// names the input in messages. Throws input_error on a line that is not of the schema, or of a
// newer release schema.
release_counts read_release(std::istream& in, const std::string& name, results_store& into);

// One evaluation as the release's JSON object (its "record": "evaluation" line), and back.
std::string evaluation_json(const evaluation& e);
evaluation evaluation_from_json(std::string_view line, const std::string& where);

}  // namespace headroom::store
