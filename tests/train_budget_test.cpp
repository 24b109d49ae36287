// The end of a run by time (train.max_minutes), checkpoint averaging on the
// way out, the final validation's choice that the translator follows, and
// `trainer --average`.
#include <filesystem>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "model/transformer.h"
#include "storage/checkpoint.h"
#include "storage/state_dict.h"
#include "tests/train_test_util.h"

namespace nmt {
namespace {

namespace fs = std::filesystem;

class TrainingBudget : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(test::trainer_binary())) GTEST_SKIP() << "trainer executable not built";
    auto config = test::tiny_training_config(dir_.root());
    // Only the clock ends this run: far more steps and epochs than 1.2 s allow.
    config["train"]["max_steps"] = 1000000;
    config["train"]["epochs"] = 1000000;
    config["train"]["max_minutes"] = 0.02;
    config["train"]["schedule"] = "inverse_sqrt";
    config["checkpoint"] = {{"every_steps", 2}, {"keep_last", 1}, {"average_last", 3}};
    config["train"]["precision"] = "fp32";
    config["valid"] = {{"every_steps", 1000},    {"bleu", true},
                       {"beam", 1},              {"final_beam", 2},
                       {"tune_beams", {1, 2}},   {"tune_length_penalties", {0.0, 1.0}}};
    test::write_json(dir_.path("c.json"), config);
  }
  test::CommandResult run(const std::string& binary, const std::string& args) {
    return test::run_command(test::shell_quote(binary) + " " + args);
  }
  std::string checkpoints() const { return dir_.path("run") + "/checkpoints"; }
  test::TempDir dir_;
};

TEST_F(TrainingBudget, ATinyBudgetStopsCleanlyWithAnAverageAndAChoice) {
  const auto r = run(test::trainer_binary(),
                     "--config " + test::shell_quote(dir_.path("c.json")) + " --out " + test::shell_quote(dir_.path("run")));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("time budget of 0.02 minutes used"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("trainer: done at step"), std::string::npos) << r.output;

  // average.pt: the mean of the newest 3 step checkpoints, kept for it despite keep_last 1.
  ASSERT_TRUE(fs::exists(checkpoints() + "/average.pt")) << r.output;
  const auto averaged = storage::load_checkpoint(checkpoints() + "/average.pt");
  const auto steps = averaged.state.at("averaged_steps").get<std::vector<int64_t>>();
  ASSERT_FALSE(steps.empty());
  EXPECT_LE(steps.size(), 3u);
  const auto last = storage::load_checkpoint(checkpoints() + "/last.pt");
  EXPECT_EQ(steps.front(), last.step());
  EXPECT_GE(last.state.at("elapsed_seconds").get<double>(), 0.02 * 60);

  // The final validation scored best.pt and average.pt with beam 2 and chose one.
  const auto scores = nlohmann::json::parse(test::read_text(checkpoints() + "/scores.json"));
  EXPECT_EQ(scores.at("beam"), 2);
  EXPECT_EQ(scores.at("checkpoints").size(), 2u);
  const std::string chosen = scores.at("chosen");
  EXPECT_TRUE(chosen == "best.pt" || chosen == "average.pt") << chosen;
  const std::string metrics = test::read_text(dir_.path("run") + "/metrics.jsonl");
  EXPECT_NE(metrics.find("\"final_bleu\""), std::string::npos);
  EXPECT_NE(metrics.find("\"valid_share\""), std::string::npos);
  // Every training line records the process's resident and peak memory.
  int train_lines = 0;
  std::istringstream lines(metrics);
  for (std::string line; std::getline(lines, line);) {
    const auto record = nlohmann::json::parse(line);
    if (record.at("type") != "train") continue;
    ++train_lines;
    const double rss = record.at("rss_mib"), peak = record.at("peak_rss_mib");
    EXPECT_GT(rss, 10.0) << line;  // LibTorch alone takes more
    EXPECT_GE(peak, rss) << line;
  }
  EXPECT_GT(train_lines, 0);

  // The translator follows that choice and says so.
  const std::string translator = test::binary_dir() + "/translator";
  const auto translated = run(translator, "--model " + test::shell_quote(dir_.path("run")) + " 'the cat sees a dog'");
  ASSERT_EQ(translated.code, 0) << translated.output;
  EXPECT_NE(translated.output.find("translator: using " + checkpoints() + "/" + chosen), std::string::npos)
      << translated.output;

  // Then every beam x length penalty of valid.tune_* decoded the validation
  // set with the chosen checkpoint, and decoding.json holds the best pair.
  const auto decoding = nlohmann::json::parse(test::read_text(dir_.path("run") + "/decoding.json"));
  ASSERT_EQ(decoding.at("trials").size(), 4u) << decoding.dump();
  double best = -1;
  for (const auto& t : decoding.at("trials")) best = std::max(best, t.at("bleu").get<double>());
  EXPECT_EQ(decoding.at("bleu").get<double>(), best);
  EXPECT_EQ(decoding.at("checkpoint"), chosen);
  EXPECT_NE(metrics.find("\"type\":\"decoding\""), std::string::npos);
  const int64_t beam = decoding.at("beam");
  const double alpha = decoding.at("length_penalty");
  EXPECT_NE(translated.output.find("as the final validation chose"), std::string::npos) << translated.output;
  // The recorded BLEU is what the translator scores on the validation set
  // with that choice, each sentence whole as validation takes it (no pieces
  // within the model's length, no coverage retries).
  const auto scored = run(translator, "--model " + test::shell_quote(dir_.path("run")) +
                                          " --precision fp32 --no-coverage-check --max-piece-tokens 1000 --input " + test::shell_quote(dir_.path("valid.en")) +
                                          " --score " + test::shell_quote(dir_.path("valid.de")));
  ASSERT_EQ(scored.code, 0) << scored.output;
  std::string last_line;  // the score line: the last JSON line of the output
  std::istringstream out_lines(scored.output);
  for (std::string line; std::getline(out_lines, line);) {
    if (!line.empty() && line.front() == '{') last_line = line;
  }
  EXPECT_NEAR(nlohmann::json::parse(last_line).at("bleu").get<double>(), decoding.at("bleu").get<double>(), 0.01)
      << scored.output;
  EXPECT_NE(scored.output.find("beam " + std::to_string(beam)), std::string::npos) << scored.output;
  // A flag overrides its half of the choice, and the line says which.
  const auto flagged = run(translator, "--model " + test::shell_quote(dir_.path("run")) + " --beam 3 'the cat'");
  ASSERT_EQ(flagged.code, 0) << flagged.output;
  EXPECT_NE(flagged.output.find("beam 3 (--beam)"), std::string::npos) << flagged.output;
  char penalty[32];
  std::snprintf(penalty, sizeof penalty, "length penalty %.2f,", alpha);
  EXPECT_NE(flagged.output.find(penalty), std::string::npos) << flagged.output;

  // The averaged checkpoint exports to the reference's state_dict, which loads into the model.
  const auto exported = run(translator, "--model " + test::shell_quote(dir_.path("run")) + " --checkpoint " +
                                            test::shell_quote(checkpoints() + "/average.pt") +
                                            " --export-state-dict " + test::shell_quote(dir_.path("avg_sd.pt")));
  ASSERT_EQ(exported.code, 0) << exported.output;
  const auto dict = storage::read_state_dict_file(dir_.path("avg_sd.pt"));
  const auto config = model_config_from_json(averaged.config.at("model"), "average.pt");
  model::Transformer fresh(config);
  ASSERT_NO_THROW(storage::load_state_dict(*fresh, dict, "exported average"));
  for (const auto& [name, tensor] : averaged.weights) {
    ASSERT_TRUE(dict.count(name)) << name;
    EXPECT_TRUE(torch::equal(dict.at(name), tensor)) << name;
  }
}

TEST_F(TrainingBudget, AverageCommandWritesTheMean) {
  auto config = test::tiny_training_config(dir_.root());
  config["checkpoint"] = {{"every_steps", 3}, {"keep_last", 4}};
  test::write_json(dir_.path("steps.json"), config);
  const std::string base =
      "--config " + test::shell_quote(dir_.path("steps.json")) + " --out " + test::shell_quote(dir_.path("run"));
  ASSERT_EQ(run(test::trainer_binary(), base).code, 0);
  const std::string a = checkpoints() + "/step-000000006.pt", b = checkpoints() + "/step-000000012.pt";
  const std::string out = dir_.path("mean.pt");
  const auto r = run(test::trainer_binary(), "--average " + test::shell_quote(a) + " " + test::shell_quote(b) +
                                                 " --output " + test::shell_quote(out));
  ASSERT_EQ(r.code, 0) << r.output;
  const auto ca = storage::load_checkpoint(a), cb = storage::load_checkpoint(b), mean = storage::load_checkpoint(out);
  for (const auto& [name, ta] : ca.weights) {
    const auto expected = ((ta.to(torch::kDouble) + cb.weights.at(name).to(torch::kDouble)) / 2).to(torch::kFloat);
    EXPECT_TRUE(torch::equal(mean.weights.at(name), expected)) << name;
  }
  const auto no_output = run(test::trainer_binary(), "--average " + test::shell_quote(a));
  EXPECT_EQ(no_output.code, 2) << no_output.output;
  EXPECT_NE(no_output.output.find("--output"), std::string::npos) << no_output.output;
  const auto missing = run(test::trainer_binary(), "--average " + test::shell_quote(dir_.path("nope.pt")) +
                                                       " --output " + test::shell_quote(out));
  EXPECT_EQ(missing.code, 3) << missing.output;
  EXPECT_NE(missing.output.find("nope.pt"), std::string::npos) << missing.output;
}

}  // namespace
}  // namespace nmt
