// A bf16 training run keeps its checkpoints interchangeable: fp32 master
// weights, loadable by an fp32 translator, exportable to the reference's
// state_dict; the log says which precision ran and why.
#include <ATen/Context.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "storage/checkpoint.h"
#include "storage/state_dict.h"
#include "tests/train_test_util.h"
#include "train/trainer.h"

namespace nmt::train {
namespace {

TEST(Bf16Training, CheckpointLoadsInAnFp32TranslatorAndExportsToTheReference) {
  if (!at::hasMKLDNN()) GTEST_SKIP() << "LibTorch without oneDNN: no CPU bf16";
  test::TempDir dir;
  auto config = test::tiny_training_config(dir.root());
  config["train"]["precision"] = "bf16";
  config["train"]["max_steps"] = 6;
  test::write_json(dir.path("config.json"), config);
  TrainerOptions o;
  o.config_path = dir.path("config.json");
  o.out_dir = dir.path("run");
  o.progress_on_terminal = false;
  ASSERT_EQ(run_training(o).step, 6);
  const std::string log = test::read_text(dir.path("run") + "/train.log");
  EXPECT_NE(log.find("precision bf16 (asked for)"), std::string::npos) << log;

  const auto checkpoint = storage::load_checkpoint(dir.path("run") + "/checkpoints/last.pt");
  for (const auto& [name, t] : checkpoint.weights) EXPECT_EQ(t.scalar_type(), torch::kFloat) << name;
  const std::string translator = test::shell_quote(test::binary_dir() + "/translator");
  const std::string model = " --model " + test::shell_quote(dir.path("run"));
  const auto exported = test::run_command(translator + model + " --precision fp32 --export-state-dict " +
                                          test::shell_quote(dir.path("w.pt")));
  ASSERT_EQ(exported.code, 0) << exported.output;
  const auto dict = storage::read_state_dict_file(dir.path("w.pt"));
  ASSERT_EQ(dict.size(), checkpoint.weights.size());
  for (const auto& [name, t] : checkpoint.weights) {
    ASSERT_TRUE(dict.count(name)) << name;
    EXPECT_TRUE(torch::equal(dict.at(name), t)) << name;
  }
  EXPECT_TRUE(dict.count("decoder.layers.0.enc_dec_attention.w_q.weight"));
  for (const char* precision : {"fp32", "bf16"}) {
    const auto translated =
        test::run_command(translator + model + " --precision " + precision + " 'the man sees the dog .'");
    EXPECT_EQ(translated.code, 0) << precision << ": " << translated.output;
  }
}

}  // namespace
}  // namespace nmt::train
