// The replay verdict of a suspect: "the API" when the float64 replays on each run's inputs agree
// far better than the dumped outputs, "its inputs" when they differ as much.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "msprobe/compare/replay_verdict.h"
#include "msprobe/jobs/suspect_replay.h"
#include "tensor_views.h"
#include "test_files.h"

namespace msprobe {
namespace compare {
namespace {

using test::view_of;

TEST(ReplayVerdict, TheApiOrItsInputs) {
  const std::vector<double> bench_replay{1.0, 2.0, 3.0, 4.0};
  const std::vector<float> bench_dumped{1.0f, 2.0f, 3.0f, 4.0f};
  const std::vector<double> npu_replay_same{1.0, 2.0, 3.0, 4.0000001};
  const std::vector<float> npu_dumped_off{1.01f, 2.0f, 3.0f, 4.0f};  // the NPU kernel is off
  const std::vector<double> npu_replay_off{1.01, 2.0, 3.0, 4.0};     // its inputs already were

  const auto api =
      judge_replay({view_of(npu_dumped_off, DType::kFloat32)}, {view_of(bench_dumped, DType::kFloat32)},
                   {view_of(npu_replay_same, DType::kFloat64)}, {view_of(bench_replay, DType::kFloat64)});
  EXPECT_EQ(api.verdict, "the API");
  EXPECT_NEAR(api.dumped_output_error, 0.01 / std::sqrt(30.0), 1e-6);
  EXPECT_GT(api.npu_api_error, 1000 * api.bench_api_error);

  const auto inputs =
      judge_replay({view_of(npu_dumped_off, DType::kFloat32)}, {view_of(bench_dumped, DType::kFloat32)},
                   {view_of(npu_replay_off, DType::kFloat64)}, {view_of(bench_replay, DType::kFloat64)});
  EXPECT_EQ(inputs.verdict, "its inputs");
  EXPECT_NE(inputs.reason.find("explains the output error"), std::string::npos);

  const auto same =
      judge_replay({view_of(bench_dumped, DType::kFloat32)}, {view_of(bench_dumped, DType::kFloat32)},
                   {view_of(bench_replay, DType::kFloat64)}, {view_of(bench_replay, DType::kFloat64)});
  EXPECT_EQ(same.verdict, "");
  EXPECT_NE(same.reason.find("not judged"), std::string::npos);
}

}  // namespace
}  // namespace compare
}  // namespace msprobe

namespace msprobe {
namespace compare {
namespace {

// Suspects that cannot be replayed say why, without the framework being called: a module (its
// code is not in the dump) and a backward API whose forward entry is missing.
TEST(ReplaySuspects, ModulesAndMissingEntriesSayWhy) {
  const std::string dir = test::temp_dir("replay_suspects");
  const std::string json =
      R"({"task": "tensor", "level": "mix", "dump_data_dir": ")" + dir +
      R"(/dump_tensor_data", "data": {"Functional.gelu.0.backward": {"input": [], "output": []}}})";
  test::write_file(dir + "/npu_dump.json", json);
  test::write_file(dir + "/bench_dump.json", json);
  CompareJob job;
  job.npu_json = dir + "/npu_dump.json";
  job.bench_json = dir + "/bench_dump.json";
  int calls = 0;
  job.replay = [&](const ReplayRequest&, const ReplayJudge&) { ++calls; };
  std::vector<Suspect> suspects(2);
  suspects[0].name = "Module.fc.Linear.forward.0";
  suspects[1].name = "Functional.gelu.0.backward";
  suspects[1].forward = false;
  replay_suspects(&suspects, job);
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(suspects[0].replay.reason.rfind("not replayed: a module's code is not in the dump", 0), 0u);
  EXPECT_EQ(suspects[1].replay.reason, "not replayed: the NPU dump has no entry Functional.gelu.0.forward");
  EXPECT_EQ(replay_line(suspects[1]),
            "Replay of Functional.gelu.0.backward: not replayed: the NPU dump has no entry "
            "Functional.gelu.0.forward.");
}

}  // namespace
}  // namespace compare
}  // namespace msprobe
