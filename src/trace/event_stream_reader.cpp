// The event stream's reader: the file mapped, frames checked one by one, a damaged or cut frame
// skipped with a lost warning (docs/method.md, "Partial input"), records turned into a trace.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "event_stream_format.hpp"
#include "headroom/trace/event_stream.hpp"
#include "headroom/util/error.hpp"

namespace headroom::trace {

using namespace stream_format;

namespace {

class mapped_file {
 public:
  explicit mapped_file(const std::filesystem::path& path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw input_error(fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
    struct stat st {};
    if (::fstat(fd_, &st) != 0)
      throw input_error(fmt::format("{}: cannot stat: {}", path.string(), std::strerror(errno)));
    size_ = static_cast<std::size_t>(st.st_size);
    if (size_ == 0) return;
    void* m = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
    if (m == MAP_FAILED) throw input_error(fmt::format("{}: cannot map: {}", path.string(), std::strerror(errno)));
    data_ = static_cast<const unsigned char*>(m);
  }
  ~mapped_file() {
    if (data_) ::munmap(const_cast<unsigned char*>(data_), size_);
    if (fd_ >= 0) ::close(fd_);
  }
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  const unsigned char* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  int fd_ = -1;
  const unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
};

class stream_reader {
 public:
  stream_reader(const std::filesystem::path& path, const read_options& options)
      : path_(path), options_(options), file_(path) {}

  trace read(event_stream_counters* counters) {
    const std::size_t body = read_header();
    read_frames(body);
    finish();
    if (counters) *counters = counters_;
    return std::move(t_);
  }

 private:
  [[noreturn]] void bad(std::string_view what) const { throw input_error(fmt::format("{}: {}", path_.string(), what)); }

  std::size_t read_header() {
    const auto* d = file_.data();
    const auto n = file_.size();
    if (n == 0) bad("empty file (the profiled process wrote no events)");
    if (std::memcmp(d, stream_magic, std::min(n, sizeof stream_magic)) != 0)
      bad("not a headroom event stream (bad magic)");
    if (n < header_fixed_bytes + 12) bad(fmt::format("truncated header ({} bytes)", n));
    const auto version = get<std::uint16_t>(d + 8);
    if (version == 0) bad("format version 0 is not valid");
    if (version > event_stream_version) {
      bad(fmt::format("written by a newer headroom (event stream format version {}; this build reads up to {})",
                      version, event_stream_version));
    }
    const auto header_bytes = get<std::uint32_t>(d + 12);
    if (header_bytes < header_fixed_bytes + 12 || header_bytes > n)
      bad(fmt::format("header length {} is out of range", header_bytes));
    const auto crc = header_crc(d, header_bytes - 4);
    if (static_cast<std::uint32_t>(crc) != get<std::uint32_t>(d + header_bytes - 4)) bad("header checksum mismatch");

    process_info p;
    p.pid = get<std::uint32_t>(d + 16);
    p.rank = get<std::int32_t>(d + 20);
    std::size_t at = header_fixed_bytes;
    const auto text = [&](std::string& into) {
      const auto len = get<std::uint32_t>(d + at);
      at += 4;
      if (len > header_bytes - 4 - at) bad("header string runs past the header");
      into.assign(reinterpret_cast<const char*>(d + at), len);
      at += len;
    };
    text(p.name);
    if (at + 8 > header_bytes) bad("header string runs past the header");
    text(p.host);
    t_.processes.push_back(std::move(p));
    t_.format = source_format::headroom_store;  // the launcher keeps it as a store; no stream value yet
    t_.platform = "cuda";
    return header_bytes;
  }

  // A whole, intact frame at `at`: its payload length, or nothing.
  std::optional<std::size_t> frame_at(std::size_t at) const {
    const auto* d = file_.data();
    const auto n = file_.size();
    if (n - at < frame_header_bytes || std::memcmp(d + at, frame_sync, 4) != 0) return std::nullopt;
    const auto len = get<std::uint32_t>(d + at + 4);
    if (len > max_frame_payload || len > n - at - frame_header_bytes) return std::nullopt;
    if (frame_crc(d + at + 4, d + at + frame_header_bytes, len) != get<std::uint32_t>(d + at + 8)) return std::nullopt;
    return len;
  }

  void read_frames(std::size_t at) {
    const auto n = file_.size();
    while (at < n) {
      if (auto len = frame_at(at)) {
        read_payload(file_.data() + at + frame_header_bytes, *len, at);
        at += frame_header_bytes + *len;
        continue;
      }
      // Damaged: find the next intact frame. None means a torn tail, the usual end of a killed process.
      std::size_t next = at + 1;
      for (; next + frame_header_bytes <= n; ++next) {
        const auto* hit = static_cast<const unsigned char*>(std::memchr(file_.data() + next, frame_sync[0], n - next));
        if (!hit) {
          next = n;
          break;
        }
        next = static_cast<std::size_t>(hit - file_.data());
        if (frame_at(next)) break;
      }
      if (next + frame_header_bytes > n) {
        t_.lose(
            fmt::format("{}: the last {} bytes (from byte {}) are an incomplete or damaged frame (a process "
                        "stopped mid-write leaves one); they were dropped",
                        path_.filename().string(), n - at, at));
        return;
      }
      t_.lose(fmt::format("{}: bytes {} to {} are damaged (checksum or framing); that frame was skipped",
                          path_.filename().string(), at, next));
      at = next;
    }
  }

  string_id name(std::uint32_t stream_id) {
    if (stream_id < names_.size() && names_[stream_id] != undefined) return names_[stream_id];
    if (stream_id == 0) return 0;
    t_.lose("a record names a string whose definition was lost with a damaged frame; it reads as \"\"");
    return 0;
  }

  void add_warning(std::string what, std::uint64_t count) {
    for (auto& w : t_.warnings) {
      if (w.what == what) {
        w.count += count;
        return;
      }
    }
    t_.warnings.push_back({std::move(what), count});
  }

  void read_payload(const unsigned char* p, std::size_t len, std::size_t frame_offset) {
    const unsigned char* end = p + len;
    last_activity_ = false;
    while (p < end) {
      if (end - p < 4) {
        t_.lose(fmt::format("frame at byte {} ends inside a record tag; the rest of it was skipped", frame_offset));
        return;
      }
      const auto tag = get<std::uint32_t>(p);
      const auto kind = static_cast<std::uint8_t>(tag & 0xff);
      const std::size_t size = tag >> 8;
      p += 4;
      if (size > static_cast<std::size_t>(end - p)) {
        t_.lose(fmt::format("frame at byte {} has a record longer than the frame; the rest of it was skipped",
                            frame_offset));
        return;
      }
      read_record(kind, p, size);
      if (kind != rec_activity) last_activity_ = false;
      p += size;
    }
  }

  // Bodies longer than this version's layout carry fields added later in the same version; shorter
  // ones are damage.
  bool fits(std::size_t size, std::size_t need, std::string_view what) {
    if (size >= need) return true;
    t_.lose(fmt::format("a {} record is shorter than its layout; it was skipped", what));
    return false;
  }

  void read_record(std::uint8_t kind, const unsigned char* b, std::size_t size) {
    switch (kind) {
      case rec_string: {
        if (!fits(size, 4, "string")) return;
        const auto id = get<std::uint32_t>(b);
        if (id == 0 || id > (1u << 28)) {
          t_.warn("a string definition has an id out of range; it was skipped");
          return;
        }
        if (names_.size() <= id) names_.resize(id + 1, undefined);
        names_[id] = t_.strings.intern(std::string_view(reinterpret_cast<const char*>(b + 4), size - 4));
        return;
      }
      case rec_activity: {
        if (!fits(size, activity_body, "activity")) return;
        activity a;
        a.start = get<std::int64_t>(b);
        a.end = get<std::int64_t>(b + 8);
        a.correlation = get<std::uint64_t>(b + 16);
        a.bytes = get<std::uint64_t>(b + 24);
        a.name = name(get<std::uint32_t>(b + 32));
        a.stream = get<std::int32_t>(b + 36);
        a.device = get<std::int16_t>(b + 40);
        const auto k = get<std::uint8_t>(b + 42);
        if (k > static_cast<std::uint8_t>(activity_kind::memset)) {
          t_.warn("an activity of an unknown kind was skipped");
          last_activity_ = false;
          return;
        }
        a.kind = static_cast<activity_kind>(k);
        const auto c = get<std::uint8_t>(b + 43);
        a.copy = c > static_cast<std::uint8_t>(copy_kind::other) ? copy_kind::other : static_cast<copy_kind>(c);
        a.graph_node = get<std::uint32_t>(b + 44);
        if (a.end < a.start) {
          t_.warn("an activity ends before it starts; its end was set to its start");
          a.end = a.start;
        }
        t_.activities.push_back(a);
        last_activity_ = true;
        return;
      }
      case rec_geometry: {
        if (!fits(size, geometry_body, "launch geometry")) return;
        if (!last_activity_) {
          t_.warn("a launch geometry record follows no activity; it was skipped");
          return;
        }
        last_activity_ = false;
        if (!options_.launch_geometry) return;
        launch_geometry g;
        for (int i = 0; i < 3; ++i) g.grid[i] = get<std::uint32_t>(b + 4 * i);
        for (int i = 0; i < 3; ++i) g.block[i] = get<std::uint32_t>(b + 12 + 4 * i);
        g.registers_per_thread = get<std::uint32_t>(b + 24);
        g.static_shared_bytes = get<std::uint32_t>(b + 28);
        g.dynamic_shared_bytes = get<std::uint32_t>(b + 32);
        t_.geometry.resize(t_.activities.size());
        t_.geometry.back() = g;
        return;
      }
      case rec_api_call: {
        if (!fits(size, api_call_body, "API call")) return;
        api_call c;
        c.start = get<std::int64_t>(b);
        c.end = get<std::int64_t>(b + 8);
        c.correlation = get<std::uint64_t>(b + 16);
        c.name = name(get<std::uint32_t>(b + 24));
        c.thread = get<std::uint32_t>(b + 28);
        c.kind = get<std::uint8_t>(b + 32) == static_cast<std::uint8_t>(api_kind::driver) ? api_kind::driver
                                                                                          : api_kind::runtime;
        if (c.end < c.start) {
          t_.warn("an API call ends before it starts; its end was set to its start");
          c.end = c.start;
        }
        if (options_.api_calls) {
          t_.api_calls.push_back(c);
        } else if (options_.launch_calls && c.correlation != 0) {
          pending_launches_.push_back({c.start, c.correlation, c.name, 0});
        }
        return;
      }
      case rec_range: {
        if (!fits(size, range_body, "range")) return;
        if (!options_.ranges) return;
        range r;
        r.start = get<std::int64_t>(b);
        r.end = get<std::int64_t>(b + 8);
        r.name = name(get<std::uint32_t>(b + 16));
        r.thread = get<std::uint32_t>(b + 20);
        r.device = get<std::int16_t>(b + 24);
        const auto k = get<std::uint8_t>(b + 26);
        r.kind = k > static_cast<std::uint8_t>(range_kind::mark) ? range_kind::nvtx : static_cast<range_kind>(k);
        if (r.end < r.start) {
          t_.warn("a range ends before it starts; its end was set to its start");
          r.end = r.start;
        }
        t_.ranges.push_back(r);
        return;
      }
      case rec_synchronization: {
        if (!fits(size, synchronization_body, "synchronization")) return;
        synchronization y;
        y.start = get<std::int64_t>(b);
        y.end = get<std::int64_t>(b + 8);
        y.correlation = get<std::uint64_t>(b + 16);
        y.event = get<std::int64_t>(b + 24);
        y.context = get<std::uint32_t>(b + 32);
        y.thread = get<std::uint32_t>(b + 36);
        y.stream = get<std::int32_t>(b + 40);
        y.device = get<std::int16_t>(b + 44);
        if (size >= synchronization_body_with_record) y.record_correlation = get<std::uint64_t>(b + 48);
        const auto k = get<std::uint8_t>(b + 46);
        if (k > static_cast<std::uint8_t>(sync_kind::event_record)) {
          t_.warn("a synchronization of an unknown kind was skipped");
          return;
        }
        y.kind = static_cast<sync_kind>(k);
        if (y.end < y.start) {
          t_.warn("a synchronization ends before it starts; its end was set to its start");
          y.end = y.start;
        }
        t_.synchronizations.push_back(y);
        return;
      }
      case rec_device: {
        if (!fits(size, device_body, "device")) return;
        device_info d;
        d.id = get<std::int16_t>(b);
        d.compute_major = get<std::int32_t>(b + 4);
        d.compute_minor = get<std::int32_t>(b + 8);
        d.sm_count = get<std::int32_t>(b + 12);
        d.memory_bytes = get<std::uint64_t>(b + 16);
        d.name = std::string(t_.strings[name(get<std::uint32_t>(b + 24))]);
        // A device seen again (a second context on it) is described once.
        for (const auto& known : t_.devices) {
          if (known.id == d.id) return;
        }
        t_.devices.push_back(std::move(d));
        return;
      }
      case rec_warning: {
        if (!fits(size, 8, "warning")) return;
        add_warning(std::string(reinterpret_cast<const char*>(b + 8), size - 8), get<std::uint64_t>(b));
        return;
      }
      case rec_counter: {
        if (!fits(size, counter_body, "counter")) return;
        const auto v = get<std::uint64_t>(b + 4);
        switch (static_cast<event_counter>(get<std::uint32_t>(b))) {
          case event_counter::dropped_records:
            counters_.dropped_records += v;
            break;
          case event_counter::overhead_records:
            counters_.overhead_records += v;
            break;
          case event_counter::overhead_ns:
            counters_.overhead_ns += v;
            break;
          case event_counter::unconverted_records:
            counters_.unconverted_records += v;
            break;
          case event_counter::untimed_records:
            counters_.untimed_records += v;
            break;
          default:
            ++unknown_records_;
            break;
        }
        return;
      }
      default:
        ++unknown_records_;
        return;
    }
  }

  void finish() {
    if (!t_.geometry.empty()) t_.geometry.resize(t_.activities.size());
    if (!pending_launches_.empty()) {
      // Every API call has a correlation id; a launch pair is one whose id an activity carries.
      std::vector<std::uint64_t> launched;
      launched.reserve(t_.activities.size());
      for (const auto& a : t_.activities) {
        if (a.correlation != 0) launched.push_back(a.correlation);
      }
      std::sort(launched.begin(), launched.end());
      for (const auto& l : pending_launches_) {
        if (std::binary_search(launched.begin(), launched.end(), l.correlation)) t_.launches.push_back(l);
      }
    }
    // CUPTI's synchronisation records name no thread, its event records no time; their calls do.
    complete_synchronizations(t_);
    t_.dropped_records = counters_.dropped_records;
    if (counters_.untimed_records) {
      add_warning(fmt::format("{} activities without timestamps (the profiler could not collect them) were skipped",
                              counters_.untimed_records),
                  1);
    }
    if (counters_.unconverted_records) {
      add_warning(fmt::format("{} profiler records of kinds headroom does not convert were skipped",
                              counters_.unconverted_records),
                  1);
    }
    if (unknown_records_) {
      add_warning(
          fmt::format("{} records of kinds this build does not know (written by a newer headroom?) were skipped",
                      unknown_records_),
          1);
    }
  }

  static constexpr string_id undefined = std::numeric_limits<string_id>::max();

  std::filesystem::path path_;
  read_options options_;
  mapped_file file_;
  trace t_;
  event_stream_counters counters_;
  std::vector<string_id> names_ = {0};  // stream string id -> trace string id
  std::vector<launch_call> pending_launches_;
  std::uint64_t unknown_records_ = 0;
  bool last_activity_ = false;
};

}  // namespace

trace read_event_stream(const std::filesystem::path& path, const read_options& options,
                        event_stream_counters* counters) {
  return stream_reader(path, options).read(counters);
}

}  // namespace headroom::trace
