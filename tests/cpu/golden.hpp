#pragma once
// Golden-file comparison for output formats (docs/style.md, convention 8: formats are pinned line by line).
// HEADROOM_UPDATE_GOLDEN=1 rewrites the file instead and skips the test.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace headroom::test {

inline void expect_golden(const std::string& text, const std::string& path) {
  if (std::getenv("HEADROOM_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path) << text;
    GTEST_SKIP() << "rewrote " << path;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << "missing golden file " << path;
  std::istringstream got(text);
  std::string want_line, got_line;
  int line = 0;
  while (true) {
    ++line;
    const bool w = static_cast<bool>(std::getline(in, want_line));
    const bool g = static_cast<bool>(std::getline(got, got_line));
    if (!w && !g) break;
    ASSERT_EQ(w, g) << path << ": output and golden differ in length at line " << line;
    EXPECT_EQ(got_line, want_line) << path << ":" << line;
  }
}

}  // namespace headroom::test
