// From text files to the id cache: filtering with counts, the empty corpus,
// reuse of the cache while nothing changed and rebuilding when something did.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>

#include <filesystem>

#include "data/corpus_cache.h"
#include "data/training_data.h"
#include "data_test_util.h"
#include "tests/test_support.h"
#include "util/config.h"
#include "util/error.h"
#include "vocab/vocabularies.h"

namespace nmt::data {
namespace {

namespace fs = std::filesystem;

class CorpusCacheTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::TempDir();
    const Config config = test::toy_corpus_config(*dir_, 400, /*gzip_source=*/true);
    vocabs_ = new vocab::Vocabularies(vocab::prepare_vocabularies(config, dir_->path("model")));
  }
  static void TearDownTestSuite() {
    delete vocabs_;
    delete dir_;
  }

  EncodeOptions options(const std::string& cache) const {
    EncodeOptions o;
    o.cache_dir = local_.path(cache);
    o.rules = {20, 3.0};
    o.threads = 2;
    return o;
  }
  PreparedCorpus prepare(const std::string& src, const std::string& tgt, const EncodeOptions& o) const {
    return prepare_encoded_corpus("train", src, tgt, *vocabs_->src, *vocabs_->tgt, o);
  }

  static test::TempDir* dir_;
  static vocab::Vocabularies* vocabs_;
  test::TempDir local_;
};

test::TempDir* CorpusCacheTest::dir_ = nullptr;
vocab::Vocabularies* CorpusCacheTest::vocabs_ = nullptr;

TEST_F(CorpusCacheTest, EncodesFiltersAndCounts) {
  // Line 2: empty target; 3: whitespace-only source; 4: too long; 5: ratio.
  const std::string long_line = "A man sees the dog and the woman rides the bicycle and the child plays with the ball.";
  test::write_file(local_.path("s.de"), "Ein Mann sieht dem Hund.\r\nEin Hund.\n   \n" + long_line + "\nA\nEin Kind.\n");
  test::write_file(local_.path("s.en"), "A man sees the dog.\n\nA dog.\nA man.\nA man sees the dog and the woman.\nA child.\n");
  fs::create_directories(local_.path("cache"));
  test::write_file(local_.path("cache/train.ids.src_ids.tmp99999"), "left by a killed run");
  const PreparedCorpus p = prepare(local_.path("s.de"), local_.path("s.en"), options("cache"));
  ASSERT_TRUE(p.corpus);
  EXPECT_FALSE(fs::exists(local_.path("cache/train.ids.src_ids.tmp99999")));
  EXPECT_TRUE(fs::exists(local_.path("cache/train.ids")));
  const FilterStats& s = p.corpus->stats();
  EXPECT_EQ(s.read, 6);
  EXPECT_EQ(s.empty, 2);
  EXPECT_EQ(s.too_long, 1);
  EXPECT_EQ(s.bad_ratio, 1);
  EXPECT_EQ(s.kept, 2);
  EXPECT_EQ(p.corpus->size(), 2);
  EXPECT_EQ(s.summary(),
            "6 pairs read, 2 kept; dropped: 2 with an empty side, 1 over max_len 20, 1 over length ratio 3");
  // CRLF was removed before encoding: the ids equal those of the clean text.
  EXPECT_EQ(p.corpus->src(0), vocabs_->src->encode("Ein Mann sieht dem Hund."));
  EXPECT_EQ(p.corpus->tgt(1), vocabs_->tgt->encode("A child."));
}

// A few absurd lines (a scraped page without line breaks) drop their pair and
// are counted with their line numbers, in the stats the cache keeps.
TEST_F(CorpusCacheTest, PairsWithALineOverTheByteLimitAreDroppedAndCounted) {
  std::string de, en;
  for (int i = 1; i <= 300; ++i) {
    de += (i == 3 ? std::string(text::kMaxLineBytes * 3, 'd') : "Ein Hund.") + "\n";
    en += (i == 250 ? std::string(text::kMaxLineBytes + 1, 'e') : "A dog.") + "\n";
  }
  test::write_file(local_.path("l.de"), de);
  test::write_gz(local_.path("l.en.gz"), en);
  const EncodeOptions o = options("cache");
  const PreparedCorpus p = prepare(local_.path("l.de"), local_.path("l.en.gz"), o);
  for (const auto& corpus : {p.corpus, prepare(local_.path("l.de"), local_.path("l.en.gz"), o).corpus}) {
    const FilterStats& s = corpus->stats();  // as built, then as read back from the cache
    EXPECT_EQ(s.read, 300);
    EXPECT_EQ(s.kept, 298);
    EXPECT_EQ(s.over_byte_limit, 2);
    EXPECT_EQ(s.first_over_byte_limit, (std::vector<int64_t>{3, 250}));
    EXPECT_EQ(s.summary(),
              "300 pairs read, 298 kept; dropped: 0 with an empty side, 0 over max_len 20, 0 over length ratio 3, "
              "2 with a line over the byte limit (lines 3, 250)");
    EXPECT_EQ(corpus->size(), 298);
    EXPECT_EQ(corpus->src(2), vocabs_->src->encode("Ein Hund."));
  }
}

// A cache that cannot be written (here: a file size limit, EFBIG) is not bad
// data: exit code 1, a message naming the file, and no temporary left.
TEST_F(CorpusCacheTest, CacheThatCannotBeWrittenIsAnErrorNamingItWithNoTemporariesLeft) {
  struct FileSizeLimit {
    rlimit old{};
    void (*old_handler)(int) = nullptr;
    explicit FileSizeLimit(rlim_t bytes) {
      getrlimit(RLIMIT_FSIZE, &old);
      old_handler = signal(SIGXFSZ, SIG_IGN);  // write() then fails with EFBIG
      rlimit limited = old;
      limited.rlim_cur = bytes;
      setrlimit(RLIMIT_FSIZE, &limited);
    }
    ~FileSizeLimit() {
      setrlimit(RLIMIT_FSIZE, &old);
      signal(SIGXFSZ, old_handler);
    }
  };
  const std::string src = dir_->path("train.de.gz"), tgt = dir_->path("train.en");
  try {
    FileSizeLimit limit(512);
    prepare(src, tgt, options("cache"));
    ADD_FAILURE() << "the cache was written past the limit";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), 1) << e.what();
    EXPECT_NE(std::string(e.what()).find("Cannot write the id cache " + local_.path("cache/train.ids")),
              std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("File too large"), std::string::npos) << e.what();
  }
  for (const auto& entry : fs::directory_iterator(local_.path("cache"))) ADD_FAILURE() << "left: " << entry.path();
  EXPECT_TRUE(prepare(src, tgt, options("cache")).corpus) << "written once the limit is gone";
}

TEST_F(CorpusCacheTest, CacheIsReusedUntilCorpusOrVocabularyChanges) {
  const std::string src = local_.path("c.de"), tgt = local_.path("c.en");
  fs::copy_file(dir_->path("train.de.gz"), src);
  fs::copy_file(dir_->path("train.en"), tgt);
  const EncodeOptions o = options("cache");
  const PreparedCorpus first = prepare(src, tgt, o);
  EXPECT_FALSE(first.reused);
  EXPECT_EQ(first.corpus->stats().read, 400);
  const PreparedCorpus second = prepare(src, tgt, o);
  EXPECT_TRUE(second.reused);
  EXPECT_EQ(second.corpus->size(), first.corpus->size());
  EXPECT_EQ(second.corpus->src(7), first.corpus->src(7));

  // Other filter rules: another cache content.
  EncodeOptions stricter = o;
  stricter.rules.max_len = 8;
  const PreparedCorpus strict = prepare(src, tgt, stricter);
  EXPECT_FALSE(strict.reused);
  EXPECT_LT(strict.corpus->size(), first.corpus->size());

  // The corpus changes (one pair more): rebuilt.
  std::ofstream(tgt, std::ios::app) << "A dog.\n";
  std::vector<std::string> en, de;
  test::make_toy_corpus(400, en, de);
  de.push_back("Ein Hund.");
  test::write_gz(src, test::join_lines(de));
  const PreparedCorpus changed = prepare(src, tgt, o);
  EXPECT_FALSE(changed.reused);
  EXPECT_EQ(changed.corpus->stats().read, 401);

  // The vocabulary changes: rebuilt.
  Config other;
  other.data.train_src = src;
  other.data.train_tgt = tgt;
  other.vocab.size = 80;
  other.train.threads = 1;
  const vocab::Vocabularies v2 = vocab::prepare_vocabularies(other, local_.path("model2"));
  const PreparedCorpus revocab = prepare_encoded_corpus("train", src, tgt, *v2.src, *v2.tgt, o);
  EXPECT_FALSE(revocab.reused);
  // The cache now holds the new model's ids: the first kept pair, re-encoded.
  for (size_t line = 0; line < de.size(); ++line) {
    const auto s_ids = v2.src->encode(de[line]), t_ids = v2.tgt->encode(en.at(line));
    if (judge_pair(s_ids.size(), t_ids.size(), o.rules) != Verdict::kKeep) continue;
    EXPECT_EQ(revocab.corpus->src(0), s_ids);
    EXPECT_EQ(revocab.corpus->tgt(0), t_ids);
    break;
  }
}

TEST_F(CorpusCacheTest, EmptyCorpusIsADataError) {
  test::write_file(local_.path("e.de"), "");
  test::write_file(local_.path("e.en"), "");
  EXPECT_TRUE(test::throws_with<DataError>([&] { prepare(local_.path("e.de"), local_.path("e.en"), options("cache")); },
                                           {local_.path("e.de"), "empty"}));
  test::write_file(local_.path("b.de"), "\n\n");
  test::write_file(local_.path("b.en"), "A man.\nA dog.\n");
  EXPECT_TRUE(test::throws_with<DataError>([&] { prepare(local_.path("b.de"), local_.path("b.en"), options("cache")); },
                                           {"2 with an empty side"}));
  EXPECT_FALSE(fs::exists(local_.path("cache/train.ids"))) << "no cache from a failed run";
}

TEST_F(CorpusCacheTest, BadInputsEndInOneDataErrorAndNoCache) {
  const std::string good = dir_->path("train.en");
  test::write_file(local_.path("bad.de"), std::string(399, '\n') + "kaputt \xFF\n");
  test::write_file(local_.path("short.de"), "Ein Mann.\n");
  struct Case {
    std::string src, expect;
  };
  for (const Case& c : {Case{local_.path("absent.de"), "absent.de"},
                        Case{local_.path("bad.de"), "line 400"},
                        Case{local_.path("short.de"), "(1 lines)"}}) {
    EXPECT_TRUE(test::throws_with<DataError>([&] { prepare(c.src, good, options("cache")); }, {c.expect})) << c.src;
  }
  EXPECT_FALSE(fs::exists(local_.path("cache/train.ids")));
}

TEST_F(CorpusCacheTest, TrainingDataFromConfig) {
  test::write_file(local_.path("v.de"), "Ein Mann sieht dem Hund.\nEin Kind.\n");
  test::write_file(local_.path("v.en"), "A man sees the dog.\nA child.\n");
  Config config;
  config.data.train_src = dir_->path("train.de.gz");
  config.data.train_tgt = dir_->path("train.en");
  config.data.valid_src = local_.path("v.de");
  config.data.valid_tgt = local_.path("v.en");
  config.train.batch_tokens = 300;
  const TrainingData data = prepare_training_data(config, *vocabs_, local_.path("out"));
  EXPECT_TRUE(fs::exists(local_.path("out/data_cache/train.ids")));
  EXPECT_TRUE(fs::exists(local_.path("out/data_cache/valid.ids")));
  ASSERT_TRUE(data.valid);
  EXPECT_EQ(data.valid->size(), 2);
  EXPECT_EQ(data.ids.src.pad, 1);
  EXPECT_EQ(data.ids.tgt.bos, 2);
  BatchIterator it = make_train_iterator(data, config);
  EXPECT_GT(it.batches_in_epoch(), 1);
  const auto valid = make_valid_batches(data, config);
  ASSERT_EQ(valid.size(), 1u);
  EXPECT_EQ(valid[0].src.size(0), 2);
  EXPECT_TRUE(prepare_training_data(config, *vocabs_, local_.path("out")).train_reused);
}

}  // namespace
}  // namespace nmt::data
