// bf16 mixed precision: what `auto` picks, and a bf16 forward pass of the
// reference fixture's model against fp32 (the parity test covers fp32 itself).
#include <filesystem>
#include <fstream>
#include <string>

#include <ATen/Context.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "model/transformer.h"
#include "storage/state_dict.h"
#include "tests/test_support.h"
#include "util/config.h"
#include "util/error.h"
#include "util/precision.h"

namespace nmt {
namespace {

// The CPU's bf16 flags, read here independently of util/precision.
bool cpuinfo_lists_bf16() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) == 0) {
      return line.find(" avx512_bf16") != std::string::npos || line.find(" amx_bf16") != std::string::npos;
    }
  }
  return false;
}

TEST(Precision, ChoiceFollowsTheRequestAndTheMachine) {
  EXPECT_EQ(cpu_has_native_bf16(),
            at::hasMKLDNN() && cpuinfo_lists_bf16() && !onednn_isa_capped_below("AVX512_CORE_BF16"));
  EXPECT_EQ(choose_precision("fp32", torch::kCPU).precision, Precision::kFp32);
  if (at::hasMKLDNN()) {
    EXPECT_EQ(choose_precision("bf16", torch::kCPU).precision, Precision::kBf16);
  }
  const auto automatic = choose_precision("auto", torch::kCPU);
  EXPECT_EQ(automatic.precision, cpu_has_native_bf16() ? Precision::kBf16 : Precision::kFp32);
  EXPECT_NE(automatic.reason.find("auto"), std::string::npos) << automatic.reason;
  EXPECT_THROW(choose_precision("fp16", torch::kCPU), UsageError);
}

TEST(Precision, PrecisionScopesNestAndRestoreTheOuterState) {
  ASSERT_FALSE(autocast_enabled_on_cpu());
  {
    PrecisionScope outer(Precision::kBf16, torch::kCPU);
    EXPECT_TRUE(autocast_enabled_on_cpu());
    {
      PrecisionScope inner(Precision::kBf16, torch::kCPU);
      PrecisionScope none(Precision::kFp32, torch::kCPU);
      EXPECT_TRUE(autocast_enabled_on_cpu());
    }
    EXPECT_TRUE(autocast_enabled_on_cpu()) << "the inner scope switched the outer one off";
    EXPECT_EQ(torch::matmul(torch::ones({2, 2}), torch::ones({2, 2})).scalar_type(), torch::kBFloat16);
  }
  EXPECT_FALSE(autocast_enabled_on_cpu());
  EXPECT_EQ(torch::matmul(torch::ones({2, 2}), torch::ones({2, 2})).scalar_type(), torch::kFloat);
}

TEST(Precision, TrainConfigValidatesAndReadsTheLegacySwitch) {
  Config c;
  c.data.train_src = c.data.train_tgt = "x";
  c.train.precision = "half";
  EXPECT_THROW(c.validate(), UsageError);
  auto j = config_to_json(Config{});
  j["data"]["train_src"] = j["data"]["train_tgt"] = "x";
  j["train"].erase("precision");
  j["train"]["mixed_precision"] = false;  // configs written before train.precision
  EXPECT_EQ(config_from_json(j, "test").train.precision, "fp32");
  j["train"]["mixed_precision"] = true;
  EXPECT_EQ(config_from_json(j, "test").train.precision, "auto");
}

// bf16 keeps 8 bits of mantissa; through the fixture's layers the logits stay
// within 0.1 absolute of fp32 (their spread is several units) and the loss
// within 2%. The residual stream, LayerNorm and softmax statistics run in fp32.
TEST(Precision, Bf16ForwardMatchesFp32OnTheReferenceFixture) {
  const std::string dir = test::reference_fixture_dir();
  ASSERT_TRUE(std::filesystem::exists(dir + "/config.json")) << "reference fixture not found at " << dir;
  if (!at::hasMKLDNN()) GTEST_SKIP() << "LibTorch without oneDNN: no CPU bf16";
  // ATen sends bf16 products to oneDNN by the CPU's own flags: capped below
  // them, oneDNN cannot build one (a CPU without AVX-512 takes ATen's own).
  if (onednn_isa_capped_below("AVX512_CORE")) GTEST_SKIP() << "ONEDNN_MAX_CPU_ISA caps oneDNN below AVX-512";
  auto config = reference_model_config(read_json_file(dir + "/config.json"), dir + "/config.json");
  model::Transformer m(config);
  storage::load_state_dict(*m, storage::read_state_dict_file(dir + "/state_dict.pt"), dir + "/state_dict.pt");
  m->eval();
  auto io = storage::read_state_dict_file(dir + "/io.pt");
  torch::NoGradGuard no_grad;
  auto fp32 = m(io.at("src"), io.at("trg_in"));
  torch::Tensor bf16;
  {
    PrecisionScope autocast(Precision::kBf16, torch::kCPU);
    bf16 = m(io.at("src"), io.at("trg_in"));
  }
  EXPECT_EQ(bf16.scalar_type(), torch::kBFloat16) << "autocast did not reach the output projection";
  auto keep = io.at("gold").ne(config.trg_pad_idx);
  EXPECT_TRUE(test::tensors_close(bf16.to(torch::kFloat).index({keep}), fp32.index({keep}), 0.02, 0.1));
  auto ce = [&](const torch::Tensor& logits) {
    return torch::nn::functional::cross_entropy(
        logits.to(torch::kFloat).reshape({-1, logits.size(-1)}), io.at("gold").reshape({-1}),
        torch::nn::functional::CrossEntropyFuncOptions().ignore_index(config.trg_pad_idx));
  };
  EXPECT_TRUE(test::tensors_close(ce(bf16).reshape({1}), ce(fp32).reshape({1}), 0.02, 0));
  // Weights stay fp32 whatever ran.
  for (const auto& p : m->parameters()) EXPECT_EQ(p.scalar_type(), torch::kFloat);
}

}  // namespace
}  // namespace nmt
