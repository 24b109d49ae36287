// OUT/vocab/: trained joint or per side, or copied; reused by a resumed run;
// loaded back by the translator.
#include <gtest/gtest.h>

#include "data_test_util.h"
#include "tests/test_support.h"
#include "util/config.h"
#include "util/atomic_file.h"
#include "util/error.h"
#include "vocab/vocabularies.h"

namespace nmt::vocab {
namespace {

namespace fs = std::filesystem;

class VocabulariesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<std::string> en, de;
    test::make_toy_corpus(300, en, de);
    test::write_gz(dir_.path("train.de.gz"), test::join_lines(de));
    test::write_file(dir_.path("train.en"), test::join_lines(en));
    config_.data.train_src = dir_.path("train.de.gz");
    config_.data.train_tgt = dir_.path("train.en");
    config_.vocab.size = 100;
    config_.train.threads = 1;
  }
  test::TempDir dir_;
  Config config_;
};

TEST_F(VocabulariesTest, JointIsOneModelAndIsReused) {
  const std::string out = dir_.path("out");
  Vocabularies v = prepare_vocabularies(config_, out);
  EXPECT_TRUE(v.joint);
  EXPECT_FALSE(v.reused);
  EXPECT_EQ(v.src.get(), v.tgt.get());
  EXPECT_TRUE(fs::exists(out + "/vocab/spm.model"));
  EXPECT_TRUE(fs::exists(out + "/vocab/vocab.json"));
  EXPECT_EQ(v.src->pad_id(), 1);
  // Both languages' words are in the one model.
  EXPECT_EQ(v.src->decode(v.src->encode("Ein Hund sieht dem Ball.")), "Ein Hund sieht dem Ball.");
  EXPECT_EQ(v.src->decode(v.src->encode("A dog sees the ball.")), "A dog sees the ball.");

  Vocabularies again = prepare_vocabularies(config_, out);
  EXPECT_TRUE(again.reused);
  EXPECT_EQ(again.src->encode("A man."), v.src->encode("A man."));

  Vocabularies loaded = load_vocabularies(out);
  EXPECT_TRUE(loaded.joint);
  EXPECT_EQ(loaded.src->size(), v.src->size());
}

TEST_F(VocabulariesTest, PerSideModels) {
  config_.vocab.joint = false;
  config_.vocab.type = "unigram";
  const std::string out = dir_.path("out");
  Vocabularies v = prepare_vocabularies(config_, out);
  EXPECT_FALSE(v.joint);
  EXPECT_NE(v.src.get(), v.tgt.get());
  EXPECT_TRUE(fs::exists(out + "/vocab/src.model"));
  EXPECT_TRUE(fs::exists(out + "/vocab/tgt.model"));
  EXPECT_EQ(v.tgt->decode(v.tgt->encode("A child rides the bicycle.")), "A child rides the bicycle.");
  for (const auto& side : {v.src, v.tgt}) {
    EXPECT_EQ(side->unk_id(), 0);
    EXPECT_EQ(side->pad_id(), 1);
    EXPECT_EQ(side->bos_id(), 2);
    EXPECT_EQ(side->eos_id(), 3);
  }
  Vocabularies loaded = load_vocabularies(out);
  EXPECT_FALSE(loaded.joint);
  EXPECT_EQ(loaded.tgt->encode("A dog."), v.tgt->encode("A dog."));
}

TEST_F(VocabulariesTest, ExistingModelIsCopiedAsIs) {
  const std::string first = dir_.path("first");
  prepare_vocabularies(config_, first);
  Config given = config_;
  given.vocab.model = first + "/vocab/spm.model";
  const std::string out = dir_.path("out");
  Vocabularies v = prepare_vocabularies(given, out);
  EXPECT_TRUE(v.joint);
  std::ifstream a(first + "/vocab/spm.model", std::ios::binary), b(out + "/vocab/spm.model", std::ios::binary);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(a), {}), std::string(std::istreambuf_iterator<char>(b), {}));
}

TEST_F(VocabulariesTest, OtherSettingsInTheSameDirectoryAreRefused) {
  const std::string out = dir_.path("out");
  prepare_vocabularies(config_, out);
  Config other = config_;
  other.vocab.size = 90;
  EXPECT_TRUE(test::throws_with<DataError>([&] { prepare_vocabularies(other, out); }, {"vocab.json"}))
      << "reused a vocabulary made with other settings";
}

TEST_F(VocabulariesTest, LoadFromADirectoryWithoutVocabularyIsADataError) {
  EXPECT_TRUE(test::throws_with<DataError>([&] { load_vocabularies(dir_.path("nothing")); }, {"vocab.json"}));
}

TEST_F(VocabulariesTest, MissingTrainingFileIsADataError) {
  config_.data.train_src = dir_.path("absent.de");
  EXPECT_TRUE(test::throws_with<DataError>([&] { prepare_vocabularies(config_, dir_.path("out")); }, {"absent.de"}));
}

// A vocabulary trained once is kept in the data cache; another run with the
// same files and settings copies it instead of training again.
TEST_F(VocabulariesTest, AnotherRunTakesTheVocabularyFromTheSharedCache) {
  config_.data.cache_dir = dir_.path("shared");
  const Vocabularies first = prepare_vocabularies(config_, dir_.path("run1"));
  EXPECT_TRUE(first.cached_from.empty());
  EXPECT_GT(first.seconds, 0);
  const Vocabularies second = prepare_vocabularies(config_, dir_.path("run2"));
  EXPECT_FALSE(second.cached_from.empty());
  EXPECT_EQ(second.seconds, 0);
  EXPECT_EQ(read_file_bytes(dir_.path("run2/vocab/spm.model")), read_file_bytes(dir_.path("run1/vocab/spm.model")));
  // Other settings: trained again, beside the first.
  config_.vocab.size = 90;
  EXPECT_TRUE(prepare_vocabularies(config_, dir_.path("run3")).cached_from.empty());
}

// The corpora's tags become pieces of their own, one id each.
TEST_F(VocabulariesTest, TagsArePiecesOfTheTrainedVocabulary) {
  std::vector<std::string> en, de;
  test::make_toy_corpus(50, en, de);
  test::write_file(dir_.path("bt.de"), test::join_lines(de));
  test::write_file(dir_.path("bt.en"), test::join_lines(en));
  config_.data.corpora = {{config_.data.train_src, config_.data.train_tgt, 1.0, "", "", ""},
                          {dir_.path("bt.de"), dir_.path("bt.en"), 0.5, "<BT>", "", ""}};
  config_.data.train_src.clear();
  config_.data.train_tgt.clear();
  const Vocabularies v = prepare_vocabularies(config_, dir_.path("out"));
  const int32_t tag = v.src->piece_id("<BT>");
  ASSERT_GE(tag, 0);
  EXPECT_EQ(v.src->piece_id("<no such piece>"), -1);
  const auto ids = v.src->encode("<BT>");
  EXPECT_NE(std::find(ids.begin(), ids.end(), tag), ids.end());
  // The settings record the tags: the same directory with other tags is refused.
  config_.data.corpora[1].tag = "<BT2>";
  EXPECT_TRUE(test::throws_with<DataError>([&] { prepare_vocabularies(config_, dir_.path("out")); }, {"<BT2>"}));
}

}  // namespace
}  // namespace nmt::vocab
