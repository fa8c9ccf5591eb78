#pragma once
// Small in-memory traces for the analysis tests, with real kernel names.
#include <string_view>

#include "headroom/classify/classifier.hpp"
#include "headroom/trace/model.hpp"

namespace headroom::test {

using trace::time_ns;

// Rules of the shape data/rules/*.toml uses, kept here so that the tests do not depend on the
// default rule set's contents.
inline constexpr std::string_view test_rules = R"(
[[rule]]
id = "t-nccl"
prefix = ["ncclKernel_", "ncclDevKernel_"]
category = "communication"
provenance = "communication"

[[rule]]
id = "t-cublas"
prefix = ["ampere_", "sm90_"]
contains = ["gemm"]
category = "gemm"
provenance = "vendor_library"

[[rule]]
id = "t-flash"
contains = ["flash_fwd", "flash_bwd"]
category = "attention"
provenance = "vendor_library"

[[rule]]
id = "t-triton"
prefix = ["triton_"]
category = "elementwise"
provenance = "compiler_generated"

[[rule]]
id = "t-aten-norm"
contains = ["layer_norm"]
category = "normalization"
provenance = "framework"

[[rule]]
id = "t-aten"
contains = ["at::native::"]
category = "elementwise"
provenance = "framework"
)";

inline classify::classifier test_classifier() {
  classify::classifier c;
  c.add_rules_text(test_rules, "test_rules");
  return c;
}

inline constexpr std::string_view gemm = "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn";
inline constexpr std::string_view elementwise =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)";
inline constexpr std::string_view layer_norm =
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, float const*, float const*, float*, float*, float*)";
inline constexpr std::string_view nccl = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)";
inline constexpr std::string_view triton = "triton_poi_fused_add_mul_0";
inline constexpr std::string_view flash =
    "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4, false, false, cutlass::bfloat16_t> >(Flash_fwd_params)";

struct trace_builder {
  trace::trace t;

  trace_builder() {
    t.platform = "cuda";
    t.processes.push_back({1000, "rank0", 0, "host"});
  }

  std::uint16_t add_process(std::int32_t rank) {
    t.processes.push_back({static_cast<std::uint32_t>(1000 + t.processes.size()), "rank", rank, "host"});
    return static_cast<std::uint16_t>(t.processes.size() - 1);
  }

  trace_builder& kernel(std::string_view name, time_ns start, time_ns end, std::int32_t stream = 7,
                        std::uint64_t correlation = 0, std::uint16_t process = 0, std::int16_t device = 0) {
    trace::activity a;
    a.start = start;
    a.end = end;
    a.name = t.strings.intern(name);
    a.stream = stream;
    a.correlation = correlation;
    a.process = process;
    a.device = device;
    t.activities.push_back(a);
    return *this;
  }

  trace_builder& copy(time_ns start, time_ns end, std::int32_t stream = 7, std::uint16_t process = 0) {
    trace::activity a;
    a.start = start;
    a.end = end;
    a.name = t.strings.intern("Memcpy HtoD (Pageable -> Device)");
    a.kind = trace::activity_kind::memcpy;
    a.copy = trace::copy_kind::host_to_device;
    a.stream = stream;
    a.process = process;
    a.device = 0;
    t.activities.push_back(a);
    return *this;
  }

  trace_builder& range(std::string_view name, time_ns start, time_ns end,
                       trace::range_kind kind = trace::range_kind::cpu_annotation, std::uint16_t process = 0,
                       std::int16_t device = -1) {
    trace::range r;
    r.start = start;
    r.end = end;
    r.name = t.strings.intern(name);
    r.kind = kind;
    r.process = process;
    r.device = device;
    t.ranges.push_back(r);
    return *this;
  }

  trace_builder& launch(time_ns start, std::uint64_t correlation, std::uint16_t process = 0,
                        std::string_view name = "cudaLaunchKernel") {
    trace::api_call c;
    c.start = start;
    c.end = start + 5;
    c.correlation = correlation;
    c.name = t.strings.intern(name);
    c.process = process;
    t.api_calls.push_back(c);
    return *this;
  }
};

}  // namespace headroom::test
