// Loading weights by name refuses anything that does not fit, naming the key.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "model/transformer.h"
#include "storage/state_dict.h"
#include "storage/torch_archive.h"
#include "tests/test_support.h"
#include "util/error.h"

namespace nmt::storage {
namespace {

// The tiny model with a target vocabulary of another size than the source's:
// a shape in a message then tells which side it belongs to.
ModelConfig two_vocabulary_config() {
  ModelConfig c = test::tiny_model_config();
  c.dec_voc_size = c.enc_voc_size + 4;
  return c;
}

// Loads `dict` into a new tiny model, as from a file named weights.pt.
void load_into_new_model(const StateDict& dict) {
  model::Transformer model(two_vocabulary_config());
  load_state_dict(*model, dict, "weights.pt");
}

TEST(StateDict, KeysFollowTheReferenceTree) {
  model::Transformer model(two_vocabulary_config());
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
  model::Transformer model(two_vocabulary_config());
  auto dict = state_dict_of(*model);
  dict.erase("decoder.layers.1.norm2.beta");
  EXPECT_TRUE(test::throws_with<DataError>([&] { load_into_new_model(dict); },
                                          {"decoder.layers.1.norm2.beta", "weights.pt"}));
}

TEST(StateDict, UnexpectedKeyIsNamed) {
  model::Transformer model(two_vocabulary_config());
  auto dict = state_dict_of(*model);
  dict["decoder.layers.7.norm1.gamma"] = torch::ones({model->config().d_model});
  EXPECT_TRUE(test::throws_with<DataError>([&] { load_into_new_model(dict); }, {"decoder.layers.7.norm1.gamma"}));
}

TEST(StateDict, MisshapedKeyIsNamedWithBothShapes) {
  model::Transformer model(two_vocabulary_config());
  auto dict = state_dict_of(*model);
  // One row more than the model's [enc_voc_size, d_model] table.
  const int64_t rows = model->config().enc_voc_size, cols = model->config().d_model;
  dict["encoder.emb.tok_emb.weight"] = torch::zeros({rows + 1, cols});
  const auto shape = [](int64_t r, int64_t c) { return "[" + std::to_string(r) + ", " + std::to_string(c) + "]"; };
  EXPECT_TRUE(test::throws_with<DataError>([&] { load_into_new_model(dict); },
                                          {"encoder.emb.tok_emb.weight", shape(rows + 1, cols), shape(rows, cols)}));
}

TEST(StateDict, FailedLoadLeavesModelUnchanged) {
  model::Transformer model(two_vocabulary_config());
  auto before = state_dict_of(*model)["encoder.layers.0.attention.w_q.weight"].clone();
  model::Transformer other(two_vocabulary_config());
  auto dict = state_dict_of(*other);
  dict.erase("decoder.linear.bias");
  EXPECT_THROW(load_state_dict(*model, dict, "x.pt"), DataError);
  EXPECT_TRUE(torch::equal(before, state_dict_of(*model)["encoder.layers.0.attention.w_q.weight"]));
}

TEST(StateDict, TruncatedFileIsADataError) {
  model::Transformer model(two_vocabulary_config());
  auto bytes = state_dict_to_bytes(state_dict_of(*model));
  EXPECT_THROW(state_dict_from_bytes(bytes.substr(0, bytes.size() / 2), "cut.pt"), DataError);
  EXPECT_THROW(state_dict_from_bytes("not a zip file at all", "junk.pt"), DataError);
}

std::string pickled(const std::string& name, const torch::Tensor& t) {
  c10::Dict<std::string, torch::Tensor> d;
  d.insert(name, t);
  const std::vector<char> bytes = torch::pickle_save(c10::IValue(d));
  return std::string(bytes.begin(), bytes.end());
}

// Cut anywhere, or with bytes overwritten anywhere: a DataError naming the
// file, never a crash or an exception of another kind.
TEST(StateDict, EveryCutAndOverwriteIsADataError) {
  model::Transformer model(two_vocabulary_config());
  const std::string bytes = state_dict_to_bytes(state_dict_of(*model));
  for (size_t k = 0; k < 64; ++k) {
    const size_t at = bytes.size() * k / 64;
    EXPECT_TRUE(test::throws_with<DataError>([&] { state_dict_from_bytes(bytes.substr(0, at), "hostile.pt"); },
                                            {"hostile.pt"}))
        << "cut at " << at;
    std::string damaged = bytes;
    for (size_t i = at; i < std::min(bytes.size(), at + 8); ++i) damaged[i] = static_cast<char>(~damaged[i]);
    try {
      state_dict_from_bytes(damaged, "hostile.pt");  // damage inside tensor data may go unnoticed
    } catch (const DataError& e) {
      EXPECT_NE(std::string(e.what()).find("hostile.pt"), std::string::npos) << e.what();
    }
  }
}

// A zero-stride view: [2^40] elements over a storage of one. Reading it must
// not allocate what its shape claims.
TEST(StateDict, TensorLargerThanItsStorageIsRefused) {
  const torch::Tensor absurd = torch::zeros({1}).expand({int64_t{1} << 40});
  const std::string bytes = pickled("encoder.emb.tok_emb.emb.weight", absurd);
  EXPECT_TRUE(test::throws_with<DataError>(
      [&] { state_dict_from_bytes(bytes, "hostile.pt"); },
      {"hostile.pt", "encoder.emb.tok_emb.emb.weight", "does not back that shape"}));
  // A plain transposed (non-contiguous but dense) tensor is fine.
  const torch::Tensor transposed = torch::rand({3, 5}).t();
  EXPECT_TRUE(torch::equal(state_dict_from_bytes(pickled("w", transposed), "ok.pt").at("w"), transposed));
}

// The pickle says how many elements a storage has; the file says how many
// bytes were stored for it. A tensor must fit the second.
TEST(StateDict, StorageClaimingMoreThanItsRecordIsRefused) {
  std::string bytes = pickled("w", torch::arange(6, torch::kFloat));
  size_t at = bytes.find("cpu");
  ASSERT_NE(at, std::string::npos);
  at = bytes.find('K', at);  // BININT1: the storage's element count
  ASSERT_NE(at, std::string::npos);
  ASSERT_EQ(bytes[at + 1], 6);
  bytes[at + 1] = static_cast<char>(200);
  EXPECT_TRUE(test::throws_with<DataError>([&] { state_dict_from_bytes(bytes, "hostile.pt"); },
                                          {"does not back that shape (24 bytes stored)"}));
}

TEST(StateDict, PickleOpcodesAreCheckedBeforeTheyRun) {
  const std::string ok("\x80\x02}q\x00.", 6);  // PROTO 2, EMPTY_DICT, BINPUT 0, STOP
  EXPECT_NO_THROW(check_pickle_opcodes(ok, "ok.pt"));
  struct Case {
    std::string pickle;
    const char* part;
  };
  const std::vector<Case> cases = {
      // LONG_BINPUT 0xF0000000: LibTorch's unpickler would grow its memo table to 4 billion entries.
      {std::string("\x80\x02}r\x00\x00\x00\xF0.", 9), "memo index 4026531840"},
      {std::string("\x80\x02X\xff\xff\x00\x00" "abc.", 11), "runs past its end"},  // BINUNICODE of 65535 bytes
      {"\x80\x02}", "without STOP"},
      {"\x80\x02\xfe.", "unknown opcode 254"},
      {"\x80\x02" "ctorch\nFloatStorage", "never ends"},  // GLOBAL
      {"\x80\x02}p12x\n.", "not a number"},               // PUT
  };
  for (const Case& c : cases) {
    EXPECT_TRUE(test::throws_with<DataError>([&] { check_pickle_opcodes(c.pickle, "hostile.pt"); }, {c.part}))
        << c.part;
  }
}

TEST(StateDict, NonFloatingWeightsAreRefused) {
  model::Transformer model(two_vocabulary_config());
  const StateDict good = state_dict_of(*model);
  const std::string name = "decoder.linear.weight";
  const auto shape = good.at(name).sizes();
  for (const auto dtype : {torch::kLong, torch::kBool, torch::kComplexFloat}) {
    StateDict dict = good;
    dict[name] = torch::ones(shape, dtype);
    EXPECT_TRUE(test::throws_with<DataError>([&] { load_into_new_model(dict); }, {name, "floating point"})) << dtype;
  }
  // Other floating dtypes load, converted to the model's.
  for (const auto dtype : {torch::kDouble, torch::kHalf, torch::kBFloat16}) {
    StateDict dict = good;
    dict[name] = torch::full(shape, 0.5, dtype);
    EXPECT_NO_THROW(load_into_new_model(dict)) << dtype;
  }
}

TEST(StateDict, RoundTripThroughBytesIsExact) {
  model::Transformer model(two_vocabulary_config());
  auto dict = state_dict_of(*model);
  auto back = state_dict_from_bytes(state_dict_to_bytes(dict), "memory");
  ASSERT_EQ(back.size(), dict.size());
  for (const auto& [name, t] : dict) EXPECT_TRUE(torch::equal(t, back.at(name))) << name;
}

}  // namespace
}  // namespace nmt::storage
