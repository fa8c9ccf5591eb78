#pragma once
// CUPTI activity records -> headroom events, written to an event stream. Pure conversion: nothing
// here calls into libcupti, so it is tested on the CPU with records filled in by hand. The live
// session (cupti_session) walks CUPTI's buffers and hands each record to activity_converter.
//
// Struct versions are those of the CUPTI headers this is compiled against (CUDA 13.0:
// CUPTI_API_VERSION 130001). CUPTI fills the version matching the headers the client was built
// with, so a newer toolkit needs only the aliases below moved on.
#include <cupti.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "headroom/trace/event_stream.hpp"
#include "headroom/trace/model.hpp"
#include "kernel_name_cache.hpp"

namespace headroom::cupti {

using kernel_record = CUpti_ActivityKernel10;  // CONCURRENT_KERNEL (and KERNEL, never enabled)
using memcpy_record = CUpti_ActivityMemcpy6;  // MEMCPY
using peer_copy_record = CUpti_ActivityMemcpyPtoP4;  // MEMCPY2
using memset_record = CUpti_ActivityMemset4;  // MEMSET
using api_record = CUpti_ActivityAPI;  // RUNTIME, DRIVER
using marker_record = CUpti_ActivityMarker2;  // MARKER (NVTX)
using overhead_record = CUpti_ActivityOverhead3;  // OVERHEAD
using device_record = CUpti_ActivityDevice5;  // DEVICE
using sync_record = CUpti_ActivitySynchronization2;  // SYNCHRONIZATION (version 1 deprecated in 12.8)
using cuda_event_record = CUpti_ActivityCudaEvent2;  // CUDA_EVENT: where cudaEventRecord recorded an event

// The name of an API callback; the live session wraps cuptiGetCallbackName. Empty when unknown.
using callback_name_fn = std::function<std::string_view(CUpti_CallbackDomain, CUpti_CallbackId)>;

// CUPTI's copy direction as ours: arrays count as device memory.
trace::copy_kind to_copy_kind(std::uint8_t cupti_copy_kind);

// "Memcpy HtoD (Pageable -> Device)", "Memset (Device)": the names torch.profiler gives copies, so
// traces from either profiler read alike.
std::string copy_name(std::uint8_t cupti_copy_kind, std::uint8_t src_memory_kind, std::uint8_t dst_memory_kind);
std::string memset_name(std::uint16_t memory_kind);

// CUPTI's synchronisation type as ours; nothing for CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN.
std::optional<trace::sync_kind> to_sync_kind(CUpti_ActivitySynchronizationType type);

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel": the spelling other traces use for the call.
std::string_view without_version_suffix(std::string_view callback_name);

// Counts of what went where, for the session's summary line.
struct conversion_counts {
  std::uint64_t kernels = 0;
  std::uint64_t copies = 0;
  std::uint64_t memsets = 0;
  std::uint64_t api_calls = 0;
  std::uint64_t ranges = 0;  // NVTX ranges and marks
  std::uint64_t synchronizations = 0;
  std::uint64_t devices = 0;
  std::uint64_t overhead_records = 0;
  std::uint64_t untimed = 0;  // activities CUPTI could not time, skipped
  std::uint64_t unconverted = 0;  // records of kinds not converted
  std::uint64_t unpaired_marker_ends = 0;
};

// Converts records one at a time, keeping what spans records: open NVTX ranges (a start and its
// end may arrive in different buffers), the API-name and kernel-name caches. Not thread-safe; the
// session calls it from one buffer-completion callback at a time. Never throws.
class activity_converter {
 public:
  activity_converter(trace::event_stream_writer& out, callback_name_fn callback_name);

  void convert(const CUpti_Activity& record) noexcept;
  // From cuptiActivityGetNumDroppedRecords after each buffer.
  void add_dropped(std::uint64_t records) noexcept;
  // End of profiling: NVTX ranges still open are reported, then the stream is flushed.
  void finish() noexcept;

  const conversion_counts& counts() const { return counts_; }

 private:
  void kernel(const kernel_record& r);
  void copy(const memcpy_record& r);
  void peer_copy(const peer_copy_record& r);
  template <class Record>
  void any_copy(const Record& r);
  void memset(const memset_record& r);
  void api(const api_record& r, trace::api_kind kind);
  void marker(const marker_record& r);
  void overhead(const overhead_record& r);
  void device(const device_record& r);
  void synchronization(const sync_record& r);
  void cuda_event(const cuda_event_record& r);
  void learn_context(std::uint32_t context, std::uint32_t device);
  void write_synchronization(trace::synchronization y, std::uint32_t context);
  void unconverted(CUpti_ActivityKind kind, std::string_view why);
  bool untimed(std::uint64_t start, std::uint64_t end);
  trace::string_id api_name(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);
  trace::string_id kernel_name(const char* name);

  struct open_range {
    trace::time_ns start = 0;
    trace::string_id name = 0;
    std::uint32_t thread = 0;
  };

  trace::event_stream_writer& out_;
  callback_name_fn callback_name_;
  std::unordered_map<std::uint64_t, trace::string_id> api_names_;  // (domain << 32 | cbid)
  kernel_name_cache kernel_names_;
  std::unordered_map<std::uint32_t, open_range> open_ranges_;  // NVTX marker id -> its start
  std::unordered_set<std::uint32_t> unconverted_kinds_;  // warned about once each
  // Synchronisation records carry a context, not a device; device records (kernels, copies,
  // memsets) teach which device a context is on. A synchronisation whose context has not been
  // seen yet waits here (buffers complete in any order) until it is, or until finish().
  std::unordered_map<std::uint32_t, std::int16_t> context_devices_;
  std::optional<std::uint32_t> last_context_;  // the context of the last device record (known)
  std::vector<std::pair<trace::synchronization, std::uint32_t>> waiting_for_context_;
  // cudaEventSyncId of each event record -> the correlation of its cudaEventRecord call, for the
  // synchronisations that wait for it (bounded: cleared when full; a wait whose record was cleared
  // or comes later keeps record correlation 0, and replay finds the record by event id).
  std::unordered_map<std::uint64_t, std::uint32_t> record_of_sync_id_;
  conversion_counts counts_;
};

}  // namespace headroom::cupti
