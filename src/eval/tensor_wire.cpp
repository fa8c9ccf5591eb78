#include "tensor_wire.hpp"

#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace headroom::eval::wire {

std::string encode(const std::vector<tensor>& tensors, std::vector<std::byte>& payload) {
  std::string s = "[";
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const tensor& t = tensors[i];
    std::string shape;
    for (std::size_t d = 0; d < t.shape.size(); ++d) shape += fmt::format("{}{}", d ? "," : "", t.shape[d]);
    s += fmt::format(R"({}{{"dtype":"{}","shape":[{}],"bytes":{}}})", i ? "," : "", dtype_name(t.type), shape,
                     t.bytes.size());
    payload.insert(payload.end(), t.bytes.begin(), t.bytes.end());
  }
  return s + "]";
}

std::vector<tensor> decode(simdjson::dom::array metas, const std::vector<std::byte>& payload, std::size_t& offset) {
  std::vector<tensor> out;
  for (simdjson::dom::element e : metas) {
    tensor t;
    std::string_view name;
    if (e["dtype"].get_string().get(name)) throw std::runtime_error("tensor without dtype");
    auto type = parse_dtype(name);
    if (!type) throw std::runtime_error(fmt::format("unsupported dtype {}", name));
    t.type = *type;
    simdjson::dom::array shape;
    if (e["shape"].get_array().get(shape)) throw std::runtime_error("tensor without shape");
    for (simdjson::dom::element d : shape) t.shape.push_back(d.get_int64().value());
    std::uint64_t bytes = 0;
    if (e["bytes"].get_uint64().get(bytes)) throw std::runtime_error("tensor without size");
    if (static_cast<std::uint64_t>(t.numel()) * dtype_size(t.type) != bytes || offset + bytes > payload.size())
      throw std::runtime_error("tensor sizes do not add up");
    t.bytes.assign(payload.begin() + static_cast<long>(offset), payload.begin() + static_cast<long>(offset + bytes));
    offset += bytes;
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace headroom::eval::wire
