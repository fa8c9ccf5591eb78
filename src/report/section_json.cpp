// Extra report sections from JSON (docs/report.md, "Extra sections"): the hook through which other
// measurements (profiler overhead, replay projections) reach a report.
#include <fmt/format.h>
#include <simdjson.h>

#include "headroom/report/document.hpp"
#include "headroom/util/error.hpp"

namespace headroom::report {
namespace {

inline constexpr std::int64_t section_format_version = 1;

std::string as_text(simdjson::dom::element e, const std::string& where) {
  if (e.is_string()) return std::string(std::string_view(e.get_string().value()));
  if (e.is_int64()) return std::to_string(e.get_int64().value());
  if (e.is_uint64()) return std::to_string(e.get_uint64().value());
  if (e.is_double()) return fmt::format("{:g}", e.get_double().value());
  throw input_error(fmt::format("{}: expected a string or a number", where));
}

double as_number(simdjson::dom::element e, const std::string& where) {
  if (e.is_double() || e.is_int64() || e.is_uint64()) {
    double v = 0;
    if (e.get_double().get(v) == simdjson::SUCCESS) return v;
    if (e.is_int64()) return static_cast<double>(e.get_int64().value());
    return static_cast<double>(e.get_uint64().value());
  }
  throw input_error(fmt::format("{}: expected a number", where));
}

simdjson::dom::array as_array(simdjson::dom::element e, const std::string& where) {
  simdjson::dom::array a;
  if (e.get_array().get(a) != simdjson::SUCCESS) throw input_error(fmt::format("{}: expected an array", where));
  return a;
}

}  // namespace

extra_section read_section_json(const std::filesystem::path& file) {
  const std::string name = file.string();
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (const auto err = parser.load(name).get(root); err) {
    throw input_error(fmt::format("{}: not a report section: {}", name, simdjson::error_message(err)));
  }
  simdjson::dom::object obj;
  if (root.get_object().get(obj) != simdjson::SUCCESS)
    throw input_error(fmt::format("{}: expected a JSON object", name));
  std::int64_t version = 0;
  if (obj["headroom_report_section"].get_int64().get(version) != simdjson::SUCCESS ||
      version != section_format_version) {
    throw input_error(fmt::format("{}: not a report section of version {} (the key headroom_report_section)", name,
                                  section_format_version));
  }
  extra_section s;
  for (auto [key, value] : obj) {
    const std::string k(key);
    const std::string where = fmt::format("{}: '{}'", name, k);
    if (k == "headroom_report_section") continue;
    if (k == "kind") {
      s.kind = as_text(value, where);
    } else if (k == "title") {
      s.title = as_text(value, where);
    } else if (k == "workload") {
      s.workload = as_text(value, where);
    } else if (k == "paragraphs") {
      for (auto p : as_array(value, where)) s.paragraphs.push_back(as_text(p, where));
    } else if (k == "tables") {
      for (auto t : as_array(value, where)) {
        section_table st;
        std::string_view caption;
        if (t["caption"].get_string().get(caption) == simdjson::SUCCESS) st.caption = std::string(caption);
        simdjson::dom::element columns, rows;
        if (t["columns"].get(columns) != simdjson::SUCCESS || t["rows"].get(rows) != simdjson::SUCCESS) {
          throw input_error(fmt::format("{}: a table needs columns and rows", where));
        }
        for (auto c : as_array(columns, where + " columns")) st.columns.push_back(as_text(c, where + " columns"));
        for (auto r : as_array(rows, where + " rows")) {
          std::vector<std::string> row;
          for (auto c : as_array(r, where + " rows")) row.push_back(as_text(c, where + " rows"));
          if (row.size() != st.columns.size()) {
            throw input_error(
                fmt::format("{}: a row of {} cells in a table of {} columns", where, row.size(), st.columns.size()));
          }
          st.rows.push_back(std::move(row));
        }
        s.tables.push_back(std::move(st));
      }
    } else if (k == "bars") {
      std::string_view label;
      if (value["label"].get_string().get(label) == simdjson::SUCCESS) s.bar_label = std::string(label);
      simdjson::dom::element values;
      if (value["values"].get(values) != simdjson::SUCCESS)
        throw input_error(fmt::format("{}: bars need values", where));
      for (auto b : as_array(values, where)) {
        section_bar bar;
        simdjson::dom::element e;
        if (b["label"].get(e) == simdjson::SUCCESS) bar.label = as_text(e, where);
        if (b["value"].get(e) != simdjson::SUCCESS) throw input_error(fmt::format("{}: a bar needs a value", where));
        bar.value = as_number(e, where);
        if (b["low"].get(e) == simdjson::SUCCESS) bar.low = as_number(e, where);
        if (b["high"].get(e) == simdjson::SUCCESS) bar.high = as_number(e, where);
        s.bars.push_back(std::move(bar));
      }
    } else {
      throw input_error(fmt::format("{}: unknown key (known: kind, title, workload, paragraphs, tables, bars)", where));
    }
  }
  if (s.title.empty()) throw input_error(fmt::format("{}: a section needs a title", name));
  if (s.kind.empty()) s.kind = "section";
  return s;
}

}  // namespace headroom::report
