// What a busy GPU means for a candidate (src/eval/gpu_busy.hpp): the worker's gpu_busy answer read
// into a report, the trusted probe's answer into a proof, and the candidate blamed only when the GPU
// turned idle once its sandbox had ended. The answers are the workers' own text
// (src/worker/timing_loop.cpp, src/worker/idle_probe.cpp), as they reach the parent.
#include "gpu_busy.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include <fmt/format.h>

namespace {

using namespace headroom::eval;

answer answered(const std::string& fields) {
  answer a;
  a.parser = std::make_shared<simdjson::dom::parser>();
  a.doc = a.parser->parse("{" + fields + "}").value();
  a.ok = a.doc["ok"].get_bool().value();
  std::string_view s;
  if (!a.doc["error"].get_string().get(s)) a.error = s;
  if (!a.doc["message"].get_string().get(s)) a.message = s;
  return a;
}

// The candidate's worker refused timed call 4: 1.9 ms round trips for the 2 s it waited.
const char* busy_answer =
    R"("ok":false,"error":"gpu_busy","kind":"","message":"the GPU stayed busy before timed call 4","call":4,"probe_ms":1.9,"first_probe_ms":2.1,"threshold_ms":0.5,"waited_ms":2001.5,"quiet_ms":0.021)";

busy_report seen() { return *busy_report_of(answered(busy_answer), "the candidate's timing"); }

idle_proof probed(bool quiet, const std::string& pids = "") {
  return idle_proof_of(answered(fmt::format(
      R"("ok":true,"probed":true,"quiet":{},"probe_ms":{},"first_probe_ms":1.8,"threshold_ms":0.5,"waited_ms":{},"probes":3,"pids":[{}])",
      quiet, quiet ? 0.024 : 1.7, quiet ? 40.0 : 10000.0, pids)));
}

TEST(GpuBusy, AGpuBusyAnswerIsReadIntoItsReport) {
  busy_report r = seen();
  EXPECT_EQ(r.call, 4);
  EXPECT_DOUBLE_EQ(r.probe_ms, 1.9);
  EXPECT_DOUBLE_EQ(r.threshold_ms, 0.5);
  EXPECT_DOUBLE_EQ(r.waited_ms, 2001.5);
  EXPECT_THROW(throw_if_busy(answered(busy_answer), "the candidate's timing"), gpu_busy_seen);
}

// Any other failure is the verdict's business, not a busy GPU: a runtime error, a timed answer.
TEST(GpuBusy, OtherAnswersAreNoBusyReport) {
  EXPECT_FALSE(busy_report_of(answered(R"("ok":false,"error":"runtime_error","kind":"","message":"boom")"), "x"));
  EXPECT_FALSE(busy_report_of(answered(R"("ok":true,"timing":{})"), "x"));
  answer died;
  died.failure = worker_failure::died;
  died.error = "gpu_busy";  // no answer was read: a dead worker said nothing
  EXPECT_FALSE(busy_report_of(died, "x"));
  EXPECT_NO_THROW(throw_if_busy(answered(R"("ok":true,"timing":{})"), "x"));
}

TEST(GpuBusy, TheTrustedProbeIsReadWithTheProcessesHoldingTheGpu) {
  idle_proof p = probed(false, "4242,977");
  EXPECT_TRUE(p.answered);
  EXPECT_FALSE(p.quiet);
  EXPECT_DOUBLE_EQ(p.probe_ms, 1.7);
  EXPECT_DOUBLE_EQ(p.waited_ms, 10000);  // written "10000": an integer in the JSON
  ASSERT_EQ(p.pids.size(), 2u);
  EXPECT_EQ(p.pids[0], 4242u);
  answer died;
  died.failure = worker_failure::died;
  died.detail = "killed by signal 9 (KILL)";
  idle_proof none = idle_proof_of(died);
  EXPECT_FALSE(none.answered);
  EXPECT_EQ(none.failure, "killed by signal 9 (KILL)");
}

// The GPU turned idle once the candidate's processes were gone: they had left the work.
TEST(GpuBusy, TheCandidateIsBlamedWhenTheGpuTurnedIdleOnceItsSandboxEnded) {
  busy_judgment b = judge_busy_gpu(seen(), probed(true));
  EXPECT_TRUE(b.candidate_blamed);
  EXPECT_NE(b.detail.find("before timed call 4"), std::string::npos) << b.detail;
  EXPECT_NE(b.detail.find("1.9 ms"), std::string::npos) << b.detail;
  EXPECT_NE(b.detail.find("left on it kept running"), std::string::npos) << b.detail;
}

// Still busy without the candidate: another process, or another lane's frozen candidate. That is
// no verdict on this candidate, and the error names the processes NVML lists.
TEST(GpuBusy, AGpuStillBusyWithoutTheCandidateIsAnErrorNotAVerdict) {
  busy_judgment b = judge_busy_gpu(seen(), probed(false, "4242,977"));
  EXPECT_FALSE(b.candidate_blamed);
  EXPECT_EQ(b.detail.rfind("refusing to time: ", 0), 0u) << b.detail;
  EXPECT_NE(b.detail.find("still busy once the candidate's processes were ended"), std::string::npos) << b.detail;
  EXPECT_NE(b.detail.find("4242, 977"), std::string::npos) << b.detail;
  EXPECT_NE(b.detail.find("run headroom eval again"), std::string::npos) << b.detail;
}

// Without a proof the candidate is not blamed: the trusted probe failed, so nothing is known.
TEST(GpuBusy, AnUnansweredProbeBlamesNoOne) {
  idle_proof none;
  none.failure = "the reference's worker is gone";
  busy_judgment b = judge_busy_gpu(seen(), none);
  EXPECT_FALSE(b.candidate_blamed);
  EXPECT_NE(b.detail.find("the reference's worker is gone"), std::string::npos) << b.detail;
  EXPECT_NE(b.detail.find("NVML listed none"), std::string::npos) << b.detail;
}

// The reference's baselines: no candidate was running, whatever the probe finds after.
TEST(GpuBusy, ABusyBaselineNamesNoCandidate) {
  busy_report r = *busy_report_of(answered(busy_answer), "timing the reference's eager baseline");
  std::string text = busy_gpu_error(r, probed(true), false);
  EXPECT_NE(text.find("timing the reference's eager baseline found the GPU busy"), std::string::npos) << text;
  EXPECT_NE(text.find("idle again when probed again"), std::string::npos) << text;
  EXPECT_EQ(text.find("candidate's processes were ended"), std::string::npos) << text;
}

}  // namespace
