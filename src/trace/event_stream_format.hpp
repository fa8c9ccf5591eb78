#pragma once
// The event stream's layout, shared by its writer and its reader (docs/event-stream.md is the
// contract, and these constants must match it): magic, frame framing, record kinds and body
// sizes, little-endian fields, the checksums.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "headroom/trace/model.hpp"

namespace headroom::trace::stream_format {

inline constexpr char stream_magic[8] = {'H', 'R', 'S', 'T', 'R', 'E', 'A', 'M'};
inline constexpr char frame_sync[4] = {'H', 'R', 'F', '1'};
inline constexpr std::size_t frame_header_bytes = 12;  // sync, payload length, crc
inline constexpr std::size_t header_fixed_bytes = 32;  // magic .. start, before the two strings
inline constexpr std::uint32_t max_record_body = (1u << 24) - 1;
inline constexpr std::uint32_t max_frame_payload = 1u << 30;

enum record_kind : std::uint8_t {
  rec_string = 1,
  rec_activity = 2,
  rec_geometry = 3,
  rec_api_call = 4,
  rec_range = 5,
  rec_device = 6,
  rec_warning = 7,
  rec_counter = 8,
  rec_synchronization = 9,  // added in version 1 after the others: older readers skip it as unknown
};
// The stream stores the model's enum values; these are the codes docs/event-stream.md promises.
static_assert(static_cast<int>(activity_kind::memset) == 2 && static_cast<int>(copy_kind::host_to_device) == 1 &&
                  static_cast<int>(copy_kind::peer_to_peer) == 4 && static_cast<int>(copy_kind::other) == 6 &&
                  static_cast<int>(api_kind::driver) == 1 && static_cast<int>(range_kind::nvtx) == 2 &&
                  static_cast<int>(range_kind::mark) == 3 && static_cast<int>(sync_kind::event_synchronize) == 0 &&
                  static_cast<int>(sync_kind::stream_wait_event) == 1 &&
                  static_cast<int>(sync_kind::stream_synchronize) == 2 &&
                  static_cast<int>(sync_kind::context_synchronize) == 3 &&
                  static_cast<int>(sync_kind::event_record) == 4,
              "the model's enums moved: map them explicitly and keep the stream's codes");
inline constexpr std::size_t activity_body = 48;
inline constexpr std::size_t geometry_body = 36;
inline constexpr std::size_t api_call_body = 40;
inline constexpr std::size_t range_body = 28;
inline constexpr std::size_t device_body = 28;
inline constexpr std::size_t counter_body = 12;
inline constexpr std::size_t synchronization_body = 48;
inline constexpr std::size_t synchronization_body_with_record = 56;  // + u64 record correlation (docs/event-stream.md)

// Little-endian by shifts, so the layout is the same on any host; compilers make these plain moves.
template <typename T>
char* put(char* p, T v) {
  using U = std::make_unsigned_t<T>;
  auto u = static_cast<U>(v);
  for (std::size_t i = 0; i < sizeof(T); ++i) p[i] = static_cast<char>((u >> (8 * i)) & 0xff);
  return p + sizeof(T);
}

template <typename T>
T get(const unsigned char* p) {
  using U = std::make_unsigned_t<T>;
  U u = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) u |= static_cast<U>(static_cast<U>(p[i]) << (8 * i));
  return static_cast<T>(u);
}

// The checksum covers the length too, so a flipped length cannot pair with an intact payload.
std::uint32_t frame_crc(const unsigned char* length_bytes, const unsigned char* payload, std::size_t n);
// The header's checksum, over its bytes before the checksum field.
std::uint32_t header_crc(const unsigned char* bytes, std::size_t n);

}  // namespace headroom::trace::stream_format
