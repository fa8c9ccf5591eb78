#include "headroom/generate/chat.hpp"

#include <simdjson.h>

#include <fmt/format.h>

#include "headroom/util/json.hpp"

namespace headroom::generate {

namespace {

void append_number(std::string& out, double v) { out += fmt::format("{}", v); }

std::optional<std::int64_t> integer(simdjson::dom::element e, const char* key) {
  std::int64_t v = 0;
  if (e[key].get_int64().get(v) == simdjson::SUCCESS) return v;
  return std::nullopt;
}

void read_usage(simdjson::dom::element root, chat_answer& a) {
  simdjson::dom::element usage;
  if (root["usage"].get(usage) != simdjson::SUCCESS || !usage.is_object()) return;
  if (auto v = integer(usage, "prompt_tokens")) a.tokens_in = v;
  if (auto v = integer(usage, "completion_tokens")) a.tokens_out = v;
}

std::string_view text_of(simdjson::dom::element e, const char* key) {
  std::string_view s;
  if (e[key].get_string().get(s) == simdjson::SUCCESS) return s;
  return {};
}

}  // namespace

std::string chat_request_body(const model_config& config, const std::vector<chat_message>& messages) {
  std::string out = "{\"model\":";
  util::append_json_string(out, config.model);
  out += ",\"messages\":[";
  for (std::size_t i = 0; i < messages.size(); ++i) {
    if (i) out += ',';
    out += "{\"role\":";
    util::append_json_string(out, messages[i].role);
    out += ",\"content\":";
    util::append_json_string(out, messages[i].content);
    out += '}';
  }
  out += "],";
  util::append_json_string(out, config.max_tokens_field);
  out += ":" + std::to_string(config.max_tokens);
  if (config.temperature) {
    out += ",\"temperature\":";
    append_number(out, *config.temperature);
  }
  if (config.top_p) {
    out += ",\"top_p\":";
    append_number(out, *config.top_p);
  }
  if (config.reasoning_effort) {
    out += ",\"reasoning_effort\":";
    util::append_json_string(out, *config.reasoning_effort);
  }
  if (config.stream) out += ",\"stream\":true,\"stream_options\":{\"include_usage\":true}";
  out += '}';
  return out;
}

chat_parse parse_chat_answer(std::string_view body) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  simdjson::padded_string padded(body);
  if (auto err = parser.parse(padded).get(root); err)
    return {std::nullopt, fmt::format("malformed answer: not JSON ({})", simdjson::error_message(err))};
  simdjson::dom::array choices;
  if (root["choices"].get_array().get(choices) != simdjson::SUCCESS || choices.size() == 0)
    return {std::nullopt, "malformed answer: no choices"};
  simdjson::dom::element choice = choices.at(0);
  simdjson::dom::element message;
  if (choice["message"].get(message) != simdjson::SUCCESS || !message.is_object())
    return {std::nullopt, "malformed answer: the choice has no message"};
  chat_answer a;
  simdjson::dom::element content;
  if (message["content"].get(content) != simdjson::SUCCESS || !(content.is_string() || content.is_null()))
    return {std::nullopt, "malformed answer: the message has no content"};
  if (content.is_string()) a.content = std::string(content.get_string().value());
  a.finish_reason = std::string(text_of(choice, "finish_reason"));
  read_usage(root, a);
  return {a, ""};
}

chat_parse parse_chat_stream(std::string_view body) {
  chat_answer a;
  bool done = false;
  int events = 0;
  simdjson::dom::parser parser;
  std::size_t pos = 0;
  while (pos < body.size()) {
    std::size_t end = body.find('\n', pos);
    if (end == std::string_view::npos) end = body.size();
    std::string_view line = body.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.rfind("data:", 0) != 0) continue;  // comments (": keep-alive"), event names, blank lines
    line.remove_prefix(5);
    if (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    if (line == "[DONE]") {
      done = true;
      break;
    }
    simdjson::dom::element event;
    simdjson::padded_string padded(line);
    if (auto err = parser.parse(padded).get(event); err)
      return {std::nullopt, fmt::format("malformed answer: event {} of the stream is not JSON ({})", events + 1,
                                        simdjson::error_message(err))};
    ++events;
    simdjson::dom::element error;
    if (event["error"].get(error) == simdjson::SUCCESS)
      return {std::nullopt, fmt::format("the stream reported an error: {}", error_message(line))};
    read_usage(event, a);
    simdjson::dom::array choices;
    if (event["choices"].get_array().get(choices) != simdjson::SUCCESS || choices.size() == 0) continue;
    simdjson::dom::element choice = choices.at(0);
    simdjson::dom::element delta;
    if (choice["delta"].get(delta) == simdjson::SUCCESS && delta.is_object()) a.content += text_of(delta, "content");
    if (auto f = text_of(choice, "finish_reason"); !f.empty()) a.finish_reason = std::string(f);
  }
  if (events == 0 && !done) return {std::nullopt, "malformed answer: no server-sent events"};
  if (!done && a.finish_reason.empty())
    return {std::nullopt,
            fmt::format("the stream was cut short after {} event(s): no finish_reason and no [DONE]", events)};
  return {a, ""};
}

std::string error_message(std::string_view body) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  simdjson::padded_string padded(body);
  if (parser.parse(padded).get(root) == simdjson::SUCCESS) {
    std::string_view m;
    if (root["error"]["message"].get_string().get(m) == simdjson::SUCCESS) return std::string(m);
    if (root["error"].get_string().get(m) == simdjson::SUCCESS) return std::string(m);
    if (root["message"].get_string().get(m) == simdjson::SUCCESS) return std::string(m);
  }
  std::string s(body.substr(0, 300));
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

}  // namespace headroom::generate
