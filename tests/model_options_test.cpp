// Options beyond the reference: each changes what it should and nothing else,
// and the cached (incremental) decoder equals the full recomputation.
#include <cmath>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "model/transformer.h"
#include "storage/state_dict.h"
#include "tests/test_support.h"

namespace nmt::model {
namespace {

torch::Tensor sample_src() { return torch::tensor({{2, 5, 6, 7, 3}, {2, 8, 3, 1, 1}}, torch::kLong); }
torch::Tensor sample_trg() { return torch::tensor({{2, 9, 10, 11}, {2, 12, 13, 1}}, torch::kLong); }

TEST(ModelOptions, SharedEmbeddingsUseOneTable) {
  auto c = test::tiny_model_config();
  c.share_embeddings = true;
  Transformer model(c);
  EXPECT_TRUE(model->encoder->emb->tok_emb->weight.is_same(model->decoder->emb->tok_emb->weight));
  Transformer plain(test::tiny_model_config());
  EXPECT_EQ(model->unique_parameters().size() + 1, plain->unique_parameters().size());
  auto dict = storage::state_dict_of(*model);
  EXPECT_TRUE(dict.count("encoder.emb.tok_emb.weight") && dict.count("decoder.emb.tok_emb.weight"));
}

TEST(ModelOptions, TiedOutputUsesTheDecoderTable) {
  auto c = test::tiny_model_config();
  c.tie_output = true;
  Transformer model(c);
  EXPECT_TRUE(model->decoder->linear->weight().is_same(model->decoder->emb->tok_emb->weight));
  auto dict = storage::state_dict_of(*model);
  ASSERT_TRUE(dict.count("decoder.linear.weight"));
  // Gradient reaches the shared table from both uses.
  model->eval();
  model(sample_src(), sample_trg()).sum().backward();
  EXPECT_GT(model->decoder->emb->tok_emb->weight.grad().abs().sum().item<double>(), 0.0);
  // A reference-format dict with equal tables loads back.
  Transformer other(c);
  storage::load_state_dict(*other, dict, "tied");
  EXPECT_TRUE(torch::equal(other->decoder->linear->weight(), model->decoder->linear->weight()));
}

TEST(ModelOptions, EmbeddingScaleMultipliesBySqrtDModel) {
  auto c = test::tiny_model_config();
  Transformer plain(c);
  c.scale_embedding = true;
  Transformer scaled(c);
  storage::load_state_dict(*scaled, storage::state_dict_of(*plain), "plain");
  plain->eval();
  scaled->eval();
  auto ids = sample_src();
  auto tok = plain->encoder->emb->tok_emb(ids);
  auto pos = plain->encoder->emb->pos_emb(ids.size(1));
  EXPECT_TRUE(test::tensors_close(scaled->encoder->emb(ids), tok * std::sqrt(static_cast<double>(c.d_model)) + pos,
                                  1e-6, 1e-6));
  EXPECT_TRUE(test::tensors_close(plain->encoder->emb(ids), tok + pos, 1e-6, 1e-6));
}

TEST(ModelOptions, LearnedPositionsAreParameters) {
  auto c = test::tiny_model_config();
  c.learned_positions = true;
  Transformer model(c);
  auto dict = storage::state_dict_of(*model);
  ASSERT_TRUE(dict.count("encoder.emb.pos_emb.weight"));
  EXPECT_EQ(dict.at("encoder.emb.pos_emb.weight").sizes(), torch::IntArrayRef({c.max_len, c.d_model}));
  model(sample_src(), sample_trg()).sum().backward();
  EXPECT_GT(model->encoder->emb->pos_emb->parameters()[0].grad().abs().sum().item<double>(), 0.0);
}

TEST(ModelOptions, PreNormAddsFinalNormsAndChangesOutput) {
  auto c = test::tiny_model_config();
  Transformer post(c);
  c.pre_norm = true;
  Transformer pre(c);
  auto dict = storage::state_dict_of(*pre);
  EXPECT_TRUE(dict.count("encoder.norm.gamma") && dict.count("decoder.norm.beta"));
  // Same shared weights, different arithmetic.
  auto shared = storage::state_dict_of(*post);
  shared["encoder.norm.gamma"] = torch::ones({c.d_model});
  shared["encoder.norm.beta"] = torch::zeros({c.d_model});
  shared["decoder.norm.gamma"] = torch::ones({c.d_model});
  shared["decoder.norm.beta"] = torch::zeros({c.d_model});
  storage::load_state_dict(*pre, shared, "post");
  post->eval();
  pre->eval();
  auto a = post(sample_src(), sample_trg()), b = pre(sample_src(), sample_trg());
  EXPECT_EQ(a.sizes(), b.sizes());
  EXPECT_GT((a - b).abs().max().item<double>(), 1e-3);
}

TEST(ModelOptions, DropoutRatesReachTheirModules) {
  auto c = test::tiny_model_config();
  c.drop_prob = 0.2;
  Transformer reference_like(c);
  auto ffn = [](Transformer& m) { return m->encoder->layers->at<EncoderLayerImpl>(0).ffn->dropout->p(); };
  auto attention = [](Transformer& m) {
    return m->decoder->layers->at<DecoderLayerImpl>(1).enc_dec_attention->attention->dropout->p();
  };
  EXPECT_DOUBLE_EQ(ffn(reference_like), 0.2);  // unset: drop_prob after the ReLU, as the reference
  EXPECT_DOUBLE_EQ(attention(reference_like), 0.0);
  c.activation_dropout = 0.05;
  c.attention_dropout = 0.1;
  Transformer tuned(c);
  EXPECT_DOUBLE_EQ(ffn(tuned), 0.05);
  EXPECT_DOUBLE_EQ(attention(tuned), 0.1);
  // Dropout has no parameters: the stored form is the reference's either way.
  EXPECT_EQ(storage::state_dict_of(*tuned).size(), storage::state_dict_of(*reference_like).size());
}

TEST(ModelOptions, AttentionDropoutActsOnlyWhileTraining) {
  auto c = test::tiny_model_config();  // drop_prob 0: attention dropout is the only randomness
  c.attention_dropout = 0.3;
  Transformer model(c);
  model->eval();
  const auto eval_out = model(sample_src(), sample_trg());
  model->train();
  const auto train_out = model(sample_src(), sample_trg());
  EXPECT_GT((train_out - eval_out).abs().max().item<double>(), 1e-3);
  c.attention_dropout = 0.0;
  Transformer plain(c);
  storage::load_state_dict(*plain, storage::state_dict_of(*model), "model");
  plain->train();
  EXPECT_TRUE(test::tensors_close(plain(sample_src(), sample_trg()), eval_out, 1e-6, 1e-6));
}

class CachedDecoding : public ::testing::TestWithParam<bool> {};

TEST_P(CachedDecoding, StepByStepEqualsFullRecomputation) {
  torch::manual_seed(3);
  auto c = test::tiny_model_config();
  c.pre_norm = GetParam();
  Transformer model(c);
  model->eval();
  torch::NoGradGuard no_grad;
  auto src = sample_src();
  auto trg = torch::tensor({{2, 9, 10, 11, 12}, {2, 12, 13, 14, 15}}, torch::kLong);
  auto full = model(src, trg);
  auto src_mask = model->make_src_mask(src);
  auto enc = model->encode(src, src_mask);
  kernels::DecoderCache cache;
  std::vector<torch::Tensor> steps;
  for (int64_t t = 0; t < trg.size(1); ++t) {
    steps.push_back(model->decode_cached(trg.narrow(1, t, 1), enc, src_mask, cache));
  }
  EXPECT_TRUE(test::tensors_close(torch::cat(steps, 1), full, 1e-4, 1e-5));
  // Several positions at once (a prefix), then one more.
  kernels::DecoderCache cache2;
  auto first = model->decode_cached(trg.narrow(1, 0, 3), enc, src_mask, cache2);
  auto rest = model->decode_cached(trg.narrow(1, 3, 2), enc, src_mask, cache2);
  EXPECT_TRUE(test::tensors_close(torch::cat({first, rest}, 1), full, 1e-4, 1e-5));
}

INSTANTIATE_TEST_SUITE_P(PostAndPreNorm, CachedDecoding, ::testing::Bool());

}  // namespace
}  // namespace nmt::model
