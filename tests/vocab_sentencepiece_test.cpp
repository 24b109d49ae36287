// SentencePiece through the bridge: training, encoding, decoding and special
// ids, in a process that has already run libtorch (docs/sentencepiece_bridge.md: the two
// clash when linked together, so the bridge must keep them apart).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "data_test_util.h"
#include "tests/test_support.h"
#include "util/error.h"
#include "vocab/sentencepiece_vocab.h"
#include "vocab/spm_bridge_loader.h"
#include "vocab/vocab_trainer.h"

namespace nmt::vocab {
namespace {

class SentencePieceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // libtorch first: the bridge must load and work after torch is initialised.
    ASSERT_EQ(torch::ones({2, 2}).sum().item<float>(), 4.0f);
    std::vector<std::string> en, de;
    test::make_toy_corpus(300, en, de);
    test::write_gz(dir_.path("train.en.gz"), test::join_lines(en));
    test::write_file(dir_.path("train.de"), test::join_lines(de));
  }

  std::string train(const std::string& type, int64_t size) {
    VocabTrainOptions options;
    options.type = type;
    options.size = size;
    options.threads = 1;
    const std::string prefix = dir_.path(type);
    train_sentencepiece({dir_.path("train.en.gz"), dir_.path("train.de")}, prefix, options);
    return prefix + ".model";
  }

  test::TempDir dir_;
};

TEST_F(SentencePieceTest, TrainEncodeDecodeRoundTripAfterTorch) {
  SentencePieceVocab v(train("bpe", 120));
  EXPECT_EQ(v.size(), 120);
  EXPECT_EQ(v.unk_id(), 0);
  EXPECT_EQ(v.pad_id(), 1);
  EXPECT_EQ(v.bos_id(), 2);
  EXPECT_EQ(v.eos_id(), 3);
  for (const std::string text : {"A man rides the bicycle.", "Ein Kind spielt mit dem Ball und der Hund sieht."}) {
    const std::vector<int32_t> ids = v.encode(text);
    ASSERT_FALSE(ids.empty());
    for (int32_t id : ids) {
      EXPECT_GT(id, 3) << "specials must not appear in an encoding";
      EXPECT_LT(id, v.size());
    }
    EXPECT_EQ(v.decode(ids), text);
    const std::vector<std::string> pieces = v.encode_pieces(text);
    ASSERT_EQ(pieces.size(), ids.size());
    for (size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(pieces[i], v.id_to_piece(ids[i]));
  }
  torch::Tensor t = torch::rand({3});  // torch still fine after SentencePiece ran
  EXPECT_EQ(t.numel(), 3);
}

TEST_F(SentencePieceTest, DecodeSkipsPadAndBosAndStopsAtEos) {
  SentencePieceVocab v(train("bpe", 120));
  const std::vector<int32_t> ids = v.encode("A dog sees the house.");
  std::vector<int64_t> wrapped = {v.bos_id()};
  wrapped.insert(wrapped.end(), ids.begin(), ids.end());
  wrapped.push_back(v.eos_id());
  const std::vector<int32_t> after = v.encode("A woman walks to the street.");
  wrapped.insert(wrapped.end(), after.begin(), after.end());
  wrapped.push_back(v.pad_id());
  EXPECT_EQ(v.decode(wrapped), "A dog sees the house.");
  EXPECT_EQ(v.id_to_piece(v.pad_id()), "<pad>");
  EXPECT_EQ(v.id_to_piece(v.unk_id()), "<unk>");
  EXPECT_THROW(v.id_to_piece(static_cast<int32_t>(v.size())), DataError);
  EXPECT_THROW(v.decode(std::vector<int32_t>{static_cast<int32_t>(v.size()) + 5}), DataError);
}

TEST_F(SentencePieceTest, UnigramAndUnknownCharacters) {
  SentencePieceVocab v(train("unigram", 100));
  EXPECT_LE(v.size(), 100);
  EXPECT_EQ(v.pad_id(), 1);
  const std::vector<int32_t> ids = v.encode("A dog ☃ sees.");
  EXPECT_NE(std::find(ids.begin(), ids.end(), v.unk_id()), ids.end()) << "an unseen character maps to unk";
  EXPECT_EQ(v.decode(v.encode("A man sees the dog.")), "A man sees the dog.");
}

TEST_F(SentencePieceTest, ModelWithoutPadIdIsRefused) {
  const std::string prefix = dir_.path("nopad");
  const std::string input = dir_.path("train.de");
  const char* keys[] = {"input", "model_prefix", "vocab_size", "hard_vocab_limit", "pad_id", "minloglevel"};
  const char* values[] = {input.c_str(), prefix.c_str(), "80", "false", "-1", "1"};
  const SpmBridge& b = spm_bridge();
  char* error = nullptr;
  ASSERT_EQ(b.train(keys, values, 6, &error), 0) << b.take_error(error);
  EXPECT_TRUE(test::throws_with<DataError>([&] { SentencePieceVocab v(prefix + ".model"); },
                                          {"padding (pad)", prefix + ".model"}))
      << "a model without pad id was accepted";
}

TEST_F(SentencePieceTest, MissingOrDamagedModelIsADataError) {
  EXPECT_THROW(SentencePieceVocab(dir_.path("absent.model")), DataError);
  test::write_file(dir_.path("junk.model"), "this is not a protobuf");
  EXPECT_TRUE(test::throws_with<DataError>([&] { SentencePieceVocab v(dir_.path("junk.model")); }, {"junk.model"}))
      << "a damaged model was accepted";
}

TEST_F(SentencePieceTest, TrainingOnEmptyCorpusIsADataError) {
  test::write_file(dir_.path("empty.txt"), "\n\n");
  VocabTrainOptions options;
  options.size = 50;
  EXPECT_TRUE(test::throws_with<DataError>(
      [&] { train_sentencepiece({dir_.path("empty.txt")}, dir_.path("e"), options); }, {"empty.txt"}))
      << "trained on nothing";
}

TEST_F(SentencePieceTest, TrainingSampleIsBoundedAndDeterministic) {
  const std::vector<std::string> files = {dir_.path("train.en.gz"), dir_.path("train.de")};
  EXPECT_EQ(write_training_sample(files, 100, 7, dir_.path("s1.txt")), 100);
  EXPECT_EQ(write_training_sample(files, 100, 7, dir_.path("s2.txt")), 100);
  EXPECT_EQ(write_training_sample(files, 100, 8, dir_.path("s3.txt")), 100);
  EXPECT_EQ(write_training_sample(files, 10000, 7, dir_.path("all.txt")), 600);
  auto read = [](const std::string& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(read(dir_.path("s1.txt")), read(dir_.path("s2.txt")));
  EXPECT_NE(read(dir_.path("s1.txt")), read(dir_.path("s3.txt")));
}

// One pass per file (reservoir sampling): every line equally likely to be
// taken, the sample written in file order, an equal share from each file.
TEST_F(SentencePieceTest, TrainingSampleIsUniformAndInFileOrder) {
  std::string numbered;
  for (int i = 0; i < 100; ++i) numbered += "line " + std::to_string(i) + "\n";
  test::write_file(dir_.path("numbered.txt"), numbered);
  test::write_file(dir_.path("other.txt"), std::string("x\n") + "y\n" + "z\n");
  std::vector<int> taken(100, 0);
  const int seeds = 400;
  for (int seed = 0; seed < seeds; ++seed) {
    // 20 lines from two files: a share of 10 each; the short file gives all 3 of its lines.
    const int64_t written = write_training_sample({dir_.path("numbered.txt"), dir_.path("other.txt")}, 20,
                                                  static_cast<uint64_t>(seed), dir_.path("u.txt"), 2);
    ASSERT_EQ(written, 13);
    std::ifstream in(dir_.path("u.txt"));
    std::string line;
    int previous = -1, from_numbered = 0;
    while (std::getline(in, line)) {
      if (line.rfind("line ", 0) != 0) continue;
      const int i = std::stoi(line.substr(5));
      ASSERT_GT(i, previous) << "file order";
      previous = i;
      ++taken[static_cast<size_t>(i)];
      ++from_numbered;
    }
    ASSERT_EQ(from_numbered, 10);
  }
  // Each line is taken with probability 1/10: 40 times in 400 samples, sd 6.
  for (int i = 0; i < 100; ++i) EXPECT_NEAR(taken[static_cast<size_t>(i)], 40, 5 * 6.0) << "line " << i;
}

}  // namespace
}  // namespace nmt::vocab
