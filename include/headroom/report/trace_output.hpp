#pragma once
// Renderings of whole traces: `headroom import`'s summary of what a store holds, and `headroom
// export`'s Chrome/Perfetto JSON with every kernel coloured by its classification.
#include <cstddef>
#include <filesystem>
#include <ostream>

#include "headroom/classify/classifier.hpp"
#include "headroom/trace/model.hpp"

namespace headroom::report {

// "wrote STORE (trace store vN) from K files", then the counts of each kind of record, the
// processes, devices and names, and the records the profiler dropped.
void write_store_summary(std::ostream& out, const trace::trace& t, const std::filesystem::path& store,
                         std::size_t files);
// Reader warnings that lost nothing, one "headroom: warning: ..." line each (with its count).
void write_reader_warnings(std::ostream& out, const trace::trace& t);

// Chrome trace-event JSON (trace::write_chrome_trace): each kernel carries its category,
// provenance, addressability, rule and library, and is coloured by provenance.
void write_classified_chrome_trace(std::ostream& out, const trace::trace& t, const classify::classifier& c);
// "wrote FILE: N device activities, ..." and where to open it.
void write_export_summary(std::ostream& out, const trace::trace& t, const std::filesystem::path& file);

}  // namespace headroom::report
