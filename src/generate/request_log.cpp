#include "headroom/generate/request_log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <simdjson.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "headroom/util/error.hpp"
#include "headroom/util/json.hpp"
#include "headroom/util/read_file.hpp"

namespace headroom::generate {

namespace {

void field(std::string& out, const char* key, std::string_view value) {
  out += fmt::format(",\"{}\":", key);
  util::append_json_string(out, value);
}
void number(std::string& out, const char* key, double value) { out += fmt::format(",\"{}\":{}", key, value); }

}  // namespace

std::string to_json_line(const log_record& r) {
  std::string out = "{\"kind\":";
  util::append_json_string(out, r.kind);
  field(out, "time", r.time);
  field(out, "config", r.config);
  field(out, "problem", r.problem);
  out += fmt::format(",\"sample\":{},\"turn\":{}", r.sample, r.turn);
  if (r.kind == "evaluation") {
    field(out, "candidate_sha256", r.candidate_sha256);
    field(out, "verdict", r.verdict);
    if (r.speedup) number(out, "speedup", *r.speedup);
    field(out, "reasons", r.reasons);
    out += "}\n";
    return out;
  }
  field(out, "model", r.model);
  field(out, "endpoint", r.endpoint);
  out += fmt::format(",\"attempt\":{}", r.attempt);
  field(out, "prompt_sha256", r.prompt_sha256);
  out += fmt::format(",\"status\":{}", r.status);
  if (r.tokens_in) out += fmt::format(",\"tokens_in\":{}", *r.tokens_in);
  if (r.tokens_out) out += fmt::format(",\"tokens_out\":{}", *r.tokens_out);
  out += fmt::format(",\"latency_s\":{:.3f}", r.latency_s);
  if (r.cost) number(out, "cost", *r.cost);
  field(out, "finish_reason", r.finish_reason);
  field(out, "error", r.error);
  field(out, "outcome", r.outcome);
  if (r.retry_in_s) out += fmt::format(",\"retry_in_s\":{:.3f}", *r.retry_in_s);
  out += fmt::format(",\"code_blocks\":{}", r.code_blocks);
  field(out, "extraction", r.extraction);
  field(out, "file", r.file);
  field(out, "candidate_sha256", r.candidate_sha256);
  field(out, "feedback_from", r.feedback_from);
  field(out, "answer", r.answer);
  out += "}\n";
  return out;
}

request_log::request_log(const std::filesystem::path& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw input_error(fmt::format("{}: cannot open the log: {}", path.string(), std::strerror(errno)));
}

request_log::~request_log() {
  if (fd_ >= 0) ::close(fd_);
}

void request_log::append(const log_record& r) {
  const std::string line = to_json_line(r);
  std::lock_guard lock(mutex_);
  // One write per line: with O_APPEND the line lands whole after the last one.
  const ssize_t n = ::write(fd_, line.data(), line.size());
  if (n != static_cast<ssize_t>(line.size()))
    throw input_error(
        fmt::format("{}: a write to the log failed: {}", path_.string(), n < 0 ? std::strerror(errno) : "cut short"));
}

std::vector<log_record> read_log(const std::filesystem::path& path, int* skipped) {
  std::vector<log_record> out;
  int bad = 0;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    if (skipped) *skipped = 0;
    return out;
  }
  auto text = util::read_file(path);
  if (!text) throw input_error(fmt::format("{}: cannot read the log", path.string()));
  simdjson::dom::parser parser;
  std::size_t pos = 0;
  while (pos < text->size()) {
    const std::size_t end = text->find('\n', pos);
    if (end == std::string::npos) {  // no newline: a write cut short
      ++bad;
      break;
    }
    std::string_view line(text->data() + pos, end - pos);
    pos = end + 1;
    if (line.empty()) continue;
    simdjson::dom::element e;
    simdjson::padded_string padded(line);
    if (parser.parse(padded).get(e) != simdjson::SUCCESS || !e.is_object()) {
      ++bad;
      continue;
    }
    log_record r;
    auto str = [&](const char* k, std::string& v) {
      std::string_view s;
      if (e[k].get_string().get(s) == simdjson::SUCCESS) v = std::string(s);
    };
    auto integer = [&](const char* k) -> std::optional<std::int64_t> {
      std::int64_t v = 0;
      if (e[k].get_int64().get(v) == simdjson::SUCCESS) return v;
      return std::nullopt;
    };
    auto real = [&](const char* k) -> std::optional<double> {
      double v = 0;
      if (e[k].get_double().get(v) == simdjson::SUCCESS) return v;
      if (auto i = integer(k)) return static_cast<double>(*i);
      return std::nullopt;
    };
    str("kind", r.kind);
    str("time", r.time);
    str("config", r.config);
    str("model", r.model);
    str("endpoint", r.endpoint);
    str("problem", r.problem);
    r.sample = static_cast<int>(integer("sample").value_or(0));
    r.turn = static_cast<int>(integer("turn").value_or(1));
    r.attempt = static_cast<int>(integer("attempt").value_or(1));
    str("prompt_sha256", r.prompt_sha256);
    r.status = static_cast<long>(integer("status").value_or(0));
    r.tokens_in = integer("tokens_in");
    r.tokens_out = integer("tokens_out");
    r.latency_s = real("latency_s").value_or(0);
    r.cost = real("cost");
    str("finish_reason", r.finish_reason);
    str("error", r.error);
    str("outcome", r.outcome);
    r.retry_in_s = real("retry_in_s");
    r.code_blocks = static_cast<int>(integer("code_blocks").value_or(0));
    str("extraction", r.extraction);
    str("file", r.file);
    str("candidate_sha256", r.candidate_sha256);
    str("answer", r.answer);
    str("feedback_from", r.feedback_from);
    str("verdict", r.verdict);
    r.speedup = real("speedup");
    str("reasons", r.reasons);
    if (r.config.empty() || r.problem.empty()) {
      ++bad;
      continue;
    }
    out.push_back(std::move(r));
  }
  if (skipped) *skipped = bad;
  return out;
}

}  // namespace headroom::generate
