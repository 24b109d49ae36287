// The fused decoding step (kernels/decoder_step.h) against the modules' own
// step (DecoderImpl::forward_cached, then the scorer's log-softmax): the same
// bits in fp32 and int8, pre-norm and post-norm, with and without the
// embedding scale and a tied output, while beams change parents and a
// sentence leaves, with the cross-attention coverage kept; the scorer taking
// it; and the cases where it must step aside.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "decode/model_scorer.h"
#include "kernels/decoder_step.h"
#include "kernels/log_softmax.h"
#include "kernels/packed_linear.h"
#include "model/transformer.h"
#include "tests/test_support.h"
#include "util/precision.h"
#include "util/threads.h"

namespace nmt::kernels {
namespace {

// Decoding's thread plan for the test's length: OpenBLAS alone (fp32 then takes the packed products).
class OneBlasThread {
 public:
  OneBlasThread() : blas_(blas_threads()) { set_blas_threads(1); }
  ~OneBlasThread() {
    if (blas_ > 0) set_blas_threads(blas_);
  }

 private:
  int blas_;
};

model::Transformer variant(bool pre_norm, bool scale, bool tied, uint64_t seed) {
  auto c = test::tiny_model_config(32, 40);
  c.pre_norm = pre_norm;
  c.scale_embedding = scale;
  c.share_embeddings = c.tie_output = tied;
  torch::manual_seed(seed);
  model::Transformer m(c);
  model::init_weights_like_reference(*m);
  m->eval();
  return m;
}

// Three sources, two padded.
torch::Tensor sources() {
  return torch::tensor({{2, 5, 9, 11, 7, 3, 1}, {2, 8, 6, 3, 1, 1, 1}, {2, 12, 13, 14, 15, 16, 3}}, torch::kLong);
}

// Steps through each path from empty caches (the fused one given the
// memory's keys and values first), compared bit for bit.
void expect_same_steps(model::TransformerImpl& m, const std::string& what) {
  const auto src = sources();
  auto mask = m.make_src_mask(src);
  const auto enc = m.encode(src, mask);
  const auto layers = static_cast<size_t>(m.config().n_layers);
  DecoderCache module_cache, fused_cache;
  for (auto* c : {&module_cache, &fused_cache}) {
    c->layers.resize(layers);
    c->layers[1].enc_dec.coverage = torch::zeros({3, src.size(1)});
  }
  const auto weights = m.decoder->step_weights();
  ASSERT_TRUE(weights.has_value()) << what;
  DecoderStep step;
  auto bos = torch::full({3}, 2, torch::kLong);
  auto first = m.decode_cached(bos.view({3, 1}), enc, mask, module_cache).select(1, -1).contiguous();
  log_softmax_rows_(first);
  m.decoder->cache_memory(enc, fused_cache);
  const auto got_first = step.log_probs(*weights, bos.data_ptr<int64_t>(), 1, 3, mask, fused_cache);
  ASSERT_TRUE(torch::equal(got_first, first)) << what << ", the first position: max difference "
                                              << (got_first - first).abs().max().item<float>();
  for (auto* c : {&module_cache, &fused_cache}) {
    c->select_target_rows(torch::tensor({0, 0, 1, 1, 2, 2}, torch::kLong));  // two beams a sentence
  }
  torch::manual_seed(7);
  int64_t rows = 6;
  for (int s = 0; s < 6; ++s) {
    const auto ids = torch::randint(3, 40, {rows}, torch::kLong);
    auto expected = m.decode_cached(ids.view({rows, 1}), enc, mask, module_cache).select(1, -1).contiguous();
    log_softmax_rows_(expected);
    const auto got = step.log_probs(*weights, ids.data_ptr<int64_t>(), 1, rows, mask, fused_cache);
    ASSERT_TRUE(torch::equal(got, expected)) << what << ", step " << s << ": max difference "
                                             << (got - expected).abs().max().item<float>();
    if (s == 1) {  // beams change parents
      for (auto* c : {&module_cache, &fused_cache}) c->select_target_rows(torch::tensor({1, 1, 3, 2, 5, 4}, torch::kLong));
    }
    if (s == 3) {  // the second sentence leaves
      for (auto* c : {&module_cache, &fused_cache}) {
        c->select_target_rows(torch::tensor({0, 1, 4, 5}, torch::kLong));
        c->select_memory_rows(torch::tensor({0, 2}, torch::kLong));
      }
      mask = mask.index_select(0, torch::tensor({0, 2}, torch::kLong));
      rows = 4;
    }
  }
  EXPECT_TRUE(torch::equal(fused_cache.layers[1].enc_dec.coverage, module_cache.layers[1].enc_dec.coverage)) << what;
  EXPECT_GT(fused_cache.layers[1].enc_dec.coverage.sum().item<float>(), 0.0f);
}

TEST(DecoderStep, MatchesTheModulesStepBitForBitInFp32) {
  if (!PackedLinear::available(torch::kFloat)) GTEST_SKIP() << "no oneDNN fp32 product in this build";
  OneBlasThread blas;
  for (bool pre_norm : {true, false}) {
    for (bool scale : {true, false}) {
      auto m = variant(pre_norm, scale, /*tied=*/pre_norm, 11);
      c10::InferenceMode inference;  // as the translator decodes (the model made outside)
      expect_same_steps(*m, std::string(pre_norm ? "pre-norm" : "post-norm") + (scale ? ", scaled" : ""));
    }
  }
}

TEST(DecoderStep, MatchesTheModulesStepBitForBitInInt8) {
  if (!PackedLinear::available(torch::kChar)) GTEST_SKIP() << "no oneDNN int8 product in this build";
  OneBlasThread blas;
  for (bool pre_norm : {true, false}) {
    auto m = variant(pre_norm, true, true, 12);
    c10::InferenceMode inference;
    PrecisionScope int8(Precision::kInt8, torch::kCPU);
    expect_same_steps(*m, pre_norm ? "int8 pre-norm" : "int8 post-norm");
  }
}

// The scorer takes the fused step from its first step on: its log-probabilities
// equal those of the same scorer kept on the modules' path (an alignment kept).
TEST(DecoderStep, TheScorerTakesItWithTheSameResults) {
  if (!PackedLinear::available(torch::kFloat)) GTEST_SKIP() << "no oneDNN fp32 product in this build";
  OneBlasThread blas;
  auto m = variant(true, true, true, 13);
  c10::InferenceMode inference;
  decode::ModelScorer fused(*m, sources(), true, 1), modules(*m, sources(), true, 1);
  auto prefixes = torch::full({3, 1}, 2, torch::kLong);
  for (int s = 0; s < 5; ++s) {
    m->set_keep_attention(false);
    ASSERT_EQ(m->decoder->step_weights().has_value(), true);
    const auto a = fused.next_log_probs(prefixes);
    m->set_keep_attention(true);  // the modules' path: the fused step keeps no attention weights
    ASSERT_EQ(m->decoder->step_weights().has_value(), false);
    const auto b = modules.next_log_probs(prefixes);
    ASSERT_TRUE(torch::equal(a, b)) << "step " << s;
    prefixes = torch::cat({prefixes, a.argmax(1, true)}, 1);
  }
  EXPECT_EQ(fused.coverage(2), modules.coverage(2));
}

TEST(DecoderStep, StepsAsideWhereTheModulesMustRun) {
  OneBlasThread blas;
  auto m = variant(true, true, true, 14);
  {
    c10::InferenceMode inference;
    if (PackedLinear::available(torch::kFloat)) {
      EXPECT_TRUE(m->decoder->step_weights().has_value());
    }
    PrecisionScope bf16(Precision::kBf16, torch::kCPU);
    EXPECT_FALSE(m->decoder->step_weights().has_value()) << "bf16 products";
  }
  EXPECT_FALSE(m->decoder->step_weights().has_value()) << "autograd on";
  torch::NoGradGuard no_grad;
  m->train();
  EXPECT_FALSE(m->decoder->step_weights().has_value()) << "training";
}

}  // namespace
}  // namespace nmt::kernels
