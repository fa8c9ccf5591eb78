#pragma once
// SHA-256 (FIPS 180-4) of a byte string, as 64 lowercase hex digits: the content address of
// candidates, problems and their build folders.
#include <string>
#include <string_view>

namespace headroom::util {

std::string sha256_hex(std::string_view bytes);

}  // namespace headroom::util
