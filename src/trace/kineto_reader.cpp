// The streamed Kineto JSON reader: chunks in, complete events out, batches parsed by simdjson.
//
// The buffer holds one chunk plus whatever part of an event the previous chunk cut; it grows only
// when a single value is larger than a chunk, so memory does not follow the file's size. A batch
// of complete events is parsed in place as one array: the byte before the first event (a ',' or
// '[' already consumed) becomes '[' and the byte after the last becomes ']' for the duration.
#include <algorithm>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <simdjson.h>

#include "byte_source.hpp"
#include "headroom/trace/kineto.hpp"
#include "headroom/util/error.hpp"
#include "json_scan.hpp"
#include "kineto_event.hpp"

namespace headroom::trace {
namespace {

namespace ondemand = simdjson::ondemand;
using detail::scan_status;

// Room after the data: simdjson reads up to SIMDJSON_PADDING bytes past a document, and the batch
// trick writes one byte past the last event.
constexpr std::size_t padding = simdjson::SIMDJSON_PADDING + 16;
// One byte before the data, so a batch starting at the first byte still has a byte to become '['.
constexpr std::size_t prefix = 1;
// A single value larger than this is not a trace we can hold to a bound.
constexpr std::size_t max_value_bytes = std::size_t{1} << 30;

enum class doc_state {
  before_root,
  root_first_key,  // after '{'
  root_key,  // after ','
  root_colon,
  root_value,
  root_after_value,
  events_first,  // after '['
  events_element,
  events_separator,
  done,
  trailing,  // garbage after the document, already warned about
};

class kineto_stream_reader {
 public:
  kineto_stream_reader(detail::byte_source& source, std::string origin, const read_options& options,
                       const kineto_tuning& tuning)
      : source_(source), origin_(std::move(origin)), options_(options), tuning_(tuning), mapper_(out_, options) {
    chunk_ = std::max<std::size_t>(tuning.chunk_bytes, 64);
    batch_limit_ = std::max<std::size_t>(tuning.batch_bytes, 1);
    allocate(prefix + chunk_ + padding);
  }

  trace run() {
    bool eof = false;
    while (!eof) {
      eof = !fill();
      try {
        process(eof);
      } catch (const input_error&) {
        // Inflating damaged gzip data can emit garbage before zlib notices; if the stream turns out
        // damaged, the bad JSON is the damage, and what came before it stands.
        if (!source_.compressed() || !stream_is_damaged()) throw;
        damaged_ = true;
        break;
      }
      reserve_ahead();
      report_progress();
    }
    finish();
    return std::move(out_);
  }

 private:
  // Moves the unconsumed tail to the front and reads a chunk after it. False at the end of input.
  bool fill() {
    const std::size_t keep = len_ - pos_;
    if (pos_ > prefix) {
      std::memmove(buf_.get() + prefix, buf_.get() + pos_, keep);
      base_ += pos_ - prefix;
      pos_ = prefix;
      len_ = prefix + keep;
    }
    // A value longer than a chunk: grow so that a full chunk still fits after it.
    if (cap_ - padding - len_ < chunk_ / 2) {
      if (keep > max_value_bytes) {
        throw input_error(fmt::format("{}: a single JSON value at byte {} is larger than {} MB", origin_, base_,
                                      max_value_bytes >> 20));
      }
      grow(std::max(cap_ * 2, len_ + chunk_ + padding));
    }
    const std::size_t got = source_.read(buf_.get() + len_, cap_ - padding - len_);
    // Zeros after the data keep simdjson's read-ahead and the scanner's look-ahead defined.
    std::memset(buf_.get() + len_ + got, 0, std::min(padding, cap_ - len_ - got));
    len_ += got;
    json_bytes_ += got;
    return got != 0;
  }

  // Grows the record vectors to the size the trace is projected to reach from the share of the
  // input read so far, instead of letting them double: a doubling copies the vector and holds both
  // copies for a moment, which on a multi-GB trace is the reader's peak memory. Reserved pages that
  // are never written cost address space only.
  void reserve_ahead() {
    const std::uint64_t done = source_.consumed();
    const std::uint64_t all = source_.total();
    if (done == 0 || all <= done) return;
    reserve_for(out_.activities, done, all);
    reserve_for(out_.geometry, done, all);
    reserve_for(out_.api_calls, done, all);
    reserve_for(out_.launches, done, all);
    reserve_for(out_.ranges, done, all);
  }

  template <class T>
  void reserve_for(std::vector<T>& v, std::uint64_t done, std::uint64_t all) const {
    if (v.empty()) return;
    const double per_byte = static_cast<double>(v.size()) / static_cast<double>(done);
    // Enough for the next two chunks at the density so far, else the whole input with a quarter spare.
    const std::size_t next = v.size() + static_cast<std::size_t>(per_byte * 2.0 * static_cast<double>(chunk_)) + 64;
    if (v.capacity() >= next) return;
    const auto projected = static_cast<std::size_t>(per_byte * 1.25 * static_cast<double>(all));
    try {
      v.reserve(std::max(next, projected));
    } catch (const std::bad_alloc&) {
      // A projection the system will not map: push_back's doubling takes over.
    }
  }

  void allocate(std::size_t n) {
    buf_ = std::make_unique<char[]>(n);  // value-initialised: padding is defined bytes
    cap_ = n;
    max_buffer_ = std::max(max_buffer_, cap_);
  }

  void grow(std::size_t n) {
    auto bigger = std::make_unique<char[]>(n);
    std::memcpy(bigger.get(), buf_.get(), len_);
    buf_ = std::move(bigger);
    cap_ = n;
    max_buffer_ = std::max(max_buffer_, cap_);
  }

  std::uint64_t offset(std::size_t at) const { return base_ + (at - prefix); }

  [[noreturn]] void invalid(std::size_t at, std::string_view what) const {
    throw input_error(fmt::format("{}: invalid JSON at byte {}: {}", origin_, offset(at), what));
  }

  void skip_space() {
    while (pos_ < len_ && detail::is_json_space(buf_[pos_])) ++pos_;
  }

  // Consumes every complete unit in the buffer. At the end of input a scalar that reached the end
  // of the data is complete too.
  void process(bool eof) {
    char* b = buf_.get();
    for (;;) {
      skip_space();
      if (pos_ >= len_) return;
      const char c = b[pos_];
      switch (state_) {
        case doc_state::before_root:
          if (c == '{') {
            state_ = doc_state::root_first_key;
          } else if (c == '[') {
            // The Chrome trace "JSON Array Format": the array of events is the whole document.
            array_root_ = true;
            saw_events_ = true;
            state_ = doc_state::events_first;
          } else if (pos_ == prefix && base_ == 0 && c == '\xEF') {
            // A UTF-8 byte order mark.
            if (len_ - pos_ < 3) return;
            pos_ += 2;
          } else {
            throw input_error(fmt::format("{}: not a JSON trace (byte {} is '{}', expected '{{')", origin_,
                                          offset(pos_), printable(c)));
          }
          ++pos_;
          break;
        case doc_state::root_first_key:
          if (c == '}') {
            state_ = doc_state::done;
            ++pos_;
            break;
          }
          [[fallthrough]];
        case doc_state::root_key: {
          if (c != '"') invalid(pos_, "expected a key");
          const auto r = detail::scan_value(b, pos_, len_);
          if (r.status == scan_status::incomplete) return;
          key_.assign(b + pos_ + 1, r.end - pos_ - 2);
          pos_ = r.end;
          state_ = doc_state::root_colon;
          break;
        }
        case doc_state::root_colon:
          if (c != ':') invalid(pos_, "expected ':'");
          ++pos_;
          state_ = doc_state::root_value;
          break;
        case doc_state::root_value:
          if (key_ == "traceEvents" && c == '[') {
            saw_events_ = true;
            ++pos_;
            state_ = doc_state::events_first;
            break;
          }
          if (!top_level_value(eof)) return;
          state_ = doc_state::root_after_value;
          break;
        case doc_state::root_after_value:
          if (c == ',') {
            state_ = doc_state::root_key;
          } else if (c == '}') {
            state_ = doc_state::done;
          } else {
            invalid(pos_, "expected ',' or '}' after a value");
          }
          ++pos_;
          break;
        case doc_state::events_first:
          if (c == ']') {
            ++pos_;
            state_ = array_root_ ? doc_state::done : doc_state::root_after_value;
            break;
          }
          state_ = doc_state::events_element;
          break;
        case doc_state::events_element:
          if (!events()) return;
          break;
        case doc_state::events_separator:
          if (c == ',') {
            state_ = doc_state::events_element;
          } else if (c == ']') {
            state_ = array_root_ ? doc_state::done : doc_state::root_after_value;
          } else {
            invalid(pos_, "expected ',' or ']' between events");
          }
          ++pos_;
          break;
        case doc_state::done:
          out_.warn(fmt::format("data after the end of the JSON document ignored (from byte {})", offset(pos_)));
          state_ = doc_state::trailing;
          [[fallthrough]];
        case doc_state::trailing:
          pos_ = len_;
          return;
      }
    }
  }

  static char printable(char c) { return (c >= 0x20 && c < 0x7f) ? c : '?'; }

  // Collects consecutive complete events into batches and parses them. False when the buffer ends
  // inside an event (more input needed); true when the array ended or a separator is next.
  bool events() {
    char* b = buf_.get();
    std::size_t first = pos_, last_end = pos_;
    std::size_t count = 0;
    bool more = true;
    for (;;) {
      const std::size_t start = pos_;
      const auto r = detail::scan_value(b, start, len_);
      if (r.status == scan_status::invalid) invalid(start, "expected an event object");
      if (r.status == scan_status::incomplete) {
        more = false;
        break;
      }
      if (count == 0) first = start;
      last_end = r.end;
      ++count;
      pos_ = r.end;
      skip_space();
      if (pos_ >= len_) {
        state_ = doc_state::events_separator;
        break;
      }
      if (b[pos_] == ']') {
        state_ = doc_state::events_separator;
        break;
      }
      if (b[pos_] != ',') invalid(pos_, "expected ',' or ']' between events");
      ++pos_;
      skip_space();
      if (pos_ >= len_) {
        // The next event starts in the next chunk; resume there as an element.
        state_ = doc_state::events_element;
        more = false;
        break;
      }
      if (last_end - first >= batch_limit_) {
        parse_batch(first, last_end, count);
        count = 0;
      }
    }
    if (count != 0) parse_batch(first, last_end, count);
    return more;
  }

  void parse_batch(std::size_t first, std::size_t last_end, std::size_t count) {
    char* b = buf_.get();
    const char saved_open = b[first - 1];
    const char saved_close = b[last_end];
    b[first - 1] = '[';
    b[last_end] = ']';
    const std::size_t doc_begin = first - 1;
    const std::size_t doc_len = last_end + 1 - doc_begin;
    bool ok = true;
    {
      ondemand::document doc;
      ondemand::array arr;
      if (parser_.iterate(b + doc_begin, doc_len, cap_ - doc_begin).get(doc) != simdjson::SUCCESS ||
          doc.get_array().get(arr) != simdjson::SUCCESS) {
        ok = false;
      } else {
        for (auto element : arr) {
          ondemand::value v;
          if (element.get(v) != simdjson::SUCCESS || !mapper_.map(v)) {
            ok = false;
            break;
          }
        }
      }
    }
    b[first - 1] = saved_open;
    b[last_end] = saved_close;
    ++batches_;
    events_ += count;
    if (!ok) locate_error(first, last_end);
  }

  // The batch failed: parse its events one by one to name the first bad one. Events already
  // mapped do not matter, since this ends the read.
  [[noreturn]] void locate_error(std::size_t first, std::size_t last_end) {
    char* b = buf_.get();
    std::size_t p = first;
    while (p < last_end) {
      const auto r = detail::scan_value(b, p, last_end);
      const std::size_t end = r.status == scan_status::complete ? r.end : last_end;
      ondemand::document doc;
      auto error = parser_.iterate(b + p, end - p, cap_ - p).get(doc);
      if (error == simdjson::SUCCESS) {
        trace scratch;
        detail::kineto_event_mapper probe(scratch, options_);
        ondemand::value v;
        error = doc.get_value().get(v);
        if (error == simdjson::SUCCESS && !probe.map(v)) error = simdjson::TAPE_ERROR;
      }
      if (error != simdjson::SUCCESS) {
        throw input_error(fmt::format("{}: invalid JSON in the event at byte {}: {}", origin_, offset(p),
                                      simdjson::error_message(error)));
      }
      p = end;
      while (p < last_end && (detail::is_json_space(b[p]) || b[p] == ',')) ++p;
    }
    throw input_error(
        fmt::format("{}: invalid JSON in the events from byte {} to {}", origin_, offset(first), offset(last_end)));
  }

  // A top-level value other than traceEvents. False when it continues in the next chunk.
  bool top_level_value(bool eof) {
    char* b = buf_.get();
    auto r = detail::scan_value(b, pos_, len_);
    if (r.status == scan_status::invalid) invalid(pos_, "expected a value");
    if (r.status == scan_status::incomplete) {
      const bool scalar = b[pos_] != '{' && b[pos_] != '[' && b[pos_] != '"';
      if (!(eof && scalar)) return false;
      r.end = len_;
    }
    const std::size_t begin = pos_;
    pos_ = r.end;
    const char saved = b[r.end];
    b[r.end] = ' ';
    ondemand::document doc;
    if (parser_.iterate(b + begin, r.end - begin, cap_ - begin).get(doc) == simdjson::SUCCESS) {
      mapper_.top_level(key_, doc);
    }
    b[r.end] = saved;
    return true;
  }

  bool stream_is_damaged() {
    std::vector<char> scratch(std::size_t{1} << 20);
    while (source_.read(scratch.data(), scratch.size()) != 0) {}
    return !source_.damage().empty();
  }

  void report_progress() {
    if (options_.progress) options_.progress(source_.consumed(), source_.total());
  }

  void finish() {
    if (json_bytes_ == 0) {
      if (!source_.damage().empty())
        throw input_error(fmt::format("{}: {}; nothing decoded", origin_, source_.damage()));
      throw input_error(fmt::format("{}: empty file", origin_));
    }
    if (state_ == doc_state::before_root) {
      throw input_error(fmt::format("{}: no JSON in the file (only whitespace)", origin_));
    }
    const bool complete = !damaged_ && (state_ == doc_state::done || state_ == doc_state::trailing ||
                                        // The array format lets the closing ']' go missing.
                                        (array_root_ && state_ == doc_state::events_separator));
    if (!saw_events_) {
      if (complete) throw input_error(fmt::format("{}: no traceEvents array: not a Kineto trace", origin_));
      throw input_error(fmt::format("{}: truncated at byte {}, before any traceEvents{}", origin_, json_bytes_,
                                    source_.damage().empty() ? "" : " (" + source_.damage() + ")"));
    }
    // Cut short, the events after the cut are gone; damage after a complete document loses nothing.
    if (!complete) {
      if (!source_.damage().empty()) out_.lose(source_.damage());
      out_.lose(fmt::format("truncated at byte {}; {} events read, the rest is lost", json_bytes_, events_));
    } else if (!source_.damage().empty()) {
      out_.warn(source_.damage());
    }
    mapper_.finish(origin_name());
    if (tuning_.stats != nullptr) {
      tuning_.stats->input_bytes = source_.consumed();
      tuning_.stats->json_bytes = json_bytes_;
      tuning_.stats->events = events_;
      tuning_.stats->batches = batches_;
      tuning_.stats->max_buffer_bytes = max_buffer_;
    }
  }

  std::string origin_name() const {
    const auto slash = origin_.find_last_of('/');
    return slash == std::string::npos ? origin_ : origin_.substr(slash + 1);
  }

  detail::byte_source& source_;
  std::string origin_;
  read_options options_;
  kineto_tuning tuning_;
  trace out_;
  detail::kineto_event_mapper mapper_;
  ondemand::parser parser_;

  std::unique_ptr<char[]> buf_;
  std::size_t cap_ = 0;
  std::size_t pos_ = prefix;
  std::size_t len_ = prefix;
  std::uint64_t base_ = 0;  // stream offset of buf_[prefix]
  std::size_t chunk_ = 0;
  std::size_t batch_limit_ = 0;
  std::size_t max_buffer_ = 0;

  doc_state state_ = doc_state::before_root;
  std::string key_;
  bool array_root_ = false;
  bool saw_events_ = false;
  bool damaged_ = false;
  std::uint64_t json_bytes_ = 0;
  std::uint64_t events_ = 0;
  std::uint64_t batches_ = 0;
};

}  // namespace

trace read_kineto_json(const std::filesystem::path& path, const read_options& options, const kineto_tuning& tuning) {
  auto source = detail::open_file_source(path, {tuning.inflater, tuning.read_ahead});
  return kineto_stream_reader(*source, path.string(), options, tuning).run();
}

trace detail::read_kineto_source(byte_source& source, std::string origin, const read_options& options) {
  return kineto_stream_reader(source, std::move(origin), options, kineto_tuning{}).run();
}

trace read_kineto_json(const std::filesystem::path& path, const read_options& options) {
  return read_kineto_json(path, options, kineto_tuning{});
}

trace read_kineto_json_buffer(std::string_view bytes, std::string_view origin, const read_options& options,
                              const kineto_tuning& tuning) {
  auto source = detail::open_memory_source(bytes, {tuning.inflater, tuning.read_ahead});
  return kineto_stream_reader(*source, std::string(origin), options, tuning).run();
}

}  // namespace headroom::trace
