#include "worker/tensor_meta.hpp"

#include <fmt/format.h>

#include "worker/request_error.hpp"

namespace headroom::worker {

std::string shape_json(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += fmt::format("{}{}", i ? "," : "", shape[i]);
  return s + "]";
}

std::string meta_json(const meta& m) {
  return fmt::format(R"({{"dtype":"{}","shape":{},"bytes":{}}})", dtype_name(m.type), shape_json(m.shape), m.bytes);
}

std::vector<meta> parse_metas(simdjson::dom::array arr) {
  std::vector<meta> out;
  for (simdjson::dom::element e : arr) {
    meta m;
    std::string_view name = e["dtype"].get_string().value();
    auto t = parse_dtype(name);
    if (!t) throw request_error(fmt::format("unknown dtype {}", name));
    m.type = *t;
    // Named arrays: a range-for over `.value()` of a temporary simdjson result dangles.
    simdjson::dom::array shape = e["shape"].get_array().value();
    for (simdjson::dom::element d : shape) m.shape.push_back(d.get_int64().value());
    m.bytes = static_cast<std::size_t>(e["bytes"].get_uint64().value());
    out.push_back(std::move(m));
  }
  return out;
}

std::size_t total_bytes(const std::vector<meta>& metas) {
  std::size_t total = 0;
  for (const meta& m : metas) total += m.bytes;
  return total;
}

}  // namespace headroom::worker
