#pragma once
// The study folder (docs/study.md): study.json at the top, one folder per run under runs/, each
// with its trace, the workload's summary, its log and result.json, the record that says the run
// is done. Everything a report needs travels with the folder, so a study recorded on a GPU machine
// is reported anywhere.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "headroom/study/runs.hpp"

namespace headroom::study {

inline constexpr int study_schema_version = 1;
inline constexpr std::string_view manifest_file = "study.json";

struct study_manifest {
  std::string preset;  // the workloads' size preset; one folder holds one preset
  std::string created;  // UTC, ISO 8601
  std::string headroom_version;  // of the headroom that created the folder
};

enum class run_status { ok, failed, timed_out };
std::string_view to_string(run_status s);  // "ok", "failed", "timed_out"

// One run's result.json.
struct run_record {
  run_key key;
  std::string domain;
  run_status status = run_status::ok;
  std::string reason;  // why it failed; "" when ok
  std::vector<std::string> command;
  int exit_status = 0;
  std::string started;  // UTC, ISO 8601
  double seconds = 0.0;  // wall clock of the whole run, start-up and compilation included
  std::vector<std::string> traces;  // relative to the run folder; several are merged as ranks
  std::string harness;  // the workload's summary, relative ("" when there is none)
  std::filesystem::path dir;  // the folder it was read from (not stored in the file)
};

class study_folder {
 public:
  explicit study_folder(std::filesystem::path root);
  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path run_dir(const run_key& k) const;  // <root>/runs/<folder_name>

  // Nothing when there is no study.json; input_error when it cannot be read.
  std::optional<study_manifest> read_manifest() const;
  void write_manifest(const study_manifest& m) const;

  // Nothing when the run has no result.json; input_error naming the file when it is malformed.
  std::optional<run_record> read_record(const run_key& k) const;
  void write_record(const run_record& r) const;
  // Every run folder's record, in folder-name order; folders without result.json are left out.
  std::vector<run_record> records() const;

 private:
  std::filesystem::path root_;
};

// Writes `content` through util::output_file, so a reader (or a rerun after an interruption) sees
// the old file or the new one, never a part. Throws input_error.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

// The current time in UTC, ISO 8601 ("2026-12-01T10:00:00Z").
std::string utc_now();

}  // namespace headroom::study
