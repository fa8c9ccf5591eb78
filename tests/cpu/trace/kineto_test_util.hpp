#pragma once
// Helpers for the Kineto reader tests: fixture paths and whole-file reads.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>
#include <zlib.h>

#include <gtest/gtest.h>

namespace headroom::trace::testing {

inline std::filesystem::path fixture_dir() { return std::filesystem::path(HEADROOM_FIXTURES_DIR) / "kineto-hta"; }

inline std::string read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string gunzip(const std::string& gz) {
  z_stream z{};
  inflateInit2(&z, 15 + 16);
  std::string out;
  char buf[1 << 16];
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
  }
  inflateEnd(&z);
  return out;
}

inline std::string fixture_json(const std::string& name) { return gunzip(read_bytes(fixture_dir() / name)); }

// `text` as one gzip member (zlib's level 6, as `gzip` writes).
inline std::string gzip(const std::string& text) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, text.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// A test fixture with a scratch folder of its own (the system's temporary folder, `tag` and the
// process id), made before each test and removed after it; write() puts a file there.
class scratch_folder : public ::testing::Test {
 protected:
  explicit scratch_folder(const std::string& tag)
      : dir_(std::filesystem::temp_directory_path() / (tag + "_" + std::to_string(::getpid()))) {}
  void SetUp() override { std::filesystem::create_directories(dir_); }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path write(const std::string& name, const std::string& bytes) {
    const auto p = dir_ / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }

  std::filesystem::path dir_;
};

}  // namespace headroom::trace::testing
