#include "headroom/generate/chat.hpp"

#include <gtest/gtest.h>

using namespace headroom::generate;

TEST(Chat, RequestBodyCarriesTheSettings) {
  model_config c;
  c.model = "qwen/qwen3-coder";
  c.max_tokens = 100;
  c.temperature = 0.5;
  c.reasoning_effort = "high";
  const std::string body = chat_request_body(c, {{"system", "be \"fast\""}, {"user", "line\nbreak"}});
  EXPECT_EQ(body,
            "{\"model\":\"qwen/qwen3-coder\",\"messages\":[{\"role\":\"system\",\"content\":\"be \\\"fast\\\"\"},"
            "{\"role\":\"user\",\"content\":\"line\\nbreak\"}],\"max_tokens\":100,\"temperature\":0.5,"
            "\"reasoning_effort\":\"high\"}");
  c.max_tokens_field = "max_completion_tokens";
  EXPECT_NE(chat_request_body(c, {}).find("],\"max_completion_tokens\":100,"), std::string::npos);
  c.stream = true;
  c.temperature.reset();
  c.reasoning_effort.reset();
  EXPECT_NE(chat_request_body(c, {}).find(",\"stream\":true,\"stream_options\":{\"include_usage\":true}}"),
            std::string::npos);
}

TEST(Chat, AWholeAnswer) {
  auto p = parse_chat_answer(R"({"choices":[{"index":0,"message":{"role":"assistant","content":"hi"},
      "finish_reason":"length"}],"usage":{"prompt_tokens":12,"completion_tokens":34,"total_tokens":46}})");
  ASSERT_TRUE(p.answer) << p.error;
  EXPECT_EQ(p.answer->content, "hi");
  EXPECT_EQ(p.answer->finish_reason, "length");
  EXPECT_EQ(p.answer->tokens_in, 12);
  EXPECT_EQ(p.answer->tokens_out, 34);
}

TEST(Chat, MalformedAnswersSayWhat) {
  EXPECT_NE(parse_chat_answer("{\"choices\": [{\"message\": ").error.find("malformed answer: not JSON"),
            std::string::npos);
  EXPECT_EQ(parse_chat_answer("{\"choices\": []}").error, "malformed answer: no choices");
  EXPECT_EQ(parse_chat_answer("{\"choices\": [{\"text\": \"x\"}]}").error,
            "malformed answer: the choice has no message");
  EXPECT_EQ(parse_chat_answer("<html>502 Bad Gateway</html>").answer, std::nullopt);
  // A null content (an answer of tool calls only) is an empty answer, not a malformed one.
  auto n = parse_chat_answer(R"({"choices":[{"message":{"content":null},"finish_reason":"stop"}]})");
  ASSERT_TRUE(n.answer);
  EXPECT_EQ(n.answer->content, "");
  EXPECT_FALSE(n.answer->tokens_in);
}

TEST(Chat, AStreamedAnswer) {
  const std::string body =
      ": keep-alive\n\n"
      "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"},\"finish_reason\":null}]}\n\n"
      "data: {\"choices\":[{\"delta\":{\"content\":\"```py\"},\"finish_reason\":null}]}\r\n\r\n"
      "data:{\"choices\":[{\"delta\":{\"content\":\"thon\\n\"},\"finish_reason\":\"stop\"}]}\n\n"
      "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":7}}\n\n"
      "data: [DONE]\n\n";
  auto p = parse_chat_stream(body);
  ASSERT_TRUE(p.answer) << p.error;
  EXPECT_EQ(p.answer->content, "```python\n");
  EXPECT_EQ(p.answer->finish_reason, "stop");
  EXPECT_EQ(p.answer->tokens_in, 5);
  EXPECT_EQ(p.answer->tokens_out, 7);
}

TEST(Chat, AStreamCutShortIsAnError) {
  auto p = parse_chat_stream("data: {\"choices\":[{\"delta\":{\"content\":\"```python\\nclass\"}}]}\n\n");
  EXPECT_FALSE(p.answer);
  EXPECT_EQ(p.error, "the stream was cut short after 1 event(s): no finish_reason and no [DONE]");
  EXPECT_EQ(parse_chat_stream("").error, "malformed answer: no server-sent events");
  EXPECT_NE(parse_chat_stream("data: {oops\n\n").error.find("event 1 of the stream is not JSON"), std::string::npos);
  EXPECT_NE(parse_chat_stream("data: {\"error\":{\"message\":\"overloaded\"}}\n\n").error.find("overloaded"),
            std::string::npos);
}

TEST(Chat, ErrorMessages) {
  EXPECT_EQ(error_message(R"({"error":{"message":"Rate limit reached","type":"requests"}})"), "Rate limit reached");
  EXPECT_EQ(error_message(R"({"error":"model not found"})"), "model not found");
  EXPECT_EQ(error_message("<html>\n502\n</html>"), "<html> 502 </html>");
}
