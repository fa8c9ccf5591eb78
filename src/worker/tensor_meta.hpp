#pragma once
// A tensor as the protocol with the parent describes it: dtype, shape and bytes, as JSON both ways.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <simdjson.h>

#include "headroom/util/dtype.hpp"

namespace headroom::worker {

struct meta {
  dtype type;
  std::vector<std::int64_t> shape;
  std::size_t bytes;
};

// The JSON the parent reads for a shape and a tensor's meta; the metas of a request (request_error
// for an unknown dtype).
std::string shape_json(const std::vector<std::int64_t>& shape);
std::string meta_json(const meta& m);
std::vector<meta> parse_metas(simdjson::dom::array arr);
// The bytes of all of them together.
std::size_t total_bytes(const std::vector<meta>& metas);

}  // namespace headroom::worker
