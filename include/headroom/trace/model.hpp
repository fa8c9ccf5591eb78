#pragma once
// The event model every reader fills and every analysis reads. Plain types only: vendor records
// (Kineto JSON objects, Nsight Systems rows, CUPTI records) are converted into these at the edge.
//
// Times are integer nanoseconds on the trace's own clock. Names are interned in one string table
// per trace, so an activity is a few dozen bytes and a multi-GB trace fits in memory.
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace headroom::trace {

using time_ns = std::int64_t;
using string_id = std::uint32_t;

// Interned strings. Ids are dense, starting at 0; id 0 is always the empty string.
class string_table {
 public:
  string_table();
  string_table(const string_table&) = delete;  // views into storage_ must stay valid
  string_table& operator=(const string_table&) = delete;
  string_table(string_table&&) noexcept = default;
  string_table& operator=(string_table&&) noexcept = default;

  string_id intern(std::string_view s);
  std::optional<string_id> find(std::string_view s) const;
  std::string_view operator[](string_id id) const { return views_[id]; }
  std::size_t size() const { return views_.size(); }

 private:
  std::deque<std::string> storage_;
  std::vector<std::string_view> views_;
  std::unordered_map<std::string_view, string_id> index_;
};

enum class activity_kind : std::uint8_t { kernel, memcpy, memset };

enum class copy_kind : std::uint8_t {
  none,  // not a copy
  host_to_device,
  device_to_host,
  device_to_device,
  peer_to_peer,
  host_to_host,
  other,
};

// A kernel, copy or memset that ran on a device.
struct activity {
  time_ns start = 0;
  time_ns end = 0;  // end >= start after reading; readers clamp and warn otherwise
  std::uint64_t correlation = 0;  // links to the api_call that launched it; 0 when unknown
  std::uint64_t bytes = 0;  // copies and memsets
  string_id name = 0;  // kernels: the demangled name when the source has it
  std::int32_t stream = -1;
  std::int16_t device = -1;
  std::uint16_t process = 0;  // index into trace::processes
  activity_kind kind = activity_kind::kernel;
  copy_kind copy = copy_kind::none;
  std::uint32_t graph_node = 0;  // 0: not launched from a CUDA graph; else graph_node_tag(node id)

  time_ns duration() const { return end - start; }
};

// CUDA numbers graph nodes from 0, and 0 here means "not from a graph": a node is stored as its
// id + 1 (low 32 bits).
inline std::uint32_t graph_node_tag(std::uint64_t node_id) { return static_cast<std::uint32_t>(node_id) + 1u; }

// Launch configuration of a kernel, kept apart from activity because analysis does not need it;
// readers fill trace::geometry (parallel to activities) only when read_options::launch_geometry.
struct launch_geometry {
  std::uint32_t grid[3] = {0, 0, 0};
  std::uint32_t block[3] = {0, 0, 0};
  std::uint32_t registers_per_thread = 0;
  std::uint32_t static_shared_bytes = 0;
  std::uint32_t dynamic_shared_bytes = 0;
};

enum class api_kind : std::uint8_t { runtime, driver };

// A host-side CUDA runtime or driver call (cudaLaunchKernel, cudaMemcpyAsync, cuLaunchKernel, ...).
struct api_call {
  time_ns start = 0;
  time_ns end = 0;
  std::uint64_t correlation = 0;
  string_id name = 0;
  std::uint32_t thread = 0;
  std::uint16_t process = 0;
  api_kind kind = api_kind::runtime;
};

// What carrying host ranges onto a device needs of an api call with a correlation id: when it ran
// and what it launched. Readers keep these in trace::launches instead of whole api calls when
// read_options::launch_calls is set and api_calls is not (24 bytes a call instead of 40).
struct launch_call {
  time_ns start = 0;
  std::uint64_t correlation = 0;  // never 0
  string_id name = 0;
  std::uint16_t process = 0;
};

enum class sync_kind : std::uint8_t {
  event_synchronize,  // cudaEventSynchronize: the host waits for an event
  stream_wait_event,  // cudaStreamWaitEvent: a stream waits for an event; the host does not wait
  stream_synchronize,  // cudaStreamSynchronize: the host waits for a stream
  context_synchronize,  // cudaDeviceSynchronize, cuCtxSynchronize: the host waits for the device
  event_record,  // cudaEventRecord: the event marks the work enqueued on `stream` so far; nobody waits
};

// A CUDA synchronisation: where the host waited for the GPU, where one stream waits for work
// another stream recorded in an event, or where that event was recorded. What trace replay needs to
// keep the order the program had.
struct synchronization {
  time_ns start = 0;
  time_ns end = 0;
  std::uint64_t correlation = 0;  // links to the api_call that synchronised (or recorded); 0 when unknown
  std::int64_t event = -1;  // CUDA event id (event record, synchronize, stream wait event); -1 when none
  std::uint32_t context = 0;  // CUDA context id; 0 when unknown
  std::uint32_t thread = 0;  // host thread of the call; 0 when unknown
  std::int32_t stream = -1;  // stream synchronised, made to wait or recorded on; -1 when none
  std::int16_t device = -1;
  std::uint16_t process = 0;
  sync_kind kind = sync_kind::context_synchronize;
  // Event synchronize and stream wait event: the correlation of the cudaEventRecord call whose work
  // is awaited (the event_record row with that correlation says on which stream); 0 when the source
  // did not say.
  std::uint64_t record_correlation = 0;
};

enum class range_kind : std::uint8_t {
  cpu_annotation,  // record_function / user annotations on a host thread (ProfilerStep#N lives here)
  gpu_annotation,  // the same annotation projected on a device's timeline (Kineto gpu_user_annotation)
  nvtx,  // NVTX push/pop or start/end range
  mark,  // an instant (start == end): NVTX mark, Kineto instant event
};

struct range {
  time_ns start = 0;
  time_ns end = 0;
  string_id name = 0;
  std::uint32_t thread = 0;
  std::uint16_t process = 0;
  std::int16_t device = -1;  // gpu_annotation only
  range_kind kind = range_kind::cpu_annotation;
};

struct device_info {
  std::int16_t id = -1;
  std::uint16_t process = 0;  // the process whose trace described it
  std::string name;  // "NVIDIA H200"
  int compute_major = 0;
  int compute_minor = 0;
  int sm_count = 0;
  std::uint64_t memory_bytes = 0;
};

struct process_info {
  std::uint32_t pid = 0;
  std::string name;  // command or file it came from
  std::int32_t rank = -1;  // distributed rank when the trace says so
  std::string host;
};

// What a reader noticed and handled instead of failing: shown to the user, stored with the trace.
// A lost warning says that part of the input could not be read (a file cut short, a damaged
// frame): what the trace holds is then less than what was recorded, and the commands refuse such a
// trace unless told to use what was read (docs/method.md, "Partial input").
struct reader_warning {
  std::string what;
  std::uint64_t count = 1;
  bool lost = false;
};

enum class source_format : std::uint8_t { kineto_json, nsys_sqlite, headroom_store, synthetic };

struct trace {
  string_table strings;
  std::vector<activity> activities;
  std::vector<launch_geometry> geometry;  // empty, or one per activity
  std::vector<api_call> api_calls;
  std::vector<launch_call> launches;  // empty unless read_options::launch_calls (see launch_call)
  std::vector<range> ranges;
  std::vector<synchronization> synchronizations;
  std::vector<device_info> devices;
  std::vector<process_info> processes;
  std::vector<reader_warning> warnings;
  source_format format = source_format::synthetic;
  std::string platform;  // "cuda", "rocm", "mtia" or "" when the trace does not say
  std::uint64_t dropped_records = 0;  // records the profiler said it lost

  // Adds a warning, or bumps the count of an identical one.
  void warn(std::string what);
  // The same for a warning that says what part of the input was lost.
  void lose(std::string what);
  bool partial() const;
};

// Moves `from` into `into`, remapping string ids and process indices (one trace per rank, say).
void append(trace& into, trace&& from);

// Completes synchronisations from the api call (or launch pair) with the same process and
// correlation id: the thread where it is unknown (0; CUPTI's and Kineto's records name none), and
// the time of an event record that has none (start and end 0; CUPTI's CUDA_EVENT records carry no
// host time, Kineto names the recording call only).
void complete_synchronizations(trace& t);

std::string_view to_string(activity_kind k);
std::string_view to_string(copy_kind k);
std::string_view to_string(range_kind k);
std::string_view to_string(sync_kind k);
std::string_view to_string(source_format f);

}  // namespace headroom::trace
