// The optimizer's state as checkpoints store it: the same bytes for the same
// state whatever the parameters' addresses, a round trip that trains on
// exactly as before, LibTorch's older archive still read, and state from
// another model refused without touching the optimizer.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "storage/optimizer_bytes.h"
#include "tests/test_support.h"
#include "util/error.h"

namespace nmt::storage {
namespace {

using torch::optim::Adam;
using torch::optim::AdamOptions;

// A seeded tiny model and an Adam that has taken `steps` steps on seeded gradients.
struct Trained {
  model::Transformer model;
  Adam adam;
  Trained(int64_t steps, int64_t vocab = 40)
      : model(test::tiny_model(3, 32, vocab)),
        adam(model->parameters(), AdamOptions(1e-3).betas({0.9, 0.98}).weight_decay(0.01)) {
    for (int64_t s = 0; s < steps; ++s) step(100 + s);
  }
  void step(uint64_t seed) {
    torch::manual_seed(seed);
    adam.zero_grad();
    for (auto& p : model->parameters()) p.mutable_grad() = torch::randn_like(p);
    adam.step();
  }
};

TEST(OptimizerBytes, TheSameStateGivesTheSameBytesWhereverTheParametersLie) {
  Trained a(3), b(3);
  ASSERT_NE(a.model->parameters()[0].data_ptr(), b.model->parameters()[0].data_ptr());
  EXPECT_EQ(optimizer_bytes(a.adam), optimizer_bytes(b.adam));
  b.step(999);
  EXPECT_NE(optimizer_bytes(a.adam), optimizer_bytes(b.adam));
}

TEST(OptimizerBytes, ARoundTripTrainsOnExactlyAsTheOriginal) {
  Trained original(3), copy(0);
  copy.adam.param_groups()[0].options().set_lr(0.5);  // restored from the bytes
  for (size_t i = 0; i < original.model->parameters().size(); ++i) {
    torch::NoGradGuard no_grad;
    copy.model->parameters()[i].copy_(original.model->parameters()[i]);
  }
  load_optimizer_bytes(copy.adam, optimizer_bytes(original.adam), "a.pt");
  EXPECT_EQ(optimizer_bytes(copy.adam), optimizer_bytes(original.adam));
  EXPECT_DOUBLE_EQ(copy.adam.param_groups()[0].options().get_lr(), 1e-3);
  original.step(7);
  copy.step(7);
  for (size_t i = 0; i < original.model->parameters().size(); ++i) {
    EXPECT_TRUE(torch::equal(original.model->parameters()[i], copy.model->parameters()[i])) << i;
  }
}

TEST(OptimizerBytes, LibTorchsArchiveOfFormatVersionOneStillLoads) {
  Trained original(2), copy(0);
  torch::serialize::OutputArchive archive;
  original.adam.save(archive);
  std::ostringstream out;
  archive.save_to(out);
  load_optimizer_bytes(copy.adam, out.str(), "old.pt");
  EXPECT_EQ(optimizer_bytes(copy.adam), optimizer_bytes(original.adam));
}

TEST(OptimizerBytes, StateOfAnotherModelIsRefusedAndChangesNothing) {
  Trained other(2, /*vocab=*/48), mine(1);
  const std::string before = optimizer_bytes(mine.adam);
  EXPECT_TRUE(test::throws_with<DataError>([&] { load_optimizer_bytes(mine.adam, optimizer_bytes(other.adam), "x.pt"); },
                                           {"x.pt", "does not fit this model", "another shape"}));
  EXPECT_EQ(optimizer_bytes(mine.adam), before);
  const std::string bytes = optimizer_bytes(mine.adam);
  EXPECT_TRUE(test::throws_with<DataError>(
      [&] { load_optimizer_bytes(mine.adam, bytes.substr(0, bytes.size() / 2), "cut.pt"); }, {"cut.pt"}));
  EXPECT_TRUE(test::throws_with<DataError>([&] { load_optimizer_bytes(mine.adam, "garbage", "junk.pt"); },
                                           {"junk.pt"}));
  EXPECT_EQ(optimizer_bytes(mine.adam), before);
}

}  // namespace
}  // namespace nmt::storage
