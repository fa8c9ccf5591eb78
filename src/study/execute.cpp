#include "execute.hpp"

#include <fmt/format.h>

#include "child_process.hpp"

namespace headroom::study {

execution execute_run(const planned_run& run, const run_settings& s, const study_folder& folder) {
  const auto dir = folder.run_dir(run.key);
  // What an earlier, failed or interrupted attempt left would be mistaken for this run's output.
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);

  run_record r;
  r.key = run.key;
  r.domain = run.w.domain;
  r.command = run_command(run, s, dir);
  r.started = utc_now();
  const int timeout = s.timeout_s.value_or(run.w.timeout_s);
  const auto log = dir / log_file;
  const auto outcome = run_logged(r.command, {{"PYTHONUNBUFFERED", "1"}}, log, timeout);
  r.seconds = outcome.seconds;
  r.exit_status = outcome.status;
  if (outcome.interrupted) return {std::nullopt, true};

  const std::string trace(run.key.rec == recorder::headroom ? store_file : kineto_file);
  const bool has_trace = std::filesystem::exists(dir / trace);
  if (std::filesystem::exists(dir / harness_file)) r.harness = harness_file;
  const auto why = [&] {
    const auto line = last_line(log);
    return line.empty() ? std::string("the log is empty") : fmt::format("last line of the log: {}", line);
  };
  if (!outcome.started) {
    r.status = run_status::failed;
    r.reason = outcome.error;
  } else if (outcome.timed_out) {
    r.status = run_status::timed_out;
    r.reason = fmt::format("ran past its {} s timeout; {}", timeout, why());
  } else if (outcome.status != 0) {
    r.status = run_status::failed;
    r.reason = fmt::format("exit status {}; {}", outcome.status, why());
  } else if (!has_trace) {
    r.status = run_status::failed;
    r.reason = fmt::format("exit status 0 but no {} was written; {}", trace, why());
  } else {
    r.status = run_status::ok;
    r.traces = {trace};
  }
  return {std::move(r), false};
}

}  // namespace headroom::study
