#include "worker/dlpack_bridge.hpp"

#include <cstring>

#include "headroom/sandbox/channel.hpp"
#include "worker/dlpack.hpp"
#include "worker/python_tensors.hpp"
#include "worker/request_error.hpp"

namespace headroom::worker {
namespace {

dlpack::data_type dl_type(dtype t) {
  switch (t) {
    case dtype::f64:
      return {dlpack::float_code, 64, 1};
    case dtype::f32:
      return {dlpack::float_code, 32, 1};
    case dtype::f16:
      return {dlpack::float_code, 16, 1};
    case dtype::bf16:
      return {dlpack::bfloat_code, 16, 1};
    case dtype::i64:
      return {dlpack::int_code, 64, 1};
    case dtype::i32:
      return {dlpack::int_code, 32, 1};
    case dtype::i16:
      return {dlpack::int_code, 16, 1};
    case dtype::i8:
      return {dlpack::int_code, 8, 1};
    case dtype::u8:
    case dtype::boolean:
      return {dlpack::uint_code, 8, 1};  // bool travels as uint8 (driver.from_capsule)
  }
  return {dlpack::uint_code, 8, 1};
}

struct owned_buffer {
  device* dev;
  void* data;
  std::vector<std::int64_t> shape;
};

void delete_managed(dlpack::managed_tensor* self) {
  auto* o = static_cast<owned_buffer*>(self->manager_ctx);
  o->dev->release(o->data);
  delete o;
  delete self;
}

std::uint64_t bytes_of(const dlpack::tensor& t) {
  std::uint64_t numel = 1;
  for (std::int32_t d = 0; d < t.ndim; ++d) numel *= static_cast<std::uint64_t>(t.shape[d]);
  return numel * ((t.dtype.bits * t.dtype.lanes + 7) / 8);
}

}  // namespace

bool tensor_bridge::read_tensors(const py_ref& list, std::vector<std::byte>& payload, std::string& metas,
                                 std::vector<meta>* parsed, std::uint64_t max_bytes) const {
  python_tensors::exported caps;
  if (!python_.export_tensors(list, caps)) return false;
  std::uint64_t total = 0;
  for (const auto& x : caps.tensors) total += bytes_of(*x.view);
  if (total > max_bytes) throw too_large(total);
  for (const auto& x : caps.tensors) {
    const dlpack::tensor& t = *x.view;
    meta m;
    auto type = parse_dtype(x.dtype);
    if (!type) throw request_error("output of unsupported dtype " + x.dtype);
    m.type = *type;
    m.shape.assign(t.shape, t.shape + t.ndim);
    std::size_t numel = 1;
    for (auto d : m.shape) numel *= static_cast<std::size_t>(d);
    m.bytes = numel * dtype_size(m.type);
    std::size_t at = payload.size();
    if (payload.capacity() < at + m.bytes) {  // fresh pages: mapped in one go, then zero-filled
      payload.reserve(at + m.bytes);
      sandbox::prefault(payload.data() + at, m.bytes, 0);
    }
    payload.resize(at + m.bytes);
    const char* src = static_cast<const char*>(t.data) + t.byte_offset;
    if (m.bytes) {
      if (t.dev.type == dlpack::cuda) dev_->copy_to_host(payload.data() + at, src, m.bytes);
      else std::memcpy(payload.data() + at, src, m.bytes);
    }
    metas += (metas.empty() ? "" : ",") + meta_json(m);
    if (parsed) parsed->push_back(std::move(m));
  }
  return true;
}

bool tensor_bridge::read_result_tensors(const py_ref& result, std::vector<std::byte>& payload,
                                        std::string& metas) const {
  return read_tensors(python_tensors::result_list(result), payload, metas);
}

py_ref tensor_bridge::make_tensor(const meta& m, const void* src, bool device_src, void** data) const {
  auto* o = new owned_buffer{dev_.get(), dev_->allocate(m.bytes), m.shape};
  if (m.bytes) {
    if (device_src) dev_->copy_on_device(o->data, src, m.bytes);
    else dev_->copy_to_device(o->data, src, m.bytes);
  }
  *data = o->data;
  auto* mt = new dlpack::managed_tensor{};
  mt->dl_tensor.data = o->data;
  mt->dl_tensor.dev = {dev_->is_cuda() ? dlpack::cuda : dlpack::cpu, dev_->is_cuda() ? dev_->index() : 0};
  mt->dl_tensor.ndim = static_cast<std::int32_t>(o->shape.size());
  mt->dl_tensor.dtype = dl_type(m.type);
  mt->dl_tensor.shape = o->shape.data();
  mt->dl_tensor.strides = nullptr;
  mt->manager_ctx = o;
  mt->deleter = delete_managed;
  return python_.tensor_from(mt, m.type);
}

built_inputs tensor_bridge::build_inputs(const std::vector<meta>& metas, const std::byte* src, bool device_src,
                                         const py_ref& constants,
                                         const std::vector<const void*>* device_sources) const {
  built_inputs b;
  // One reference captured: the std::function below holds it without allocating.
  struct filling {
    const tensor_bridge& bridge;
    const std::vector<meta>& metas;
    const std::byte* src;
    bool device_src;
    const std::vector<const void*>* device_sources;
    built_inputs& b;
    std::size_t at = 0;
  } f{*this, metas, src, device_src, device_sources, b};
  b.tuple = python_tensors::argument_tuple(constants, metas.size(), [&f](std::size_t i) {
    void* data = nullptr;
    const void* from = f.device_sources ? (*f.device_sources)[i] : f.src + f.at;
    py_ref t = f.bridge.make_tensor(f.metas[i], from, f.device_src, &data);
    f.b.data.push_back(data);
    f.at += f.metas[i].bytes;
    return t;
  });
  return b;
}

}  // namespace headroom::worker
