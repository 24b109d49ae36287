// From text files to the id cache: filtering with counts, the empty corpus,
// reuse of the cache while nothing changed and rebuilding (saying why) when
// something did, a damaged cache, temporaries of killed builds, and caches
// shared between runs.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>

#include <filesystem>

#include "data/corpus_cache.h"
#include "data/training_data.h"
#include "data_test_util.h"
#include "tests/test_support.h"
#include "util/atomic_file.h"
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
    return prepare_encoded_corpus(src, tgt, *vocabs_->src, *vocabs_->tgt, o);
  }
  std::string cache_file(const std::string& src, const std::string& tgt, const EncodeOptions& o) const {
    return corpus_cache_path(src, corpus_cache_key(src, tgt, *vocabs_->src, *vocabs_->tgt, o), o);
  }
  // The id caches in a directory.
  static std::vector<std::string> caches_in(const std::string& dir) {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      if (e.path().extension() == ".ids") out.push_back(e.path().filename().string());
    }
    return out;
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
  const PreparedCorpus p = prepare(local_.path("s.de"), local_.path("s.en"), options("cache"));
  ASSERT_TRUE(p.corpus);
  EXPECT_FALSE(p.reused);
  EXPECT_EQ(p.rebuilt_because, "there is none yet");
  EXPECT_EQ(p.corpus->path(), cache_file(local_.path("s.de"), local_.path("s.en"), options("cache")));
  EXPECT_EQ(fs::path(p.corpus->path()).filename().string().rfind("s.de-", 0), 0u) << "named for its source file";
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
    EXPECT_NE(std::string(e.what()).find("Cannot write the id cache " + cache_file(src, tgt, options("cache"))),
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
  const PreparedCorpus revocab = prepare_encoded_corpus(src, tgt, *v2.src, *v2.tgt, o);
  EXPECT_FALSE(revocab.reused);
  EXPECT_NE(revocab.corpus->path(), changed.corpus->path()) << "a cache per vocabulary, side by side";
  EXPECT_NE(revocab.rebuilt_because.find("there is none for this vocabulary, these filters and this version of the "
                                         "files yet (3 other caches of c.de there)"),
            std::string::npos)
      << revocab.rebuilt_because;
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
  EXPECT_TRUE(caches_in(local_.path("cache")).empty()) << "no cache from a failed run";
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
  EXPECT_TRUE(caches_in(local_.path("cache")).empty());
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
  EXPECT_EQ(caches_in(local_.path("out/data_cache")).size(), 2u) << "training and validation";
  ASSERT_TRUE(data.valid);
  EXPECT_EQ(data.valid->size(), 2);
  EXPECT_EQ(data.ids.src.pad, 1);
  EXPECT_EQ(data.ids.tgt.bos, 2);
  BatchIterator it = make_train_iterator(data, config);
  EXPECT_GT(it.batches_in_epoch(), 1);
  const auto valid = make_valid_batches(data, config);
  ASSERT_EQ(valid.size(), 1u);
  EXPECT_EQ(valid[0].src.size(0), 2);
  EXPECT_TRUE(prepare_training_data(config, *vocabs_, local_.path("out")).train_reused());
}

TEST_F(CorpusCacheTest, IdenticalAndDuplicatePairsAreDroppedAndCountedWhenAsked) {
  test::write_file(local_.path("d.de"), "Ein Hund.\nBerlin\nEin Hund.\nEin Kind.\nEin Hund.\nEin Hund.\n");
  test::write_file(local_.path("d.en"), "A dog.\n Berlin \nA dog.\nA child.\nA cat.\nA dog.\n");
  EncodeOptions o = options("cache");
  const PreparedCorpus plain = prepare(local_.path("d.de"), local_.path("d.en"), o);
  EXPECT_EQ(plain.corpus->size(), 6) << "both filters are off by default";
  o.rules.drop_identical = o.rules.drop_duplicates = true;
  const PreparedCorpus filtered = prepare(local_.path("d.de"), local_.path("d.en"), o);
  EXPECT_FALSE(filtered.reused) << "the filters are part of the cache's key";
  const FilterStats& s = filtered.corpus->stats();
  EXPECT_EQ(s.identical, 1);  // "Berlin" / " Berlin ": the same text but for the spaces around it
  EXPECT_EQ(s.duplicate, 2);  // lines 3 and 6 repeat line 1; line 5 has another target
  EXPECT_EQ(s.kept, 3);
  EXPECT_EQ(s.summary(),
            "6 pairs read, 3 kept; dropped: 0 with an empty side, 0 over max_len 20, 0 over length ratio 3, "
            "1 with identical sides, 2 duplicates");
  EXPECT_EQ(filtered.corpus->tgt(2), vocabs_->tgt->encode("A cat."));
  EXPECT_EQ(prepare(local_.path("d.de"), local_.path("d.en"), o).corpus->stats().summary(), s.summary())
      << "the counts are kept in the cache";
}

TEST_F(CorpusCacheTest, ADamagedCacheIsRebuiltSayingWhy) {
  const std::string src = dir_->path("train.de.gz"), tgt = dir_->path("train.en");
  const EncodeOptions o = options("cache");
  const std::string path = prepare(src, tgt, o).corpus->path();
  fs::resize_file(path, fs::file_size(path) - 100);  // cut short, as by a full disk outside our control
  const PreparedCorpus again = prepare(src, tgt, o);
  EXPECT_FALSE(again.reused);
  EXPECT_NE(again.rebuilt_because.find("cut short or damaged"), std::string::npos) << again.rebuilt_because;
  EXPECT_EQ(again.corpus->stats().read, 400);
  test::write_file(path, "not a cache at all");
  EXPECT_EQ(prepare(src, tgt, o).rebuilt_because, "it is shorter than its header");
  EXPECT_TRUE(prepare(src, tgt, o).reused);
}

TEST_F(CorpusCacheTest, TemporariesOfKilledBuildsGoThoseOfLiveOnesStay) {
  const std::string src = dir_->path("train.de.gz"), tgt = dir_->path("train.en");
  const EncodeOptions o = options("cache");
  fs::create_directories(local_.path("cache"));
  const std::string target = cache_file(src, tgt, o);
  const std::string suffix = temporary_suffix();  // .tmp-HOST-PID
  const std::string host_part = suffix.substr(0, suffix.rfind('-') + 1);
  const std::string dead = target + host_part + "4194000.begin";  // above any pid in use here
  const std::string live = target + host_part + std::to_string(::getppid());
  const std::string other_host = target + ".tmp-elsewhere-4194000";
  for (const auto& f : {dead, live, other_host}) test::write_file(f, "partial");
  ASSERT_TRUE(prepare(src, tgt, o).corpus);
  EXPECT_FALSE(fs::exists(dead)) << "a build killed on this machine";
  EXPECT_TRUE(fs::exists(live)) << "a build still running (another run sharing the cache)";
  EXPECT_TRUE(fs::exists(other_host)) << "another machine's processes are not known here";
}

// Several corpora: one whose sides differ in length stops the run naming its
// files; the good corpus's cache stays whole, the bad one leaves nothing.
TEST_F(CorpusCacheTest, AMisalignedCorpusOfSeveralIsNamedAndLeavesNoCache) {
  test::write_file(local_.path("m.de"), "Ein Hund.\nEin Kind.\nEin Mann.\n");
  test::write_file(local_.path("m.en"), "A dog.\nA child.\n");
  Config config;
  config.data.corpora = {{dir_->path("train.de.gz"), dir_->path("train.en"), 1.0, "", "", ""},
                         {local_.path("m.de"), local_.path("m.en"), 2.0, "", "", ""}};
  config.data.cache_dir = local_.path("cache");
  EXPECT_TRUE(test::throws_with<DataError>([&] { prepare_training_data(config, *vocabs_, local_.path("out")); },
                                           {local_.path("m.de"), local_.path("m.en")}));
  const auto caches = caches_in(local_.path("cache"));
  ASSERT_EQ(caches.size(), 1u);
  EXPECT_EQ(caches[0].rfind("train.de.gz-", 0), 0u);
  for (const auto& entry : fs::directory_iterator(local_.path("cache"))) {
    EXPECT_EQ(entry.path().extension(), ".ids") << "left: " << entry.path();
  }
}

TEST_F(CorpusCacheTest, ASharedCacheDirectoryServesAnotherRunAtOnce) {
  Config config;
  config.data.train_src = dir_->path("train.de.gz");
  config.data.train_tgt = dir_->path("train.en");
  config.data.cache_dir = local_.path("shared");
  const TrainingData first = prepare_training_data(config, *vocabs_, local_.path("run1"));
  EXPECT_FALSE(first.train_reused());
  const TrainingData second = prepare_training_data(config, *vocabs_, local_.path("run2"));
  EXPECT_TRUE(second.train_reused());
  EXPECT_EQ(second.train->corpus(0).path(), first.train->corpus(0).path());
  EXPECT_FALSE(fs::exists(local_.path("run2/data_cache")));
  const auto lines = describe_training_data(second);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("reused"), std::string::npos) << lines[0];
}

}  // namespace
}  // namespace nmt::data
