#pragma once
// The JSON Lines log of a generation (RUNS_DIR/generate.jsonl, docs/generate.md "The log"): one line
// per attempt of every request, and one per evaluation a further turn was shown. Lines are appended
// whole (one write each), so an interrupted run leaves whole lines; the log is what a rerun reads
// to know which answers held no code and what each earlier turn answered.
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace headroom::generate {

struct log_record {
  std::string kind = "request";  // "request" or "evaluation"
  std::string time;  // ISO 8601 UTC
  std::string config, model, endpoint;
  std::string problem;  // the problem's id, "level1/19_ReLU"
  int sample = 0, turn = 1, attempt = 1;
  std::string prompt_sha256;
  long status = 0;  // HTTP status; 0 when none came
  std::optional<std::int64_t> tokens_in, tokens_out;
  double latency_s = 0;
  std::optional<double> cost;
  std::string finish_reason;
  std::string error;
  // request: "candidate" (code written to `file`), "no_code", "retry" (failed; asked again after
  // retry_in_s), "failed" (no attempt left, or not worth another).
  std::string outcome;
  std::optional<double> retry_in_s;
  int code_blocks = 0;
  std::string extraction;  // how the code was cut out
  std::string file;  // the candidate, relative to the runs folder
  std::string candidate_sha256;
  std::string answer;  // the assistant's text, whole
  std::string feedback_from;  // turn > 1: the sha256 of the evaluated candidate shown (empty: no code was shown)
  // evaluation:
  std::string verdict;
  std::optional<double> speedup;
  std::string reasons;  // "code: detail" joined by "; "
};

std::string to_json_line(const log_record& r);  // ends with '\n'

class request_log {
 public:
  // Opens the log for appending (created when missing). Throws input_error when it cannot.
  explicit request_log(const std::filesystem::path& path);
  ~request_log();
  request_log(const request_log&) = delete;
  request_log& operator=(const request_log&) = delete;
  // Appends one line; throws input_error when the write fails (a full disk).
  void append(const log_record& r);
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  std::mutex mutex_;
};

// The log's records, oldest first; a missing log is empty. A last line without its newline (a
// write cut by a crash) and lines that are not records are skipped and counted in `skipped`.
std::vector<log_record> read_log(const std::filesystem::path& path, int* skipped = nullptr);

}  // namespace headroom::generate
