// Glossaries: TSV and TBX files as translators export them, the pair each
// file gives a served model, and where a text holds a term (case, word
// edges, longest term first, letters beyond ASCII).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "memory/glossary.h"
#include "tests/data_test_util.h"
#include "tests/test_support.h"
#include "util/error.h"

namespace nmt::memory {
namespace {

std::vector<std::string> found(const Glossary& g, const std::string& text) {
  std::vector<std::string> out;
  for (const auto& m : g.find(text)) out.push_back(std::string(m.span.of(text)) + "=" + g.terms()[m.term].target);
  return out;
}

Glossary of(const std::vector<std::pair<std::string, std::string>>& terms) {
  Glossary g;
  for (const auto& [s, t] : terms) g.add(s, t);
  return g;
}

TEST(Glossary, LowerCaseTermsMatchInAnyCaseOthersAsWritten) {
  const auto g = of({{"pull request", "Pull-Request"}, {"US", "USA"}});
  EXPECT_EQ(found(g, "Pull request merged. A PULL REQUEST, a pull request."),
            (std::vector<std::string>{"Pull request=Pull-Request", "PULL REQUEST=Pull-Request", "pull request=Pull-Request"}));
  EXPECT_EQ(found(g, "Tell us about the US."), (std::vector<std::string>{"US=USA"}));
}

TEST(Glossary, TermsMatchWholeWordsOnlyAndTheLongestWins) {
  const auto g = of({{"car", "Auto"}, {"car key", "Autoschlüssel"}, {"c++", "C++"}});
  EXPECT_EQ(found(g, "cart scar car. The car key, the car keys."),
            (std::vector<std::string>{"car=Auto", "car key=Autoschlüssel", "car=Auto"}));
  EXPECT_EQ(found(g, "I write C++ daily."), (std::vector<std::string>{"C++=C++"}));
}

TEST(Glossary, LettersBeyondAsciiFoldAndMarkWordEdges) {
  const auto g = of({{"straße", "street"}, {"über", "about"}, {"éclair", "eclair"}});
  EXPECT_EQ(found(g, "STRASSE? Straße! Überall über ÉCLAIR"),
            (std::vector<std::string>{"Straße=street", "über=about", "ÉCLAIR=eclair"}));
  // A combining accent continues the word: "e" + U+0301 is not the word "e".
  const auto e = of({{"e", "E"}});
  EXPECT_TRUE(found(e, "e\xCC\x81").empty());
}

TEST(Glossary, ALaterTermReplacesAnEarlierOneAndMergesWin) {
  auto g = of({{"car", "Auto"}, {"bus", "Bus"}});
  g.add("car", "Wagen");
  EXPECT_EQ(g.size(), 2u);
  const auto merged = g.merged_with(of({{"bus", "Omnibus"}, {"tram", "Tram"}}));
  EXPECT_EQ(found(merged, "car bus tram"), (std::vector<std::string>{"car=Wagen", "bus=Omnibus", "tram=Tram"}));
  EXPECT_TRUE(test::throws_with<DataError>([] { of({{"car", "  "}}); }, {"needs a source and a target"}));
}

TEST(Glossary, TenThousandTermsLoadAndAreFoundAsFew) {
  test::TempDir dir;
  std::string tsv = "en\tde\n";
  for (int i = 0; i < 10000; ++i) tsv += "term" + std::to_string(i) + " word\tBegriff" + std::to_string(i) + "\n";
  test::write_file(dir.path("big.tsv"), tsv);
  const auto g = read_term_base(dir.path("big.tsv")).glossary("en", "de");
  ASSERT_EQ(g.size(), 10000u);
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "a term" + std::to_string(i * 5) + " word and term" + std::to_string(i) + "x. ";
  const auto matches = g.find(text);
  ASSERT_EQ(matches.size(), 2000u);  // "termNx" is no term
  EXPECT_EQ(g.terms()[matches[7].term].target, "Begriff35");
}

TEST(Glossary, TsvWithAHeaderNamesItsPairWithoutOneTakesTheGivenPair) {
  test::TempDir dir;
  test::write_file(dir.path("h.tsv"), "\xEF\xBB\xBF" "en\tde\r\n# comment\n\npull request\tPull-Request\r\nbranch\t Zweig \n");
  const auto base = read_term_base(dir.path("h.tsv"));
  EXPECT_TRUE(base.names_languages);
  const auto g = base.glossary("en", "de");
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g.terms()[1], (Term{"branch", "Zweig"}));
  EXPECT_TRUE(base.glossary("de", "en").terms()[0] == (Term{"Pull-Request", "pull request"}));
  EXPECT_TRUE(base.glossary("en", "fr").empty());

  test::write_file(dir.path("plain.tsv"), "bus\tBus\ncar\tAuto\n");  // "bus bus" would be no header: one language
  EXPECT_FALSE(read_term_base(dir.path("plain.tsv")).names_languages);
  EXPECT_EQ(read_term_base(dir.path("plain.tsv"), "en", "de").glossary("en", "de").size(), 2u);
  EXPECT_EQ(glossary_for_pair({read_term_base(dir.path("plain.tsv"))}, "en", "de", true)->size(), 2u);
  EXPECT_TRUE(test::throws_with<DataError>(
      [&] { glossary_for_pair({read_term_base(dir.path("plain.tsv"))}, "en", "de", false); },
      {dir.path("plain.tsv"), "names no language pair", "--glossary SRC-TGT="}));
}

TEST(Glossary, BadTsvLinesAreNamed) {
  test::TempDir dir;
  test::write_file(dir.path("a.tsv"), "car\tAuto\nbus Bus\n");
  EXPECT_TRUE(test::throws_with<DataError>([&] { read_term_base(dir.path("a.tsv"), "en", "de"); },
                                           {dir.path("a.tsv") + " line 2", "has 1 cells", "a tab"}));
  test::write_file(dir.path("b.tsv"), "car\t\n");
  EXPECT_TRUE(test::throws_with<DataError>([&] { read_term_base(dir.path("b.tsv"), "en", "de"); },
                                           {"line 1", "empty term"}));
  test::write_file(dir.path("c.tsv"), "car\tAu\xC3\x28to\n");
  EXPECT_TRUE(test::throws_with<DataError>([&] { read_term_base(dir.path("c.tsv"), "en", "de"); },
                                           {"line 1", "UTF-8"}));
  EXPECT_TRUE(test::throws_with<DataError>([&] { read_term_base(dir.path("none.tsv")); }, {"Cannot read the glossary"}));
}

TEST(Glossary, TbxOfBothVersionsGivesEveryPairItsTerms) {
  test::TempDir dir;
  // TBX-Basic (ISO 30042:2008) as translation tools export it, DOCTYPE and all.
  test::write_file(dir.path("v2.tbx"), R"(<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE martif SYSTEM "TBXBasiccoreStructV02.dtd">
<martif type="TBX-Basic" xml:lang="en-US"><martifHeader><fileDesc><sourceDesc><p>x</p></sourceDesc></fileDesc></martifHeader>
<text><body>
<termEntry id="c1"><langSet xml:lang="en-US"><tig><term>pull request</term></tig><tig><term>PR</term></tig></langSet>
<langSet xml:lang="de-DE"><ntig><termGrp><term>Pull-Request</term></termGrp></ntig></langSet>
<langSet xml:lang="fr"><tig><term>demande de tirage</term></tig></langSet></termEntry>
<termEntry id="c2"><langSet xml:lang="en"><tig><term>branch</term></tig></langSet></termEntry>
</body></text></martif>)");
  const auto v2 = read_term_base(dir.path("v2.tbx"));
  const auto en_de = v2.glossary("en", "de");
  ASSERT_EQ(en_de.size(), 2u);  // both English synonyms, to the preferred German term; c2 has no German
  EXPECT_EQ(en_de.terms()[0], (Term{"pull request", "Pull-Request"}));
  EXPECT_EQ(en_de.terms()[1], (Term{"PR", "Pull-Request"}));
  EXPECT_EQ(v2.glossary("en", "fr").terms()[0].target, "demande de tirage");
  EXPECT_EQ(v2.glossary("de", "en").terms()[0], (Term{"Pull-Request", "pull request"}));
  // TBX v3 (ISO 30042:2019): <tbx>, conceptEntry, langSec, termSec.
  test::write_file(dir.path("v3.tbx"), R"(<?xml version="1.0"?>
<tbx type="TBX-Core" style="dca" xml:lang="en" xmlns="urn:iso:std:iso:30042:ed-2"><text><body>
<conceptEntry id="1"><langSec xml:lang="en"><termSec><term>merge</term></termSec></langSec>
<langSec xml:lang="de"><termSec><term>zusammenführen</term></termSec></langSec></conceptEntry>
</body></text></tbx>)");
  EXPECT_EQ(read_term_base(dir.path("v3.tbx")).glossary("en", "de").terms()[0], (Term{"merge", "zusammenführen"}));
  test::write_file(dir.path("bad.tbx"), "<martif><text><body>\n<termEntry>\n</body></martif>");
  EXPECT_TRUE(test::throws_with<DataError>([&] { read_term_base(dir.path("bad.tbx")); },
                                           {dir.path("bad.tbx"), "not well-formed XML"}));
  test::write_file(dir.path("tmx.tbx"), "<tmx version=\"1.4\"/>");
  EXPECT_TRUE(test::throws_with<DataError>([&] { read_term_base(dir.path("tmx.tbx")); }, {"not TBX", "<tmx>"}));
}

TEST(Glossary, AFileIsGivenWithOrWithoutItsPair) {
  const auto named = parse_glossary_source("en-DE=/x/terms.tsv");
  EXPECT_EQ(named.path, "/x/terms.tsv");
  EXPECT_EQ(named.source_language, "en");
  EXPECT_EQ(named.target_language, "de");
  const auto plain = parse_glossary_source("/x/a=b.tsv");
  EXPECT_EQ(plain.path, "/x/a=b.tsv");
  EXPECT_TRUE(plain.source_language.empty());
}

}  // namespace
}  // namespace nmt::memory
