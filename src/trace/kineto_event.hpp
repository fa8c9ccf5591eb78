#pragma once
// Turns one Kineto event object (simdjson On-Demand) into the event model, and the top-level keys
// (deviceProperties, distributedInfo, ...) into devices, rank and platform hints.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "headroom/trace/model.hpp"
#include "headroom/trace/reader.hpp"

namespace headroom::trace::detail {

struct event_args;

// Problems counted while reading; each becomes one warning with its count.
enum class kineto_problem : std::uint8_t {
  missing_time,  // an event we keep without a usable ts or dur
  zero_time_kernel,  // ts 0 and dur 0: Kineto could not place the record
  negative_duration,  // clamped to 0
  not_an_object,  // an entry of traceEvents that is not an object
  unknown_sync,  // a cuda_sync event whose kind we do not know
  count_
};

class kineto_event_mapper {
 public:
  kineto_event_mapper(trace& out, const read_options& options);

  // Returns false when simdjson reported an error inside the event.
  bool map(simdjson::ondemand::value event);
  // A top-level key other than traceEvents, its value parsed as a document of its own.
  void top_level(std::string_view key, simdjson::ondemand::document& value);

  void count(kineto_problem p) { ++problems_[static_cast<std::size_t>(p)]; }
  // Platform, process, time base and the counted warnings.
  void finish(std::string_view file_name);

 private:
  void sync(const event_args& args, std::string_view name, time_ns start, time_ns end);
  void add_event_records();

  trace& out_;
  read_options options_;
  std::array<std::uint64_t, static_cast<std::size_t>(kineto_problem::count_)> problems_{};
  std::int64_t pid_ = -1;
  std::int32_t rank_ = -1;
  std::string host_;
  time_ns base_time_ = 0;
  bool hint_cuda_ = false;
  bool hint_rocm_ = false;
  bool hint_mtia_ = false;
  std::vector<synchronization> records_;  // event records the waits named, dated in finish()
};

}  // namespace headroom::trace::detail
