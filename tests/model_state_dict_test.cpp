// Loading weights by name refuses anything that does not fit, naming the key.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "model/state_dict.h"
#include "model/transformer.h"
#include "tests/test_support.h"
#include "util/error.h"

namespace nmt::model {
namespace {

ModelConfig tiny_config() {
  ModelConfig c;
  c.d_model = 16;
  c.n_head = 2;
  c.ffn_hidden = 32;
  c.n_layers = 2;
  c.max_len = 32;
  c.enc_voc_size = 20;
  c.dec_voc_size = 24;
  return c;
}

std::string load_error(const StateDict& dict) {
  Transformer model(tiny_config());
  try {
    load_state_dict(*model, dict, "weights.pt");
  } catch (const DataError& e) {
    return e.what();
  }
  return "";
}

TEST(StateDict, KeysFollowTheReferenceTree) {
  Transformer model(tiny_config());
  auto dict = state_dict_of(*model);
  for (const char* key : {"encoder.emb.tok_emb.weight", "encoder.layers.0.attention.w_q.weight",
                          "decoder.layers.1.enc_dec_attention.w_concat.bias", "decoder.layers.0.norm3.gamma",
                          "decoder.linear.weight", "decoder.linear.bias", "encoder.layers.1.ffn.linear2.weight"}) {
    EXPECT_TRUE(dict.count(key)) << key;
  }
  // The sinusoid table is a buffer, not part of the state_dict.
  for (const auto& [name, t] : dict) EXPECT_EQ(name.find("pos_emb"), std::string::npos) << name;
}

TEST(StateDict, MissingKeyIsNamed) {
  Transformer model(tiny_config());
  auto dict = state_dict_of(*model);
  dict.erase("decoder.layers.1.norm2.beta");
  auto message = load_error(dict);
  EXPECT_NE(message.find("decoder.layers.1.norm2.beta"), std::string::npos) << message;
  EXPECT_NE(message.find("weights.pt"), std::string::npos) << message;
}

TEST(StateDict, UnexpectedKeyIsNamed) {
  Transformer model(tiny_config());
  auto dict = state_dict_of(*model);
  dict["decoder.layers.7.norm1.gamma"] = torch::ones({16});
  auto message = load_error(dict);
  EXPECT_NE(message.find("decoder.layers.7.norm1.gamma"), std::string::npos) << message;
}

TEST(StateDict, MisshapedKeyIsNamedWithBothShapes) {
  Transformer model(tiny_config());
  auto dict = state_dict_of(*model);
  dict["encoder.emb.tok_emb.weight"] = torch::zeros({21, 16});
  auto message = load_error(dict);
  EXPECT_NE(message.find("encoder.emb.tok_emb.weight"), std::string::npos) << message;
  EXPECT_NE(message.find("[21, 16]"), std::string::npos) << message;
  EXPECT_NE(message.find("[20, 16]"), std::string::npos) << message;
}

TEST(StateDict, FailedLoadLeavesModelUnchanged) {
  Transformer model(tiny_config());
  auto before = state_dict_of(*model)["encoder.layers.0.attention.w_q.weight"].clone();
  Transformer other(tiny_config());
  auto dict = state_dict_of(*other);
  dict.erase("decoder.linear.bias");
  EXPECT_THROW(load_state_dict(*model, dict, "x.pt"), DataError);
  EXPECT_TRUE(torch::equal(before, state_dict_of(*model)["encoder.layers.0.attention.w_q.weight"]));
}

TEST(StateDict, TruncatedFileIsADataError) {
  Transformer model(tiny_config());
  auto bytes = state_dict_to_bytes(state_dict_of(*model));
  EXPECT_THROW(state_dict_from_bytes(bytes.substr(0, bytes.size() / 2), "cut.pt"), DataError);
  EXPECT_THROW(state_dict_from_bytes("not a zip file at all", "junk.pt"), DataError);
}

TEST(StateDict, RoundTripThroughBytesIsExact) {
  Transformer model(tiny_config());
  auto dict = state_dict_of(*model);
  auto back = state_dict_from_bytes(state_dict_to_bytes(dict), "memory");
  ASSERT_EQ(back.size(), dict.size());
  for (const auto& [name, t] : dict) EXPECT_TRUE(torch::equal(t, back.at(name))) << name;
}

}  // namespace
}  // namespace nmt::model
