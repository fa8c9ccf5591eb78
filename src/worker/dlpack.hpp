#pragma once
// The DLPack ABI (dmlc/dlpack, unversioned "dltensor" capsules, which every PyTorch since 1.10
// produces and accepts). Declared here from the published layout rather than taken from a header,
// so the worker builds where no dlpack package is installed.
#include <cstdint>

namespace headroom::worker::dlpack {

enum device_type : std::int32_t { cpu = 1, cuda = 2 };
enum type_code : std::uint8_t { int_code = 0, uint_code = 1, float_code = 2, bfloat_code = 4, bool_code = 6 };

struct device {
  std::int32_t type;
  std::int32_t id;
};

struct data_type {
  std::uint8_t code;
  std::uint8_t bits;
  std::uint16_t lanes;
};

struct tensor {
  void* data;
  device dev;
  std::int32_t ndim;
  data_type dtype;
  std::int64_t* shape;
  std::int64_t* strides;  // in elements; null means compact row-major
  std::uint64_t byte_offset;
};

struct managed_tensor {
  tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(managed_tensor* self);
};

inline constexpr const char* capsule_name = "dltensor";
inline constexpr const char* used_capsule_name = "used_dltensor";

}  // namespace headroom::worker::dlpack
