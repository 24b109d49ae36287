// Protected spans: what the scanner takes for a placeholder (and what it
// leaves to the model), how a text is masked, and where the spans go back
// in a translation given its word alignment.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "text/masked_text.h"
#include "text/placeholders.h"

namespace nmt::text {
namespace {

std::vector<std::string> found(const std::string& text, PlaceholderOptions options = {}) {
  std::vector<std::string> out;
  for (const Span& s : find_placeholders(text, options)) out.emplace_back(s.of(text));
  return out;
}

using Strings = std::vector<std::string>;

TEST(Placeholders, PrintfForms) {
  EXPECT_EQ(found("Deleted %d of %s files"), (Strings{"%d", "%s"}));
  EXPECT_EQ(found("Move %1$s to %2$s now"), (Strings{"%1$s", "%2$s"}));
  EXPECT_EQ(found("It is %.2f%% done, %-5lu left, %(count)d items, %@ ok"),
            (Strings{"%.2f", "%%", "%-5lu", "%(count)d", "%@"}));
}

TEST(Placeholders, BraceForms) {
  EXPECT_EQ(found("Hello {0}, {name} and {{ user.name }} in ${HOME} {} {0:N2}"),
            (Strings{"{0}", "{name}", "{{ user.name }}", "${HOME}", "{}", "{0:N2}"}));
}

TEST(Placeholders, TagsUrlsAndEmails) {
  EXPECT_EQ(found("Click <b>here</b> or <x id=\"1\"/> now"), (Strings{"<b>", "</b>", "<x id=\"1\"/>"}));
  EXPECT_EQ(found("See https://example.com/a?b=1. Then www.example.org, or mail ann.lee+x@mail.example.de."),
            (Strings{"https://example.com/a?b=1", "www.example.org", "ann.lee+x@mail.example.de"}));
  EXPECT_EQ(found("Read (https://en.wikipedia.org/wiki/Tree_(data_structure))."),
            (Strings{"(https://en.wikipedia.org/wiki/Tree_(data_structure))"}));
}

TEST(Placeholders, ProseIsLeftToTheModel) {
  EXPECT_TRUE(found("A 50 % discount, a { b } c, at 12:30, if a < b and c > d, 100%.").empty());
  EXPECT_TRUE(found("Write to me @home or at user@localhost").empty());
  EXPECT_TRUE(found("A very long brace {" + std::string(80, 'a') + "}").empty());
}

TEST(Placeholders, ColonNamesOnlyWhenAsked) {
  EXPECT_TRUE(found("Delete :count files at 12:30").empty());
  PlaceholderOptions o;
  o.colon_names = true;
  EXPECT_EQ(found("Delete :count files at 12:30", o), (Strings{":count"}));
}

TEST(Placeholders, LiteralsAndTheirOverlaps) {
  PlaceholderOptions o;
  o.literals = {"Acme Cloud", "Cloud"};
  EXPECT_EQ(found("Acme Cloud and the Cloud of {0}", o), (Strings{"Acme Cloud", "Cloud", "{0}"}));
  o.enabled = false;
  EXPECT_TRUE(found("Acme Cloud {0} %s", o).empty());
}

TEST(Placeholders, QuotesAndBracketsAroundOneGoWithIt) {
  EXPECT_EQ(found("Could not open '%s'. Try \xE2\x80\x9C{0}\xE2\x80\x9D (%d)"),
            (Strings{"'%s'", "\xE2\x80\x9C{0}\xE2\x80\x9D", "(%d)"}));
}

TEST(MaskedText, SpansComeOutAndWhitespaceClosesUp) {
  const std::string text = "She %s shows %1$s the girl {0}. {1} Done";
  const auto m = mask_spans(text, find_placeholders(text, {}));
  EXPECT_EQ(m.text, "She shows the girl. Done");
  ASSERT_EQ(m.atoms.size(), 4u);
  EXPECT_EQ(m.atoms[0].position, 4u);   // before "shows"
  EXPECT_EQ(m.atoms[1].position, 10u);  // before "the"
  EXPECT_EQ(m.atoms[2].position, 18u);  // before "."
  EXPECT_EQ(m.atoms[3].position, 20u);  // before "Done"
  EXPECT_TRUE(m.atoms[2].space_before);
  EXPECT_FALSE(m.atoms[2].space_after);
  EXPECT_EQ(m.source, text);
  // Positions map both ways outside the spans.
  EXPECT_EQ(m.masked_position(text.find("the")), m.text.find("the"));
  EXPECT_EQ(m.original_position(m.text.find("girl")), text.find("girl"));
  EXPECT_EQ(m.original_position(m.text.find("Done")), text.find("Done"));
  EXPECT_EQ(m.masked_position(text.find("%1$s") + 1), 10u);
}

TEST(MaskedText, SpansInARowAtTheEndStayWithinTheText) {
  // Found by the fuzzer: the last span closes up the space the earlier ones stood after.
  const std::string text = "See it or ann@example.org <b> https://x.org";
  const auto m = mask_spans(text, find_placeholders(text, {}));
  EXPECT_EQ(m.text, "See it or");
  ASSERT_EQ(m.atoms.size(), 3u);
  for (const auto& a : m.atoms) EXPECT_LE(a.position, m.text.size());
}

TEST(MaskedText, ARememberedSentenceIsReplacedWholePlaceholdersInsideItIncluded) {
  const std::string text = "Open %s now. Save {0} later.";
  const auto m = mask_remembered(text, {{Span{0, 12}, "Jetzt %s öffnen."}}, find_placeholders(text, {}));
  EXPECT_EQ(m.text, "Save later.");
  ASSERT_EQ(m.atoms.size(), 2u);
  EXPECT_EQ(m.atoms[0].literal, "Jetzt %s öffnen.");
  EXPECT_EQ(m.atoms[1].literal, "{0}");
  EXPECT_EQ(m.with_literals(), "Jetzt %s öffnen. Save {0} later.");
  EXPECT_EQ(place_atoms("Später speichern.", {{"Später", 5}, {"speichern.", 0}}, m),
            "Jetzt %s öffnen. {0} Später speichern.");
}

TEST(MaskedText, AtomsGoNextToTheWordsTheirNeighboursAlignTo) {
  const std::string text = "She %s shows %1$s the girl.";
  const auto m = mask_spans(text, find_placeholders(text, {}));
  ASSERT_EQ(m.text, "She shows the girl.");
  // "Dem Mädchen zeigt sie." : reordered, each word aligned to its source word.
  const std::vector<AlignedWord> words{{"Dem", 10}, {"Mädchen.", 14}, {"zeigt", 4}, {"sie.", 0}};
  EXPECT_EQ(place_atoms("Dem Mädchen. zeigt sie.", words, m), "%1$s Dem Mädchen. %s zeigt sie.");
}

TEST(MaskedText, ClosingPunctuationStaysLast) {
  const std::string text = "Hello {name}!";
  const auto m = mask_spans(text, find_placeholders(text, {}));
  ASSERT_EQ(m.text, "Hello!");
  EXPECT_EQ(place_atoms("Hallo!", {{"Hallo!", 0}}, m), "Hallo {name}!");
  const std::string quoted = "Could not open '%s'.";
  const auto q = mask_spans(quoted, find_placeholders(quoted, {}));
  ASSERT_EQ(q.text, "Could not open.");
  EXPECT_EQ(place_atoms("Konnte nicht öffnen.", {{"Konnte", 0}, {"nicht", 6}, {"öffnen.", 10}}, q),
            "Konnte nicht öffnen '%s'.");
}

TEST(MaskedText, GluedAtomsStayGlued) {
  const std::string text = "%d%% of files";
  const auto m = mask_spans(text, find_placeholders(text, {}));
  ASSERT_EQ(m.text, "of files");
  EXPECT_EQ(place_atoms("von Dateien", {{"von", 0}, {"Dateien", 3}}, m), "%d%% von Dateien");
}

TEST(MaskedText, EveryAtomExactlyOnceWhateverTheAlignment) {
  const std::string text = "{a} one %s two <b>three</b> https://x.org four {{b}}";
  const auto m = mask_spans(text, find_placeholders(text, {}));
  ASSERT_EQ(m.atoms.size(), 6u);
  for (const auto& words : std::vector<std::vector<AlignedWord>>{
           {}, {{"eins", 0}}, {{"vier", 100}, {"zwei", 3}}, {{"missing", 0}, {"drei", 8}}}) {
    const std::string out = place_atoms("eins zwei drei vier", words, m);
    for (const auto& atom : m.atoms) {
      size_t n = 0;
      for (size_t at = out.find(atom.literal); at != std::string::npos; at = out.find(atom.literal, at + 1)) ++n;
      EXPECT_EQ(n, 1u) << atom.literal << " in " << out;
    }
  }
}

TEST(MaskedText, AtomsAsWordsForMarkup) {
  const std::string text = "Open %s now";
  const auto m = mask_spans(text, find_placeholders(text, {}));
  const auto words = place_atom_words({{"Jetzt", 100 + 5}, {"öffnen", 100 + 0}}, m, 100);
  ASSERT_EQ(words.size(), 3u);
  // Before "Jetzt", the word its right neighbour "now" aligns to, at its own position.
  EXPECT_EQ(words[0].text, "%s");
  EXPECT_EQ(words[0].source, 105u);
  EXPECT_EQ(words[1].text, "Jetzt");
  EXPECT_EQ(words[2].text, "öffnen");
}

}  // namespace
}  // namespace nmt::text
