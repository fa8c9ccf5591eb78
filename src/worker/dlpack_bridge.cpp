// Tensors across the DLPack bridge: the worker's buffers as PyTorch tensors and back.
#include "worker/worker.hpp"

#include <cstring>

#include <fmt/format.h>

#include "worker/dlpack.hpp"

namespace headroom::worker {
namespace {

dlpack::data_type dl_type(dtype t) {
  switch (t) {
    case dtype::f64: return {dlpack::float_code, 64, 1};
    case dtype::f32: return {dlpack::float_code, 32, 1};
    case dtype::f16: return {dlpack::float_code, 16, 1};
    case dtype::bf16: return {dlpack::bfloat_code, 16, 1};
    case dtype::i64: return {dlpack::int_code, 64, 1};
    case dtype::i32: return {dlpack::int_code, 32, 1};
    case dtype::i16: return {dlpack::int_code, 16, 1};
    case dtype::i8: return {dlpack::int_code, 8, 1};
    case dtype::u8:
    case dtype::boolean: return {dlpack::uint_code, 8, 1};  // bool travels as uint8 (driver.from_capsule)
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

void capsule_destructor(PyObject* capsule) {
  // Only a capsule nobody consumed still owns its tensor.
  if (PyCapsule_IsValid(capsule, dlpack::capsule_name)) {
    auto* mt = static_cast<dlpack::managed_tensor*>(PyCapsule_GetPointer(capsule, dlpack::capsule_name));
    if (mt && mt->deleter) mt->deleter(mt);
  }
}

}  // namespace

// Copies tensors (a Python list) out through DLPack; appends bytes and meta JSON.
bool worker::read_tensors(PyObject* list, std::vector<std::byte>& payload, std::string& metas) {
  py_ref caps = call("to_capsules", {list});
  if (!caps) return false;
  Py_ssize_t n = PyList_Size(caps.get());
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = PyList_GetItem(caps.get(), i);
    std::string name = to_string(PyTuple_GetItem(item, 0));
    auto* mt = static_cast<dlpack::managed_tensor*>(PyCapsule_GetPointer(PyTuple_GetItem(item, 1), dlpack::capsule_name));
    if (!mt) return false;
    const dlpack::tensor& t = mt->dl_tensor;
    meta m;
    auto type = parse_dtype(name);
    if (!type) throw request_error("output of unsupported dtype " + name);
    m.type = *type;
    m.shape.assign(t.shape, t.shape + t.ndim);
    std::size_t numel = 1;
    for (auto d : m.shape) numel *= static_cast<std::size_t>(d);
    m.bytes = numel * dtype_size(m.type);
    std::size_t at = payload.size();
    if (payload.capacity() < at + m.bytes) {  // fresh pages: mapped in one go, then zero-filled
      payload.reserve(at + m.bytes);
      prefault(payload.data() + at, m.bytes, 0);
    }
    payload.resize(at + m.bytes);
    const char* src = static_cast<const char*>(t.data) + t.byte_offset;
    if (m.bytes) {
      if (t.dev.type == dlpack::cuda) dev_->copy_to_host(payload.data() + at, src, m.bytes);
      else std::memcpy(payload.data() + at, src, m.bytes);
    }
    metas += (metas.empty() ? "" : ",") + meta_json(m);
  }
  return true;
}

// A tensor on the device in memory we own, holding `bytes` (on the host, or on the device when
// `device_src`). Returns the Python tensor; `data` receives the buffer.
py_ref worker::make_tensor(const meta& m, const void* src, bool device_src, void** data) {
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
  py_ref capsule(PyCapsule_New(mt, dlpack::capsule_name, capsule_destructor));
  py_ref name(PyUnicode_FromString(std::string(dtype_name(m.type)).c_str()));
  py_ref t = call("from_capsule", {capsule.get(), name.get()});
  if (!t) throw request_error("cannot hand an input to PyTorch: " + take_python_error(nullptr).message);
  return t;
}

// The forward's arguments: the tensors of `metas` in order, with the problem's constants at their
// positions (constants_). b.data holds the tensors' buffers only, in the order of `metas`.
worker::built_inputs worker::build_inputs(const std::vector<meta>& metas, const std::byte* src, bool device_src,
                                const std::vector<const void*>* device_sources) {
  built_inputs b;
  const Py_ssize_t n_constants = constants_ ? PyList_Size(constants_.get()) : 0;
  const auto total = static_cast<Py_ssize_t>(metas.size()) + n_constants;
  b.tuple = py_ref(PyTuple_New(total));
  for (Py_ssize_t k = 0; k < n_constants; ++k) {
    PyObject* pair = PyList_GetItem(constants_.get(), k);
    Py_ssize_t position = PyLong_AsSsize_t(PyTuple_GetItem(pair, 0));
    if (position < 0 || position >= total)
      throw request_error(fmt::format("a constant argument at position {} of {}", position, total));
    PyObject* value = PyTuple_GetItem(pair, 1);
    Py_INCREF(value);
    PyTuple_SET_ITEM(b.tuple.get(), position, value);
  }
  std::size_t at = 0;
  Py_ssize_t slot = 0;
  for (std::size_t i = 0; i < metas.size(); ++i) {
    while (slot < total && PyTuple_GET_ITEM(b.tuple.get(), slot) != nullptr) ++slot;  // a constant's position
    if (slot == total) throw request_error("constant arguments overlap");
    void* data = nullptr;
    const void* from = device_sources ? (*device_sources)[i] : src + at;
    py_ref t = make_tensor(metas[i], from, device_src, &data);
    PyTuple_SET_ITEM(b.tuple.get(), slot++, t.get());
    Py_INCREF(t.get());
    b.data.push_back(data);
    at += metas[i].bytes;
  }
  return b;
}

// forward's result as a Python list of its outputs.
py_ref worker::result_list(PyObject* result) {
  if (PyTuple_Check(result) || PyList_Check(result)) return py_ref(PySequence_List(result));
  py_ref list(PyList_New(0));
  PyList_Append(list.get(), result);
  return list;
}

bool worker::read_result_tensors(PyObject* result, std::vector<std::byte>& payload, std::string& metas) {
  py_ref list = result_list(result);
  return read_tensors(list.get(), payload, metas);
}

}  // namespace headroom::worker
