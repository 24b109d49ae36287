// Loading weights by name refuses anything that does not fit, naming the key.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "model/state_dict.h"
#include "model/torch_archive.h"
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

std::string pickled(const std::string& name, const torch::Tensor& t) {
  c10::Dict<std::string, torch::Tensor> d;
  d.insert(name, t);
  const std::vector<char> bytes = torch::pickle_save(c10::IValue(d));
  return std::string(bytes.begin(), bytes.end());
}

std::string read_error(const std::string& bytes) {
  try {
    state_dict_from_bytes(bytes, "hostile.pt");
  } catch (const DataError& e) {
    return e.what();
  }
  return "";
}

// Cut anywhere, or with bytes overwritten anywhere: a DataError naming the
// file, never a crash or an exception of another kind.
TEST(StateDict, EveryCutAndOverwriteIsADataError) {
  Transformer model(tiny_config());
  const std::string bytes = state_dict_to_bytes(state_dict_of(*model));
  for (size_t k = 0; k < 64; ++k) {
    const size_t at = bytes.size() * k / 64;
    EXPECT_NE(read_error(bytes.substr(0, at)).find("hostile.pt"), std::string::npos) << "cut at " << at;
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
  const std::string message = read_error(pickled("encoder.emb.tok_emb.emb.weight", absurd));
  EXPECT_NE(message.find("hostile.pt"), std::string::npos) << message;
  EXPECT_NE(message.find("encoder.emb.tok_emb.emb.weight"), std::string::npos) << message;
  EXPECT_NE(message.find("does not back that shape"), std::string::npos) << message;
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
  const std::string message = read_error(bytes);
  EXPECT_NE(message.find("does not back that shape (24 bytes stored)"), std::string::npos) << message;
}

TEST(StateDict, PickleOpcodesAreCheckedBeforeTheyRun) {
  const std::string ok("\x80\x02}q\x00.", 6);  // PROTO 2, EMPTY_DICT, BINPUT 0, STOP
  EXPECT_NO_THROW(check_pickle_opcodes(ok, "ok.pt"));
  const auto message = [](const std::string& pickle) {
    try {
      check_pickle_opcodes(pickle, "hostile.pt");
    } catch (const DataError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  // LONG_BINPUT 0xF0000000: LibTorch's unpickler would grow its memo table to 4 billion entries.
  EXPECT_NE(message(std::string("\x80\x02}r\x00\x00\x00\xF0.", 9)).find("memo index 4026531840"), std::string::npos);
  EXPECT_NE(message(std::string("\x80\x02X\xff\xff\x00\x00" "abc.", 11)).find("runs past its end"),
            std::string::npos);  // BINUNICODE of 65535 bytes
  EXPECT_NE(message("\x80\x02}").find("without STOP"), std::string::npos);
  EXPECT_NE(message("\x80\x02\xfe.").find("unknown opcode 254"), std::string::npos);
  EXPECT_NE(message("\x80\x02" "ctorch\nFloatStorage").find("never ends"), std::string::npos);  // GLOBAL
  EXPECT_NE(message("\x80\x02}p12x\n.").find("not a number"), std::string::npos);              // PUT
}

TEST(StateDict, NonFloatingWeightsAreRefused) {
  Transformer model(tiny_config());
  const StateDict good = state_dict_of(*model);
  const std::string name = "decoder.linear.weight";
  const auto shape = good.at(name).sizes();
  for (const auto dtype : {torch::kLong, torch::kBool, torch::kComplexFloat}) {
    StateDict dict = good;
    dict[name] = torch::ones(shape, dtype);
    const std::string message = load_error(dict);
    EXPECT_NE(message.find(name), std::string::npos) << dtype;
    EXPECT_NE(message.find("floating point"), std::string::npos) << message;
  }
  // Other floating dtypes load, converted to the model's.
  for (const auto dtype : {torch::kDouble, torch::kHalf, torch::kBFloat16}) {
    StateDict dict = good;
    dict[name] = torch::full(shape, 0.5, dtype);
    EXPECT_EQ(load_error(dict), "") << dtype;
  }
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
