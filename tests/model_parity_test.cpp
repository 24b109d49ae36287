// Parity with the reference implementation (hyunwoongko/transformer): the same
// weights and inputs give the same logits, loss and gradients. The fixture was
// written by the reference's own modules (docs/reference_parity.md).
#include <filesystem>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "model/transformer.h"
#include "storage/state_dict.h"
#include "tests/test_support.h"
#include "util/atomic_file.h"
#include "util/config.h"

namespace nmt::model {
namespace {

// Float32 tolerances: the arithmetic is the same, only summation order may differ
// between BLAS builds.
constexpr double kRtol = 1e-5;
constexpr double kAtol = 1e-6;

class ReferenceParity : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::reference_fixture_dir();
    ASSERT_TRUE(std::filesystem::exists(dir_ + "/config.json"))
        << "reference fixture not found at " << dir_ << " (committed in tests/fixtures/reference; NMT_REFERENCE_FIXTURE overrides)";
    config_ = reference_model_config(read_json_file(dir_ + "/config.json"), dir_ + "/config.json");
    model_ = Transformer(config_);
    storage::load_state_dict(*model_, storage::read_state_dict_file(dir_ + "/state_dict.pt"), dir_ + "/state_dict.pt");
    model_->eval();
    io_ = storage::read_state_dict_file(dir_ + "/io.pt");
  }

  torch::Tensor loss_of(const torch::Tensor& logits) const {
    return torch::nn::functional::cross_entropy(
        logits.reshape({-1, logits.size(-1)}), io_.at("gold").reshape({-1}),
        torch::nn::functional::CrossEntropyFuncOptions().ignore_index(config_.trg_pad_idx));
  }

  std::string dir_;
  ModelConfig config_;
  Transformer model_{nullptr};
  storage::StateDict io_;
};

TEST_F(ReferenceParity, LogitsMatchAtEveryNonPadTarget) {
  auto logits = model_(io_.at("src"), io_.at("trg_in"));
  const auto& expected = io_.at("logits");
  ASSERT_EQ(logits.sizes(), expected.sizes());
  auto keep = io_.at("gold").ne(config_.trg_pad_idx);
  ASSERT_GT(keep.sum().item<int64_t>(), 0);
  EXPECT_TRUE(test::tensors_close(logits.index({keep}), expected.index({keep}), kRtol, kAtol));
}

TEST_F(ReferenceParity, LossMatches) {
  auto loss = loss_of(model_(io_.at("src"), io_.at("trg_in")));
  EXPECT_TRUE(test::tensors_close(loss.reshape({1}), io_.at("loss").reshape({1}), kRtol, kAtol));
}

TEST_F(ReferenceParity, EveryGradientMatches) {
  auto grads = storage::read_state_dict_file(dir_ + "/grads.pt");
  loss_of(model_(io_.at("src"), io_.at("trg_in"))).backward();
  auto params = model_->named_parameters();
  ASSERT_EQ(params.size(), grads.size()) << "fixture has gradients for a different parameter set";
  for (const auto& item : params) {
    auto it = grads.find(item.key());
    ASSERT_NE(it, grads.end()) << "no reference gradient for " << item.key();
    ASSERT_TRUE(item.value().grad().defined()) << "no gradient computed for " << item.key();
    EXPECT_TRUE(test::tensors_close(item.value().grad(), it->second, 1e-4, 1e-6)) << item.key();
  }
}

TEST_F(ReferenceParity, ExportThenLoadGivesIdenticalParameters) {
  auto path = test::make_temp_dir("export") + "/exported.pt";
  storage::write_state_dict_file(path, storage::state_dict_of(*model_));
  Transformer other(config_);
  storage::load_state_dict(*other, storage::read_state_dict_file(path), path);
  auto mine = storage::state_dict_of(*model_);
  auto theirs = storage::state_dict_of(*other);
  ASSERT_EQ(mine.size(), theirs.size());
  for (const auto& [name, tensor] : mine) EXPECT_TRUE(torch::equal(tensor, theirs.at(name))) << name;
  // The export holds exactly the reference's keys: the fixture's.
  auto reference = storage::read_state_dict_file(dir_ + "/state_dict.pt");
  for (const auto& [name, tensor] : reference) EXPECT_TRUE(mine.count(name)) << name;
  EXPECT_EQ(reference.size(), mine.size());
}

}  // namespace
}  // namespace nmt::model
