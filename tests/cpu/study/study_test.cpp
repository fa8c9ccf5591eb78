// The study's registry, plan, commands and folder records: what a user relies on when a study is
// resumed, copied or assembled by hand (docs/study.md).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "headroom/study/folder.hpp"
#include "headroom/study/runs.hpp"
#include "headroom/study/workloads.hpp"
#include "headroom/util/error.hpp"

using namespace headroom;
using namespace headroom::study;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace {

class temp_dir {
 public:
  temp_dir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "headroom-study-test-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~temp_dir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

std::filesystem::path write(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text;
  return p;
}

std::string input_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const input_error& e) {
    return e.what();
  }
  return "(no input_error)";
}

std::vector<workload> shipped() {
  return read_workloads(std::filesystem::path(HEADROOM_SOURCE_DIR) / "workloads" / "study.toml");
}

}  // namespace

TEST(StudyWorkloads, TheShippedRegistryHasEveryReferenceWorkloadWithItsScript) {
  const auto all = shipped();
  std::vector<std::string> names;
  for (const auto& w : all) {
    names.push_back(w.name);
    EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(HEADROOM_SOURCE_DIR) / "workloads" / w.script))
        << w.script;
    EXPECT_THAT((std::vector<std::string>{"transformer", "recommender", "vision"}), ::testing::Contains(w.domain));
  }
  EXPECT_THAT(names, ElementsAre("gpt_train", "llama_decode", "bert_infer", "dlrm_train", "dlrm_infer", "dlrmv2_train",
                                 "hstu_train", "hstu_train_fused", "resnet50_train", "vit_infer"));
}

TEST(StudyWorkloads, SelectionKeepsTheRegistryOrderAndNamesUnknownWorkloads) {
  const auto all = shipped();
  const auto chosen = select_workloads(all, "vit_infer,gpt_train");
  ASSERT_EQ(chosen.size(), 2u);
  EXPECT_EQ(chosen[0].name, "gpt_train");
  EXPECT_EQ(chosen[1].name, "vit_infer");
  EXPECT_EQ(select_workloads(all, "all").size(), all.size());
  EXPECT_THAT(input_error_of([&] { select_workloads(all, "gpt_train,bert"); }),
              HasSubstr("unknown workload 'bert'; the study knows gpt_train, llama_decode"));
  EXPECT_THAT(input_error_of([&] { select_workloads(all, ","); }), HasSubstr("names no workload"));
}

TEST(StudyWorkloads, ARegistryWithMistakesIsRefusedWithTheEntryAndTheProblem) {
  temp_dir d;
  const auto f =
      write(d.path() / "study.toml", "[[workload]]\nname = \"a\"\nscript = \"a.py\"\ndomain = \"x\"\ntimout = 3\n");
  EXPECT_THAT(input_error_of([&] { read_workloads(f); }), HasSubstr("workload 1: unknown key `timout`"));
  write(f, "[[workload]]\nname = \"A b\"\nscript = \"a.py\"\ndomain = \"x\"\n");
  EXPECT_THAT(input_error_of([&] { read_workloads(f); }), HasSubstr("may hold only a-z"));
  write(
      f,
      "[[workload]]\nname = \"a\"\nscript = \"a.py\"\ndomain = \"x\"\n[[workload]]\nname = \"a\"\nscript = \"b.py\"\ndomain = \"x\"\n");
  EXPECT_THAT(input_error_of([&] { read_workloads(f); }), HasSubstr("workload 2: name 'a' appears twice"));
  write(f, "[[workload]]\nname = \"a\"\ndomain = \"x\"\n");
  EXPECT_THAT(input_error_of([&] { read_workloads(f); }), HasSubstr("`script` must be a non-empty string"));
  write(f, "[[workload]\n");
  EXPECT_THAT(input_error_of([&] { read_workloads(f); }), HasSubstr("study.toml"));
}

TEST(StudyRuns, HeadroomRunsComeFirstSoAStudyCutShortHasItsTable) {
  const auto all = select_workloads(shipped(), "gpt_train,dlrm_infer");
  std::vector<std::string> order;
  for (const auto& r : plan_runs(all, true, true)) order.push_back(r.key.folder_name());
  EXPECT_THAT(order, ElementsAre("gpt_train.eager.headroom", "dlrm_infer.eager.headroom", "gpt_train.compile.headroom",
                                 "dlrm_infer.compile.headroom", "gpt_train.eager.torch", "dlrm_infer.eager.torch",
                                 "gpt_train.compile.torch", "dlrm_infer.compile.torch"));
  EXPECT_EQ(plan_runs(all, false, false).size(), 2u);
}

TEST(StudyRuns, EachRecorderGetsTheCommandThatWritesItsTraceIntoTheRunFolder) {
  const auto w = select_workloads(shipped(), "gpt_train");
  run_settings s;
  s.headroom = "/opt/headroom/bin/headroom";
  s.workloads_dir = "/src/workloads";
  s.python = "/usr/bin/python3";
  s.steps = 4;
  const auto runs = plan_runs(w, true, true);
  EXPECT_THAT(
      run_command(runs[0], s, "/s/runs/gpt_train.eager.headroom"),
      ElementsAre("/opt/headroom/bin/headroom", "profile", "-o", "/s/runs/gpt_train.eager.headroom/trace.sqlite", "--",
                  "/usr/bin/python3", "/src/workloads/gpt.py", "--mode", "train", "--preset", "large", "--summary",
                  "/s/runs/gpt_train.eager.headroom/run.json", "--steps", "4"));
  EXPECT_THAT(run_command(runs[3], s, "/s/r"),
              ElementsAre("/usr/bin/python3", "/src/workloads/gpt.py", "--mode", "train", "--preset", "large",
                          "--summary", "/s/r/run.json", "--steps", "4", "--compile", "--profile", "torch-all",
                          "--trace", "/s/r/trace.json.gz"));
}

TEST(StudyFolder, ARecordReadsBackAsWritten) {
  temp_dir d;
  const study_folder folder(d.path());
  run_record r;
  r.key = {"llama_decode", variant::compiled, recorder::torch};
  r.domain = "transformer";
  r.status = run_status::timed_out;
  r.reason = "ran past its 180 s timeout; last line of the log: \"quoted\"\n";
  r.command = {"python3", "llama.py", "--name", "a b"};
  r.exit_status = 143;
  r.started = "2026-12-01T10:00:00Z";
  r.seconds = 180.25;
  r.harness = "run.json";
  folder.write_record(r);
  EXPECT_TRUE(std::filesystem::exists(d.path() / "runs" / "llama_decode.compile.torch" / "result.json"));
  const auto back = folder.read_record(r.key);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->key, r.key);
  EXPECT_EQ(back->domain, r.domain);
  EXPECT_EQ(back->status, run_status::timed_out);
  EXPECT_EQ(back->reason, r.reason);
  EXPECT_EQ(back->command, r.command);
  EXPECT_EQ(back->exit_status, 143);
  EXPECT_DOUBLE_EQ(back->seconds, 180.25);
  EXPECT_EQ(back->harness, "run.json");
  EXPECT_EQ(back->dir, folder.run_dir(r.key));
  EXPECT_FALSE(folder.read_record({"llama_decode", variant::eager, recorder::torch}).has_value());
  ASSERT_EQ(folder.records().size(), 1u);
}

TEST(StudyFolder, RecordsThatCouldBeMisreadAreRefusedNamingTheFile) {
  temp_dir d;
  const study_folder folder(d.path());
  const run_key k{"x", variant::eager, recorder::headroom};
  const auto f = folder.run_dir(k) / "result.json";
  const auto record = [&](const std::string& fields) {
    write(f, R"({"kind": "headroom-study-run", "workload": "x", "variant": "eager", "recorder": "headroom", )" +
                 fields + "}");
    return input_error_of([&] { folder.read_record(k); });
  };
  EXPECT_THAT(record(R"("schema_version": 2, "status": "ok", "traces": ["t.sqlite"])"),
              HasSubstr("written by a newer headroom"));
  EXPECT_THAT(record(R"("schema_version": 1, "status": "ok", "traces": [])"),
              HasSubstr("result.json: \"traces\" must be a non-empty array when \"status\" is \"ok\""));
  EXPECT_THAT(record(R"("schema_version": 1, "status": "ok", "traces": ["../../elsewhere.sqlite"])"),
              HasSubstr("relative to the run folder"));
  EXPECT_THAT(record(R"("schema_version": 1, "status": "done", "traces": ["t.sqlite"])"),
              HasSubstr("\"status\" must be"));
  write(f, "{\"kind\": \"analysis\", \"schema_version\": 1}");
  EXPECT_THAT(input_error_of([&] { folder.read_record(k); }), HasSubstr("not a headroom-study-run file"));
}

TEST(StudyFolder, TheManifestNamesThePreset) {
  temp_dir d;
  const study_folder folder(d.path() / "new");
  EXPECT_FALSE(folder.read_manifest().has_value());
  folder.write_manifest({"tiny", "2026-12-01T10:00:00Z", "0.1.0"});
  const auto m = folder.read_manifest();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->preset, "tiny");
  EXPECT_EQ(m->headroom_version, "0.1.0");
}

TEST(StudyFolder, AnAtomicWriteLeavesTheWholeFileAndNoTemporary) {
  temp_dir d;
  const auto f = d.path() / "summary.md";
  write_file_atomically(f, "first\n");
  write_file_atomically(f, "second\n");
  std::ifstream in(f);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "second\n");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(d.path()), std::filesystem::directory_iterator()), 1);
  EXPECT_THAT(input_error_of([&] { write_file_atomically(d.path() / "no-such-folder" / "x", "x"); }),
              HasSubstr("cannot write"));
}
