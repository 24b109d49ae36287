// Glossaries through the translator on the trained sample model: every line
// that holds a source term gets the term's target form, in plain text, in
// HTML and from a TBX file; the sentences without terms are translated as
// without a glossary; a line's translation is the same alone and among
// others; a term the model cannot write is named on standard error; a
// glossary with nothing for the pair is refused.
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/sample_model_util.h"
#include "tests/test_support.h"

namespace nmt::test {
namespace {

bool has_word(const std::string& text, const std::string& word) {
  return std::regex_search(text, std::regex("(^|[^[:alpha:]])" + word + "($|[^[:alpha:]])"));
}

class GlossaryTranslation : public SampleModelTest {
 protected:
  static SampleRun translate(const std::vector<std::string>& lines, const std::string& flags) {
    return translate_sample(*dir_, lines, flags);
  }
  static std::vector<std::string> sample(size_t n) {
    std::ifstream in(source_dir() + "/examples/sample/test.en");
    std::vector<std::string> out;
    for (std::string l; out.size() < n && std::getline(in, l);) out.push_back(l);
    return out;
  }
};

// Terms the model would not choose ("car" is "Auto" in its training data).
const char* const kTerms = "# terms the model was never taught\ncar\tWagen\nhouse\tGebäude\nthe old woman\tdie Seniorin\n";

TEST_F(GlossaryTranslation, EveryLineWithATermGetsItsTargetAndTheOthersAreUntouched) {
  std::ofstream(dir_->path("terms.tsv")) << kTerms;
  const auto lines = sample(200);
  const auto plain = translate(lines, "");
  const auto with = translate(lines, "--glossary " + shell_quote(dir_->path("terms.tsv")));
  ASSERT_EQ(with.code, 0) << with.log;
  ASSERT_EQ(with.lines.size(), lines.size());
  EXPECT_NE(with.log.find("glossary: 3 term(s) for en->de"), std::string::npos) << with.log;
  int constrained = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    bool any = false;
    const std::pair<const char*, const char*> terms[] = {{"car", "Wagen"}, {"house", "Gebäude"}, {"old woman", "Seniorin"}};
    for (const auto& [source, target] : terms) {
      if (!has_word(lines[i], source)) continue;
      any = true;
      EXPECT_TRUE(has_word(with.lines[i], target)) << lines[i] << " -> " << with.lines[i];
    }
    constrained += any ? 1 : 0;
    if (!any) EXPECT_EQ(with.lines[i], plain.lines[i]) << lines[i];
  }
  EXPECT_GE(constrained, 8);  // 9 of the first 200 lines hold a term
  EXPECT_EQ(with.log.find("is not in the translation"), std::string::npos) << with.log;
}

TEST_F(GlossaryTranslation, ALineIsTranslatedTheSameAloneAndAmongOthers) {
  std::ofstream(dir_->path("terms.tsv")) << kTerms;
  const auto lines = sample(40);
  const auto all = translate(lines, "--glossary " + shell_quote(dir_->path("terms.tsv")));
  ASSERT_EQ(all.lines.size(), lines.size());
  for (size_t i = 0; i < lines.size(); i += 7) {
    const auto alone = translate({lines[i]}, "--glossary " + shell_quote(dir_->path("terms.tsv")) + " --threads 1");
    ASSERT_EQ(alone.lines.size(), 1u) << alone.log;
    EXPECT_EQ(alone.lines[0], all.lines[i]) << lines[i];
  }
}

TEST_F(GlossaryTranslation, TbxHtmlAndATermTheModelCannotWrite) {
  std::ofstream(dir_->path("t.tbx")) << R"(<?xml version="1.0"?>
<martif type="TBX"><text><body>
<termEntry><langSet xml:lang="en"><tig><term>cup</term></tig></langSet><langSet xml:lang="de"><tig><term>Becher</term></tig></langSet></termEntry>
<termEntry><langSet xml:lang="en"><tig><term>shop</term></tig></langSet><langSet xml:lang="de"><tig><term>Quelle</term></tig></langSet></termEntry>
</body></text></martif>)";
  const auto out = translate({"The cup is cheap.", "The mice come into the shop."},
                             "--glossary " + shell_quote(dir_->path("t.tbx")));
  ASSERT_EQ(out.code, 0) << out.log;
  EXPECT_TRUE(has_word(out.lines[0], "Becher")) << out.lines[0];
  // The sample vocabulary has no "Q": the term is named, and the line still translated.
  EXPECT_NE(out.log.find("line 2 of " + dir_->path("in.txt") + ": the glossary term \"shop\" -> \"Quelle\" is not in the "
                         "translation (the model's target vocabulary cannot write it)"),
            std::string::npos)
      << out.log;
  EXPECT_FALSE(out.lines[1].empty());
  const auto html = translate({"<p>The <b>cup</b> is cheap.</p>"}, "--format html --glossary " + shell_quote(dir_->path("t.tbx")));
  ASSERT_EQ(html.code, 0) << html.log;
  EXPECT_NE(html.lines[0].find("Becher"), std::string::npos) << html.lines[0];
}

TEST_F(GlossaryTranslation, ATermLongerThanTheOutputLimitIsNamedAndTheLineStillTranslated) {
  std::ofstream(dir_->path("long.tsv")) << "cup\tein sehr großer Becher aus Glas mit Henkel\n";
  const auto out = translate({"The cup is cheap."}, "--max-len-a 0 --max-len-b 5 --glossary " + shell_quote(dir_->path("long.tsv")));
  ASSERT_EQ(out.code, 0) << out.log;
  ASSERT_EQ(out.lines.size(), 1u);
  EXPECT_FALSE(out.lines[0].empty());
  EXPECT_NE(out.log.find("the glossary term \"cup\" -> \"ein sehr großer Becher aus Glas mit Henkel\" is not in the "
                         "translation (no translation within the length limit contains it)"),
            std::string::npos)
      << out.log;
}

TEST_F(GlossaryTranslation, AGlossaryWithNothingForThePairIsRefused) {
  std::ofstream(dir_->path("fr.tsv")) << "en\tfr\ncar\tvoiture\n";
  const auto out = translate({"The car."}, "--glossary " + shell_quote(dir_->path("fr.tsv")));
  EXPECT_NE(out.code, 0);
  EXPECT_NE(out.log.find("The glossary holds no terms for en->de."), std::string::npos) << out.log;
}

}  // namespace
}  // namespace nmt::test
