#include "tensor_wire.hpp"

#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace headroom::eval::wire {

std::string describe(const std::vector<tensor>& tensors) {
  std::string s = "[";
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const tensor& t = tensors[i];
    std::string shape;
    for (std::size_t d = 0; d < t.shape.size(); ++d) shape += fmt::format("{}{}", d ? "," : "", t.shape[d]);
    s += fmt::format(R"({}{{"dtype":"{}","shape":[{}],"bytes":{}}})", i ? "," : "", dtype_name(t.type), shape,
                     t.bytes.size());
  }
  return s + "]";
}

std::string encode(const std::vector<tensor>& tensors, std::vector<std::span<const std::byte>>& parts) {
  for (const tensor& t : tensors) parts.emplace_back(t.bytes);
  return describe(tensors);
}

namespace {

// The tensor `e` describes, without its bytes; `bytes` receives their size.
tensor header_of(simdjson::dom::element e, std::uint64_t& bytes) {
  tensor t;
  std::string_view name;
  if (e["dtype"].get_string().get(name)) throw std::runtime_error("tensor without dtype");
  auto type = parse_dtype(name);
  if (!type) throw std::runtime_error(fmt::format("unsupported dtype {}", name));
  t.type = *type;
  simdjson::dom::array shape;
  if (e["shape"].get_array().get(shape)) throw std::runtime_error("tensor without shape");
  for (simdjson::dom::element d : shape) t.shape.push_back(d.get_int64().value());
  if (e["bytes"].get_uint64().get(bytes)) throw std::runtime_error("tensor without size");
  if (static_cast<std::uint64_t>(t.numel()) * dtype_size(t.type) != bytes)
    throw std::runtime_error("tensor sizes do not add up");
  return t;
}

}  // namespace

std::vector<tensor> decode(simdjson::dom::array metas, const std::vector<std::byte>& payload, std::size_t& offset) {
  std::vector<tensor> out;
  for (simdjson::dom::element e : metas) {
    std::uint64_t bytes = 0;
    tensor t = header_of(e, bytes);
    if (offset + bytes > payload.size()) throw std::runtime_error("tensor sizes do not add up");
    t.bytes.assign(payload.begin() + static_cast<long>(offset), payload.begin() + static_cast<long>(offset + bytes));
    offset += bytes;
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<tensor> decode(simdjson::dom::array metas, std::vector<std::byte>&& payload) {
  std::vector<tensor> out;
  std::vector<std::size_t> offsets, sizes;
  std::size_t offset = 0, largest = 0;
  for (simdjson::dom::element e : metas) {
    std::uint64_t bytes = 0;
    out.push_back(header_of(e, bytes));
    if (offset + bytes > payload.size()) throw std::runtime_error("tensor sizes do not add up");
    offsets.push_back(offset);
    sizes.push_back(bytes);
    if (bytes > sizes[largest]) largest = sizes.size() - 1;
    offset += bytes;
  }
  if (offset != payload.size()) throw std::runtime_error("tensor sizes do not add up");
  if (out.empty()) return out;
  // The adopted buffer keeps the others' bytes as spare capacity: worth it only when they are
  // small (two inputs of a gigabyte each would otherwise hold three).
  if (payload.size() - sizes[largest] > sizes[largest] / 8) {
    offset = 0;
    return decode(metas, payload, offset);
  }
  for (std::size_t k = 0; k < out.size(); ++k)
    if (k != largest)
      out[k].bytes.assign(payload.begin() + static_cast<long>(offsets[k]),
                          payload.begin() + static_cast<long>(offsets[k] + sizes[k]));
  // Moving within pages already mapped costs one copy; a fresh buffer would cost the copy and the
  // page faults.
  if (offsets[largest] != 0) std::memmove(payload.data(), payload.data() + offsets[largest], sizes[largest]);
  payload.resize(sizes[largest]);  // shrinking keeps the buffer
  out[largest].bytes = std::move(payload);
  return out;
}

}  // namespace headroom::eval::wire
