#pragma once
// A store to test on each back end: a SQLite file in a scratch folder, or a database of its own on
// the test PostgreSQL server (tests/services/postgres.sh, started by ctest; HEADROOM_TEST_POSTGRES_DIR
// says where), dropped afterwards.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include "eval/results_rows.hpp"
#include "headroom/store/connection.hpp"

namespace headroom::test {

inline const char* backend_name(store::backend b) { return b == store::backend::sqlite ? "SQLite" : "PostgreSQL"; }

// The test server's URL (its `postgres` database), or empty outside ctest.
inline std::string postgres_admin_url(bool tcp = false) {
  const char* dir = std::getenv("HEADROOM_TEST_POSTGRES_DIR");
  if (!dir || !*dir) return {};
  std::ifstream in(std::string(dir) + (tcp ? "/url-tcp" : "/url"));
  std::string url;
  std::getline(in, url);
  return url;
}

class scratch_store {
 public:
  scratch_store(store::backend kind, const std::string& name) : kind_(kind), dir_(name) {
    static std::atomic<int> serial{0};
    if (kind == store::backend::sqlite) {
      location_ = (dir_.path() / (name + ".sqlite")).string();
      return;
    }
    admin_ = postgres_admin_url();
    database_ = "t" + std::to_string(::getpid()) + "_" + std::to_string(serial++);
    admin()->exec("CREATE DATABASE " + database_);
    location_ = admin_;
    location_.replace(location_.find("@/postgres"), 10, "@/" + database_);
  }
  ~scratch_store() {
    if (kind_ != store::backend::postgresql) return;
    try {
      admin()->exec("DROP DATABASE " + database_ + " WITH (FORCE)");
    } catch (...) {}
  }
  scratch_store(const scratch_store&) = delete;
  scratch_store& operator=(const scratch_store&) = delete;

  const std::string& location() const { return location_; }
  const scratch_dir& dir() const { return dir_; }
  std::unique_ptr<store::connection> connect() const {
    return store::connection::open(store::location::parse(location_), store::connection::access::read_write);
  }

 private:
  std::unique_ptr<store::connection> admin() const {
    return store::connection::open(store::location::parse(admin_), store::connection::access::read_write);
  }
  store::backend kind_;
  scratch_dir dir_;
  std::string admin_, database_, location_;
};

// A fixture run once per back end: GetParam() is the back end. PostgreSQL is skipped only where no
// test server was started (a test binary run by hand, outside ctest).
class on_each_backend : public ::testing::TestWithParam<store::backend> {
 protected:
  void SetUp() override {
    if (GetParam() == store::backend::postgresql && postgres_admin_url().empty())
      GTEST_SKIP() << "HEADROOM_TEST_POSTGRES_DIR is unset: ctest starts the test server (tests/services/postgres.sh)";
  }
};

inline std::string backend_test_name(const ::testing::TestParamInfo<store::backend>& info) {
  return backend_name(info.param);
}

}  // namespace headroom::test
