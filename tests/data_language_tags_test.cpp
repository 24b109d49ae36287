// The convention of a model trained on several directions
// (data.target_language_tags): the pairs and tags its corpora give, the
// validation set's tag, and the configurations it refuses, by name.
#include <gtest/gtest.h>

#include "data/language_tags.h"
#include "tests/test_support.h"
#include "util/config.h"
#include "util/error.h"

namespace nmt::data {
namespace {

// De<->En from Multi30k-style names, and Fr->En with languages given outright.
DataConfig bidirectional() {
  DataConfig d;
  d.target_language_tags = true;
  d.corpora = {{"m/train.de.gz", "m/train.en.gz", 1.0, "<2en>", "", ""},
               {"m/train.en.gz", "m/train.de.gz", 1.0, "<2de>", "", ""},
               {"m/french.txt", "m/english.txt", 0.5, "<2en>", "fr", "en"}};
  d.valid_src = "m/val.en.gz";
  d.valid_tgt = "m/val.de.gz";
  return d;
}

TEST(LanguageTags, EveryPairOfTheCorporaWithItsTargetsTag) {
  const auto pairs = tagged_pairs(bidirectional());
  ASSERT_EQ(pairs.size(), 3u);
  EXPECT_EQ(describe_pairs(pairs), "de->en, en->de, fr->en");
  EXPECT_EQ(find_pair(pairs, "en", "de")->tag, "<2de>");
  EXPECT_EQ(find_pair(pairs, "fr", "en")->tag, "<2en>");
  EXPECT_EQ(find_pair(pairs, "de", "fr"), nullptr);
  EXPECT_EQ(validation_tag(bidirectional()), "<2de>");  // val.en -> val.de
}

TEST(LanguageTags, WithoutTheFlagTagsMarkDataAndNameNoPairs) {
  DataConfig d = bidirectional();
  d.target_language_tags = false;
  EXPECT_TRUE(tagged_pairs(d).empty());
  EXPECT_EQ(validation_tag(d), "");
}

TEST(LanguageTags, ACorpusAlsoCountsOncePerPair) {
  DataConfig d = bidirectional();
  d.corpora.push_back({"m/extra.de", "m/extra.en", 1.0, "<2en>", "", ""});
  EXPECT_EQ(describe_pairs(tagged_pairs(d)), "de->en, en->de, fr->en");
}

TEST(LanguageTags, RefusedConfigurationsSayWhy) {
  DataConfig untagged = bidirectional();
  untagged.corpora[1].tag = "";
  EXPECT_TRUE(test::throws_with<UsageError>([&] { tagged_pairs(untagged); },
                                            {"data.corpora[1]", "train.en.gz", "has no tag"}));
  DataConfig shared = bidirectional();
  shared.corpora[1].tag = "<2en>";  // en->de tagged as into English
  EXPECT_TRUE(test::throws_with<UsageError>([&] { tagged_pairs(shared); },
                                            {"data.corpora[1]", "tags its target de with \"<2en>\"", "one tag"}));
  DataConfig two_tags = bidirectional();
  two_tags.corpora[2].tag = "<to_en>";
  EXPECT_TRUE(test::throws_with<UsageError>([&] { tagged_pairs(two_tags); }, {"data.corpora[2]", "<to_en>"}));
  DataConfig nameless = bidirectional();
  nameless.corpora[2].src_lang = "";
  EXPECT_TRUE(test::throws_with<UsageError>([&] { tagged_pairs(nameless); },
                                            {"data.corpora[2] needs src_lang", "m/french.txt"}));
  DataConfig no_corpora;
  no_corpora.target_language_tags = true;
  no_corpora.train_src = "a.de";
  no_corpora.train_tgt = "a.en";
  EXPECT_TRUE(test::throws_with<UsageError>([&] { tagged_pairs(no_corpora); }, {"needs data.corpora"}));
  DataConfig other_valid = bidirectional();
  other_valid.valid_src = "m/val.cs";
  other_valid.valid_tgt = "m/val.en";
  EXPECT_TRUE(test::throws_with<UsageError>([&] { validation_tag(other_valid); },
                                            {"m/val.cs", "cs->en", "de->en, en->de, fr->en"}));
}

}  // namespace
}  // namespace nmt::data
