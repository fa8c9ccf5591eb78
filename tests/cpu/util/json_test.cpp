#include <gtest/gtest.h>

#include "headroom/util/json.hpp"

using headroom::util::json_string;

TEST(JsonString, QuotesAndEscapesWhatJsonForbids) {
  EXPECT_EQ(json_string("plain"), "\"plain\"");
  EXPECT_EQ(json_string("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(json_string("line\nnext\ttab\r"), "\"line\\nnext\\ttab\\r\"");
  EXPECT_EQ(json_string(std::string_view("\x01", 1)), "\"\\u0001\"");
}

TEST(JsonString, KeepsValidUtf8AndReplacesInvalidBytes) {
  // A kernel name from a trace can hold anything; the output must stay valid JSON.
  EXPECT_EQ(json_string("caf\xc3\xa9"), "\"caf\xc3\xa9\"");
  EXPECT_EQ(json_string("bad\xff byte"), "\"bad\\ufffd byte\"");
  EXPECT_EQ(json_string("cut \xe2\x82"), "\"cut \\ufffd\\ufffd\"");
  EXPECT_EQ(json_string("overlong \xc0\xaf"), "\"overlong \\ufffd\\ufffd\"");
}
