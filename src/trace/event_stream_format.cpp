#include "event_stream_format.hpp"

#include <zlib.h>

namespace headroom::trace::stream_format {

std::uint32_t frame_crc(const unsigned char* length_bytes, const unsigned char* payload, std::size_t n) {
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, length_bytes, 4);
  // zlib takes uInt lengths; frames are capped far below 4 GiB.
  crc = crc32(crc, payload, static_cast<uInt>(n));
  return static_cast<std::uint32_t>(crc);
}

std::uint32_t header_crc(const unsigned char* bytes, std::size_t n) {
  return static_cast<std::uint32_t>(crc32(crc32(0L, Z_NULL, 0), bytes, static_cast<uInt>(n)));
}

}  // namespace headroom::trace::stream_format
