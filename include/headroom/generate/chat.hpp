#pragma once
// The OpenAI chat-completions exchange (POST {base_url}/chat/completions): the request's JSON body
// and the answer, whole or as server-sent events. vLLM, SGLang, llama.cpp's server and the hosted
// APIs speak it.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "headroom/generate/model_config.hpp"

namespace headroom::generate {

struct chat_message {
  std::string role;  // system, user, assistant
  std::string content;
};

// The body: model, messages, max_tokens (under max_tokens_field's name), temperature/top_p/reasoning_effort when set, and with
// `stream` also stream_options.include_usage, so the last event carries the token counts.
std::string chat_request_body(const model_config& config, const std::vector<chat_message>& messages);

struct chat_answer {
  std::string content;  // the assistant's text
  std::string finish_reason;  // stop, length, ...; empty when the server sent none
  std::optional<std::int64_t> tokens_in, tokens_out;  // usage, when the server reported it
};

// A parse either gives the answer or says what was wrong with the body (a malformed answer).
struct chat_parse {
  std::optional<chat_answer> answer;
  std::string error;
};

// An answer in one JSON object (stream: false).
chat_parse parse_chat_answer(std::string_view body);
// An answer as server-sent events ("data: {...}" lines ending in "data: [DONE]"); a stream without
// its end (no [DONE] and no finish_reason) is an error, as the answer may be cut.
chat_parse parse_chat_stream(std::string_view body);

// The message of an error body ({"error": {"message": ...}}), or the body's first 300 bytes.
std::string error_message(std::string_view body);

}  // namespace headroom::generate
