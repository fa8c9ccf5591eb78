// The study folder's own files: study.json and each run's result.json (docs/study.md).
#include "headroom/study/folder.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "headroom/util/error.hpp"
#include "headroom/util/json.hpp"
#include "headroom/util/output_file.hpp"

namespace headroom::study {
namespace {

using simdjson::dom::element;

// Reads a JSON file of ours, checking its kind and schema version.
element load_json(simdjson::dom::parser& parser, const std::filesystem::path& path, std::string_view kind) {
  element doc;
  if (auto error = parser.load(path.string()).get(doc); error != simdjson::SUCCESS) {
    throw input_error(fmt::format("{}: {}", path.string(), simdjson::error_message(error)));
  }
  std::string_view found;
  if (doc["kind"].get(found) != simdjson::SUCCESS || found != kind) {
    throw input_error(fmt::format("{}: not a {} file (its \"kind\" is not \"{}\")", path.string(), kind, kind));
  }
  std::int64_t version = 0;
  if (doc["schema_version"].get(version) != simdjson::SUCCESS || version < 1) {
    throw input_error(fmt::format("{}: no schema_version", path.string()));
  }
  if (version > study_schema_version) {
    throw input_error(fmt::format("{}: schema_version {} was written by a newer headroom (this one reads {})",
                                  path.string(), version, study_schema_version));
  }
  return doc;
}

class field_reader {
 public:
  field_reader(element doc, const std::filesystem::path& path) : doc_(doc), path_(path) {}

  std::string string(std::string_view key, bool required = true) const {
    std::string_view v;
    if (doc_[key].get(v) != simdjson::SUCCESS) {
      if (required) fail(key, "a string");
      return {};
    }
    return std::string(v);
  }
  double number(std::string_view key) const {
    double v = 0;
    if (doc_[key].get(v) != simdjson::SUCCESS) {
      std::int64_t i = 0;
      if (doc_[key].get(i) != simdjson::SUCCESS) return 0.0;
      v = static_cast<double>(i);
    }
    return v;
  }
  std::vector<std::string> strings(std::string_view key) const {
    std::vector<std::string> out;
    simdjson::dom::array array;
    if (doc_[key].get(array) != simdjson::SUCCESS) return out;
    for (auto item : array) {
      std::string_view v;
      if (item.get(v) != simdjson::SUCCESS) fail(key, "an array of strings");
      out.emplace_back(v);
    }
    return out;
  }
  [[noreturn]] void fail(std::string_view key, std::string_view what) const {
    throw input_error(fmt::format("{}: \"{}\" must be {}", path_.string(), key, what));
  }

 private:
  element doc_;
  const std::filesystem::path& path_;
};

std::string json_strings(const std::vector<std::string>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0) out += ", ";
    util::append_json_string(out, v[i]);
  }
  return out + "]";
}

run_record parse_record(element doc, const std::filesystem::path& path) {
  const field_reader f(doc, path);
  run_record r;
  r.key.workload = f.string("workload");
  const auto var = parse_variant(f.string("variant"));
  if (!var) f.fail("variant", "\"eager\" or \"compile\"");
  r.key.var = *var;
  const auto rec = parse_recorder(f.string("recorder"));
  if (!rec) f.fail("recorder", "\"headroom\" or \"torch\"");
  r.key.rec = *rec;
  r.domain = f.string("domain", false);
  const auto status = f.string("status");
  if (status == "ok") r.status = run_status::ok;
  else if (status == "failed") r.status = run_status::failed;
  else if (status == "timed_out") r.status = run_status::timed_out;
  else f.fail("status", "\"ok\", \"failed\" or \"timed_out\"");
  r.reason = f.string("reason", false);
  r.command = f.strings("command");
  r.exit_status = static_cast<int>(f.number("exit_status"));
  r.started = f.string("started", false);
  r.seconds = f.number("seconds");
  r.traces = f.strings("traces");
  r.harness = f.string("harness", false);
  for (const auto& t : r.traces) {
    // Paths are relative to the run folder: a study must stay readable where it is copied to.
    const std::filesystem::path p(t);
    const bool escapes = std::any_of(p.begin(), p.end(), [](const auto& part) { return part == ".."; });
    if (t.empty() || p.is_absolute() || escapes) f.fail("traces", "file names relative to the run folder");
  }
  if (r.status == run_status::ok && r.traces.empty()) f.fail("traces", "a non-empty array when \"status\" is \"ok\"");
  return r;
}

}  // namespace

std::string_view to_string(run_status s) {
  switch (s) {
    case run_status::ok:
      return "ok";
    case run_status::failed:
      return "failed";
    case run_status::timed_out:
      return "timed_out";
  }
  return "failed";
}

study_folder::study_folder(std::filesystem::path root) : root_(std::move(root)) {}

std::filesystem::path study_folder::run_dir(const run_key& k) const { return root_ / "runs" / k.folder_name(); }

std::optional<study_manifest> study_folder::read_manifest() const {
  const auto path = root_ / manifest_file;
  if (!std::filesystem::exists(path)) return std::nullopt;
  simdjson::dom::parser parser;
  const auto doc = load_json(parser, path, "headroom-study");
  const field_reader f(doc, path);
  return study_manifest{f.string("preset"), f.string("created", false), f.string("headroom_version", false)};
}

void study_folder::write_manifest(const study_manifest& m) const {
  std::string out = fmt::format("{{\n  \"schema_version\": {},\n  \"kind\": \"headroom-study\",\n  \"preset\": ",
                                study_schema_version);
  util::append_json_string(out, m.preset);
  out += ",\n  \"created\": ";
  util::append_json_string(out, m.created);
  out += ",\n  \"headroom_version\": ";
  util::append_json_string(out, m.headroom_version);
  out += "\n}\n";
  std::filesystem::create_directories(root_);
  write_file_atomically(root_ / manifest_file, out);
}

std::optional<run_record> study_folder::read_record(const run_key& k) const {
  const auto path = run_dir(k) / record_file;
  if (!std::filesystem::exists(path)) return std::nullopt;
  simdjson::dom::parser parser;
  auto r = parse_record(load_json(parser, path, "headroom-study-run"), path);
  r.dir = run_dir(k);
  return r;
}

void study_folder::write_record(const run_record& r) const {
  std::string out =
      fmt::format("{{\n  \"schema_version\": {},\n  \"kind\": \"headroom-study-run\",\n", study_schema_version);
  const auto field = [&out](std::string_view key, const std::string& value) {
    out += fmt::format("  \"{}\": ", key);
    util::append_json_string(out, value);
    out += ",\n";
  };
  field("workload", r.key.workload);
  field("variant", std::string(to_string(r.key.var)));
  field("recorder", std::string(to_string(r.key.rec)));
  field("domain", r.domain);
  field("status", std::string(to_string(r.status)));
  field("reason", r.reason);
  field("started", r.started);
  out += fmt::format("  \"seconds\": {:.3f},\n  \"exit_status\": {},\n", r.seconds, r.exit_status);
  out += "  \"command\": " + json_strings(r.command) + ",\n";
  out += "  \"traces\": " + json_strings(r.traces) + ",\n";
  out += "  \"harness\": ";
  util::append_json_string(out, r.harness);
  out += "\n}\n";
  const auto dir = run_dir(r.key);
  std::filesystem::create_directories(dir);
  write_file_atomically(dir / record_file, out);
}

std::vector<run_record> study_folder::records() const {
  std::vector<run_record> out;
  const auto runs = root_ / "runs";
  if (!std::filesystem::is_directory(runs)) return out;
  std::vector<std::filesystem::path> dirs;
  for (const auto& entry : std::filesystem::directory_iterator(runs)) {
    if (entry.is_directory() && std::filesystem::exists(entry.path() / record_file)) dirs.push_back(entry.path());
  }
  std::sort(dirs.begin(), dirs.end());
  simdjson::dom::parser parser;
  for (const auto& dir : dirs) {
    auto r = parse_record(load_json(parser, dir / record_file, "headroom-study-run"), dir / record_file);
    r.dir = dir;
    out.push_back(std::move(r));
  }
  return out;
}

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  util::output_file file(path);
  file.stream().write(content.data(), static_cast<std::streamsize>(content.size()));
  file.commit();
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

}  // namespace headroom::study
