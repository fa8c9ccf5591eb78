#include "profile_settings.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <fstream>
#include <optional>
#include <utility>

#include <fmt/format.h>

namespace headroom::cupti {
namespace {

constexpr std::array<std::pair<std::string_view, profile_kind>, 8> kind_names = {{
    {"kernel", profile_kind::kernel},
    {"memcpy", profile_kind::memcpy},
    {"memset", profile_kind::memset},
    {"runtime", profile_kind::runtime},
    {"driver", profile_kind::driver},
    {"nvtx", profile_kind::nvtx},
    {"overhead", profile_kind::overhead},
    {"sync", profile_kind::sync},
}};

// Flush periods outside this range either spin the flush thread or leave a quiet process's records
// unflushed for so long that a kill loses most of them.
constexpr std::int64_t min_flush_ms = 10;
constexpr std::int64_t max_flush_ms = 60'000;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::optional<std::int64_t> parse_integer(std::string_view text) {
  text = trim(text);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// A variable that picks one of two values by name (case and surrounding spaces ignored): unset or
// empty is the usual one; any other text is the usual one too, with a problem line saying what
// `otherwise` does then.
template <class T>
struct named {
  std::string_view name;
  T value;
};
template <class T>
T choose(const env_lookup& env, const char* variable, named<T> usual, named<T> other, std::string_view otherwise,
         std::vector<std::string>& problems) {
  const char* text = env(variable);
  if (text == nullptr) return usual.value;
  const auto value = lower(trim(text));
  if (value == lower(other.name)) return other.value;
  if (!value.empty() && value != lower(usual.name)) {
    problems.push_back(
        fmt::format("{}='{}' is not '{}' or '{}'; {}", variable, text, usual.name, other.name, otherwise));
  }
  return usual.value;
}

bool has(std::uint32_t kinds, profile_kind k) { return (kinds & static_cast<std::uint32_t>(k)) != 0; }

}  // namespace

std::uint32_t parse_profile_kinds(std::string_view list, std::vector<std::string>& problems) {
  if (trim(list).empty()) return all_profile_kinds;
  std::uint32_t kinds = 0;
  while (!list.empty()) {
    const auto comma = list.find(',');
    const auto item = lower(trim(list.substr(0, comma)));
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    if (item.empty()) continue;
    if (item == "all") {
      kinds = all_profile_kinds;
      continue;
    }
    const auto* known =
        std::find_if(kind_names.begin(), kind_names.end(), [&](const auto& k) { return k.first == item; });
    if (known == kind_names.end()) {
      problems.push_back(
          fmt::format("HEADROOM_PROFILE_KINDS: unknown kind '{}' ignored (known: kernel, memcpy, "
                      "memset, runtime, driver, nvtx, overhead, sync)",
                      item));
      continue;
    }
    kinds |= static_cast<std::uint32_t>(known->second);
  }
  if (kinds == 0) {
    problems.push_back("HEADROOM_PROFILE_KINDS named no known kind; recording all kinds");
    return all_profile_kinds;
  }
  return kinds;
}

profile_settings settings_from_env(const env_lookup& env) {
  profile_settings s;
  if (const char* dir = env("HEADROOM_PROFILE_DIR"); dir && *dir) s.dir = dir;
  if (const char* kinds = env("HEADROOM_PROFILE_KINDS")) s.kinds = parse_profile_kinds(kinds, s.problems);
  s.api = choose<api_calls>(env, "HEADROOM_PROFILE_API", {"launches", api_calls::launches}, {"all", api_calls::all},
                            "leaving out the query calls", s.problems);
  s.capture = choose<capture_range>(env, "HEADROOM_PROFILE_CAPTURE", {"whole", capture_range::whole},
                                    {"cudaProfilerApi", capture_range::profiler_api}, "recording the whole process",
                                    s.problems);
  s.end = choose<capture_end>(env, "HEADROOM_PROFILE_CAPTURE_END", {"repeat", capture_end::repeat},
                              {"stop", capture_end::stop}, "each cudaProfilerStop ends one range", s.problems);
  if (s.end == capture_end::stop && s.capture != capture_range::profiler_api) {
    s.problems.emplace_back(
        "HEADROOM_PROFILE_CAPTURE_END=stop needs HEADROOM_PROFILE_CAPTURE=cudaProfilerApi; "
        "recording the whole process");
    s.end = capture_end::repeat;
  }
  s.zeroing = choose<buffer_zeroing>(env, "HEADROOM_PROFILE_ZEROING", {"pool", buffer_zeroing::pool},
                                     {"cupti", buffer_zeroing::cupti}, "the pool clears the buffers", s.problems);
  s.timestamps =
      choose<timestamp_memory>(env, "HEADROOM_PROFILE_TIMESTAMPS", {"device", timestamp_memory::device},
                               {"pinned", timestamp_memory::pinned}, "timestamps go to device memory", s.problems);
  s.api_records =
      choose<api_recorder>(env, "HEADROOM_PROFILE_API_RECORDS", {"activity", api_recorder::activity},
                           {"callback", api_recorder::callback}, "CUPTI's activity records them", s.problems);
  s.api_enable = choose<api_enabling>(env, "HEADROOM_PROFILE_API_ENABLE", {"kind", api_enabling::kind},
                                      {"calls", api_enabling::calls}, "the whole kind is enabled", s.problems);
  s.threads = choose<thread_ids>(env, "HEADROOM_PROFILE_THREAD_IDS", {"system", thread_ids::system},
                                 {"pthread", thread_ids::pthread}, "records carry OS thread ids", s.problems);
  if (s.api_enable == api_enabling::calls && s.capture == capture_range::profiler_api) {
    // Seen on the H200 (docs/profiler.md, "Environment"): enabled call by call at cudaProfilerStart,
    // after the context exists, CUPTI recorded no API call at all.
    s.problems.emplace_back(
        "HEADROOM_PROFILE_API_ENABLE=calls records no API call inside a capture range; "
        "the whole kinds are enabled instead");
    s.api_enable = api_enabling::kind;
  }

  if (const char* text = env("HEADROOM_PROFILE_FLUSH_MS")) {
    const auto ms = parse_integer(text);
    if (!ms || *ms <= 0) {
      s.problems.push_back(fmt::format("HEADROOM_PROFILE_FLUSH_MS='{}' is not a positive integer; using {} ms", text,
                                       s.flush_period.count()));
    } else {
      const auto clamped = std::clamp(*ms, min_flush_ms, max_flush_ms);
      if (clamped != *ms) {
        s.problems.push_back(fmt::format("HEADROOM_PROFILE_FLUSH_MS={} is outside [{}, {}]; using {} ms", *ms,
                                         min_flush_ms, max_flush_ms, clamped));
      }
      s.flush_period = std::chrono::milliseconds(clamped);
    }
  }

  if (const char* text = env("HEADROOM_PROFILE_BUFFER_MB")) {
    const auto mb = parse_integer(text);
    // 64 GiB of host buffers is more than any process should hand a profiler.
    if (!mb || *mb <= 0 || *mb > 65536) {
      s.problems.push_back(fmt::format("HEADROOM_PROFILE_BUFFER_MB='{}' is not an integer in [1, 65536]; using {} MB",
                                       text, s.buffer_pool_bytes >> 20));
    } else {
      s.buffer_pool_bytes = static_cast<std::size_t>(*mb) << 20;
    }
  }
  // A pool smaller than one buffer is one smaller buffer.
  s.buffer_bytes = std::min(s.buffer_bytes, s.buffer_pool_bytes);

  for (const char* name : {"RANK", "LOCAL_RANK"}) {
    const char* text = env(name);
    if (!text) continue;
    if (const auto rank = parse_integer(text); rank && *rank >= 0 && *rank <= INT32_MAX) {
      s.rank = static_cast<std::int32_t>(*rank);
      break;
    }
  }
  return s;
}

std::vector<CUpti_ActivityKind> activity_kinds(std::uint32_t kinds) {
  std::vector<CUpti_ActivityKind> out{CUPTI_ACTIVITY_KIND_DEVICE};
  if (has(kinds, profile_kind::kernel)) out.push_back(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (has(kinds, profile_kind::memcpy)) {
    out.push_back(CUPTI_ACTIVITY_KIND_MEMCPY);
    out.push_back(CUPTI_ACTIVITY_KIND_MEMCPY2);  // peer-to-peer copies
  }
  if (has(kinds, profile_kind::memset)) out.push_back(CUPTI_ACTIVITY_KIND_MEMSET);
  if (has(kinds, profile_kind::runtime)) out.push_back(CUPTI_ACTIVITY_KIND_RUNTIME);
  if (has(kinds, profile_kind::driver)) out.push_back(CUPTI_ACTIVITY_KIND_DRIVER);
  if (has(kinds, profile_kind::nvtx)) out.push_back(CUPTI_ACTIVITY_KIND_MARKER);
  if (has(kinds, profile_kind::overhead)) out.push_back(CUPTI_ACTIVITY_KIND_OVERHEAD);
  if (has(kinds, profile_kind::sync)) {
    out.push_back(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
    out.push_back(CUPTI_ACTIVITY_KIND_CUDA_EVENT);  // where each event was recorded, for stream waits
  }
  return out;
}

bool is_query_api(std::string_view name) {
  // Prefixes of calls that only read or set host-side state. A launch, copy, memset, allocation,
  // event, stream, graph or synchronisation call matches none of them.
  static constexpr std::string_view prefixes[] = {
      "cudaGetDevice",
      "cudaGetLastError",
      "cudaPeekAtLastError",
      "cudaSetDevice",
      "cudaStreamIsCapturing",
      "cudaStreamGetCaptureInfo",
      "cudaDeviceGetAttribute",
      "cudaPointerGetAttributes",
      "cudaFuncGet",
      "cudaOccupancy",
      "cudaDriverGetVersion",
      "cudaRuntimeGetVersion",
      "cudaThreadExchangeStreamCaptureMode",
      "cudaGetDriverEntryPoint",
      "cudaGetFuncBySymbol",
      "cudaGetErrorString",
      "cudaGetErrorName",
      "cuCtxGetCurrent",
      "cuCtxSetCurrent",
      "cuCtxGetDevice",
      "cuDeviceGet",
      "cuDevicePrimaryCtxGetState",
      "cuGetProcAddress",
      "cuPointerGetAttribute",
      "cuStreamIsCapturing",
      "cuStreamGetCaptureInfo",
      "cuFuncGet",
      "cuKernelGet",
      "cuLibraryGet",
      "cuModuleGet",
      "cuGetErrorString",
      "cuGetErrorName",
      "cuOccupancy",
      "cuDriverGetVersion",
      "cuThreadExchangeStreamCaptureMode",
      "cuCtxGetStreamPriorityRange",
  };
  // cudaGetDevice also covers cudaGetDeviceCount and cudaGetDeviceProperties; cuDeviceGet covers
  // cuDeviceGetAttribute and cuDeviceGetName; cuKernelGet covers cuKernelGetAttribute and
  // cuKernelGetName, which came with every runtime kernel launch while kernels were recorded (38 of
  // DLRM inference's 90 recorded calls a step, bench/RESULTS.md, "Profiler overhead"). Polling calls
  // (cudaStreamQuery, cudaEventQuery) stay: they are how a program waits without blocking.
  return std::any_of(std::begin(prefixes), std::end(prefixes),
                     [&](std::string_view p) { return name.substr(0, p.size()) == p; });
}

std::string process_command_line(std::size_t limit) {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  if (!in) return {};
  std::string text(limit, '\0');
  in.read(text.data(), static_cast<std::streamsize>(limit));
  text.resize(static_cast<std::size_t>(in.gcount()));
  while (!text.empty() && text.back() == '\0') text.pop_back();
  std::replace(text.begin(), text.end(), '\0', ' ');
  return text;
}

}  // namespace headroom::cupti
