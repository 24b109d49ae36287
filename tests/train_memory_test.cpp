// Resident memory while training (not timed): the training step over batches
// of ever-changing shapes stops growing after a warm-up that has seen the
// largest batch, and the allocator hands a one-off peak back when asked.
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "data/batch.h"
#include "model/transformer.h"
#include "tests/test_support.h"
#include "train/train_step.h"
#include "util/allocator.h"
#include "util/proc_status.h"

namespace nmt {
namespace {

constexpr int64_t kVocab = 2000, kMaxRows = 48, kMaxLen = 60, kPad = 1;

// `rows` pairs of random tokens; the first row `len` long, the others of a
// random length in [1, len], padded after their end.
data::Batch random_batch(std::mt19937& rng, int64_t rows, int64_t len) {
  std::uniform_int_distribution<int64_t> token(4, kVocab - 1), length(1, len);
  data::Batch b;
  b.src = torch::full({rows, len}, kPad, torch::kLong);
  b.tgt_in = torch::full({rows, len}, kPad, torch::kLong);
  b.gold = torch::full({rows, len}, kPad, torch::kLong);
  auto src = b.src.accessor<int64_t, 2>(), tgt_in = b.tgt_in.accessor<int64_t, 2>(),
       gold = b.gold.accessor<int64_t, 2>();
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t n = r == 0 ? len : length(rng);
    for (int64_t i = 0; i < n; ++i) {
      src[r][i] = token(rng);
      tgt_in[r][i] = token(rng);
      gold[r][i] = token(rng);
    }
    b.tgt_tokens += n;
  }
  return b;
}

class TrainingMemory : public ::testing::Test {
 protected:
  TrainingMemory() : model_(nullptr), optimizer_(nullptr) {
    auto config = test::tiny_model_config(kMaxLen + 1, kVocab);
    config.d_model = 64;
    config.ffn_hidden = 256;
    config.drop_prob = 0.1;
    torch::manual_seed(3);
    model_ = model::Transformer(config);
    model::init_weights_like_reference(*model_);
    model_->train();
    optimizer_ = std::make_unique<torch::optim::Adam>(model_->parameters(), torch::optim::AdamOptions(1e-3));
  }

  void step(const data::Batch& batch) {
    optimizer_->zero_grad();
    train::forward_backward(*model_, batch, static_cast<double>(batch.tgt_tokens), settings_);
    optimizer_->step();
  }

  model::Transformer model_;
  std::unique_ptr<torch::optim::Adam> optimizer_;
  train::StepSettings settings_;
};

TEST_F(TrainingMemory, StopsGrowingAfterWarmUpOverEverChangingBatchShapes) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int64_t> rows(1, kMaxRows), len(1, kMaxLen);
  // Warm-up: the largest batch, then shapes of every size.
  for (int i = 0; i < 40; ++i)
    step(i % 4 == 0 ? random_batch(rng, kMaxRows, kMaxLen) : random_batch(rng, rows(rng), len(rng)));
  const double warm = proc_status_mib("VmRSS");
  ASSERT_GT(warm, 0) << "no /proc/self/status";
  // 360 more steps: nearly every one a (rows, length) pair not seen before,
  // with a one-off peak in between as a validation or a checkpoint makes.
  double highest = warm;
  for (int i = 0; i < 360; ++i) {
    step(random_batch(rng, rows(rng), len(rng)));
    if (i % 120 == 60) {
      auto scratch = torch::ones({32 << 20}, torch::kFloat);  // 128 MiB, touched
      scratch.reset();
      release_free_memory();
    }
    highest = std::max(highest, proc_status_mib("VmRSS"));
  }
  std::printf("resident memory %.1f MiB after warm-up, at most %.1f MiB after it (%s)\n", warm, highest,
              allocator_name().c_str());
  EXPECT_LE(highest, warm * 1.03 + 4) << "resident memory grew after warm-up: " << warm << " MiB after it, up to "
                                      << highest << " MiB later (" << allocator_name() << ")";
}

TEST(Allocator, GivesAOneOffPeakBackWhenAsked) {
  const double before = proc_status_mib("VmRSS");
  const double allocated_before = allocated_mib();
  auto block = torch::ones({64 << 20}, torch::kFloat);  // 256 MiB, every page touched
  const double held = proc_status_mib("VmRSS");
  EXPECT_GT(held, before + 200) << allocator_name();
  if (allocated_before >= 0) {
    EXPECT_GT(allocated_mib(), allocated_before + 250) << allocator_name();
  }
  block.reset();
  release_free_memory();
  EXPECT_LT(proc_status_mib("VmRSS"), held - 200) << allocator_name();
}

}  // namespace
}  // namespace nmt
