// The BLEU variants that compare with papers: sacreBLEU's -lc and the
// "tokenized BLEU" of Moses's tokenizer with multi-bleu.perl, checked
// against tokenizations worked out by hand from tokenizer.perl's rules,
// counts worked out by hand, and Python's str.lower() as a peer.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "eval/bleu.h"
#include "eval/lowercase.h"
#include "eval/moses_tokenizer.h"
#include "tests/test_support.h"

namespace nmt::eval {
namespace {

TEST(MosesTokenizer, SplitsPunctuationAndKeepsNumbersAndHyphens) {
  EXPECT_EQ(moses_tokenize("Hello, world!", "en"), "Hello , world !");
  EXPECT_EQ(moses_tokenize("A man (in blue) walks  \t home.", "en"), "A man ( in blue ) walks home .");
  EXPECT_EQ(moses_tokenize("It costs $3,000.50 for a well-known \"thing\".", "en"),
            "It costs $ 3,000.50 for a well-known \" thing \" .");
  EXPECT_EQ(moses_tokenize("Wait... what?", "en"), "Wait ... what ?");
  EXPECT_EQ(moses_tokenize("1,2, and 3", "en"), "1,2 , and 3");
}

TEST(MosesTokenizer, ApostrophesFollowTheLanguage) {
  EXPECT_EQ(moses_tokenize("He doesn't like the dog's ball in the 1990's.", "en"),
            "He doesn 't like the dog 's ball in the 1990 's .");
  EXPECT_EQ(moses_tokenize("L'homme regarde l'eau.", "fr"), "L' homme regarde l' eau .");
  EXPECT_EQ(moses_tokenize("Wie geht's?", "de"), "Wie geht ' s ?");
  EXPECT_EQ(moses_tokenize("a ' b", "en"), "a ' b");
}

TEST(MosesTokenizer, AFinalPeriodStandsAloneUnlessAnAbbreviationKeepsIt) {
  EXPECT_EQ(moses_tokenize("Mr. Smith lives in the U.S.A. now.", "en"), "Mr. Smith lives in the U.S.A. now .");
  EXPECT_EQ(moses_tokenize("It ends. the next starts lower-case.", "en"), "It ends. the next starts lower-case .");
  EXPECT_EQ(moses_tokenize("It ends. The next one.", "en"), "It ends . The next one .");
  EXPECT_EQ(moses_tokenize("Siehe Nr. 5 und Nr. Eins.", "de"), "Siehe Nr. 5 und Nr . Eins .");
  EXPECT_EQ(moses_tokenize("J. K. Rowling", "en"), "J. K. Rowling");
}

TEST(Lowercase, FullUnicodeMappingAsPythonsStrLower) {
  // Python 3: 'ÜBER Straße ΣΟΦΟΣ İ'.lower() == 'über straße σοφος i̇' (final sigma, dotted I).
  EXPECT_EQ(lowercase("ÜBER Straße ΣΟΦΟΣ İ"), "über straße σοφος i\u0307");
}

BleuStats stats_of(const BleuVariant& variant, const std::vector<std::pair<std::string, std::string>>& pairs) {
  BleuStats s;
  s.variant = variant;
  for (const auto& [hyp, ref] : pairs) s.add(hyp, ref);
  return s;
}

TEST(BleuVariants, MultiBleuHasNoSmoothing) {
  // Tokens (Moses): the cat sat on the mat . / the cat sat on a mat .
  // Clipped matches 6/7, 4/6, 2/5, 1/4; equal lengths: no brevity penalty.
  const auto moses = stats_of(lowercased_moses("en"), {{"The cat sat on the mat.", "the cat sat on a mat."}});
  const BleuResult r = compute_bleu(moses);
  EXPECT_EQ(r.counts, (std::array<int64_t, 4>{6, 4, 2, 1}));
  EXPECT_EQ(r.totals, (std::array<int64_t, 4>{7, 6, 5, 4}));
  EXPECT_NEAR(r.score, 100.0 * std::pow(6.0 / 7 * 4.0 / 6 * 2.0 / 5 * 1.0 / 4, 0.25), 1e-9);
  // Cased, the capital "The" misses: fewer matches.
  EXPECT_LT(compute_bleu(stats_of({}, {{"The cat sat on the mat.", "the cat sat on a mat."}})).score, r.score);
  // No 4-gram in common: multi-bleu.perl says 0, sacreBLEU's smoothing does not.
  const std::pair<std::string, std::string> no_4gram{"the cat sat on a red mat", "the cat sat in a red mat"};
  EXPECT_EQ(compute_bleu(stats_of(lowercased_moses("en"), {no_4gram})).score, 0.0);
  EXPECT_GT(compute_bleu(stats_of(lowercased_13a(), {no_4gram})).score, 1.0);
}

TEST(BleuVariants, LowerCasedVariantsIgnoreCaseOnly) {
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"A MAN IN BLUE WALKS HIS DOG TO THE PARK.", "A man in blue walks his dog to the park."},
      {"Two Children Play Football On The Grass.", "Two children play football on the grass."}};
  EXPECT_LT(compute_bleu(stats_of({}, pairs)).score, 50.0);
  EXPECT_NEAR(compute_bleu(stats_of(lowercased_13a(), pairs)).score, 100.0, 1e-9);
  EXPECT_NEAR(compute_bleu(stats_of(lowercased_moses("en"), pairs)).score, 100.0, 1e-9);
  EXPECT_EQ(lowercased_13a().signature(), "nrefs:1|case:lc|eff:no|tok:13a|smooth:exp|version:2.x");
  EXPECT_EQ(lowercased_moses("de").signature(), "multi-bleu.perl -lc on tokenizer.perl -l de -no-escape");
}

// sacreBLEU -lc is its BLEU of both sides lower-cased by Python: the
// fixture's hypotheses and references lower-cased by python3 score the same
// without -lc as the originals with it.
TEST(BleuVariants, LowerCasedBleuEqualsBleuOfPythonLowerCasedText) {
  if (std::system("python3 -c 'pass' > /dev/null 2>&1") != 0) GTEST_SKIP() << "no python3";
  const std::string dir = test::sacrebleu_fixture_dir();
  test::TempDir tmp;
  for (const std::string name : {"ref.txt", "hyp.lower_punct.txt", "hyp.swap.txt", "hyp.entities_numbers.txt"}) {
    const auto r = test::run_command("python3 -c \"import sys; sys.stdout.write(open(sys.argv[1], encoding='utf-8')"
                                     ".read().lower())\" " +
                                     test::shell_quote(dir + "/" + name) + " > " + test::shell_quote(tmp.path(name)));
    ASSERT_EQ(r.code, 0) << r.output;
  }
  const auto lines = [](const std::string& path) {
    std::vector<std::string> out;
    std::istringstream in(test::read_text(path));
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  };
  const auto ref = lines(dir + "/ref.txt"), lower_ref = lines(tmp.path("ref.txt"));
  for (const std::string name : {"hyp.lower_punct.txt", "hyp.swap.txt", "hyp.entities_numbers.txt"}) {
    const auto hyp = lines(dir + "/" + name), lower_hyp = lines(tmp.path(name));
    ASSERT_EQ(hyp.size(), ref.size());
    BleuStats lc, plain;
    lc.variant = lowercased_13a();
    for (size_t i = 0; i < hyp.size(); ++i) {
      lc.add(hyp[i], ref[i]);
      plain.add(lower_hyp[i], lower_ref[i]);
    }
    EXPECT_EQ(compute_bleu(lc).counts, compute_bleu(plain).counts) << name;
    EXPECT_DOUBLE_EQ(compute_bleu(lc).score, compute_bleu(plain).score) << name;
  }
}

}  // namespace
}  // namespace nmt::eval
