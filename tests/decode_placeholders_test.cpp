// Placeholders through the translator on the trained sample model: software
// strings with printf, brace, tag placeholders, URLs and e-mail addresses
// come out with every placeholder exactly once, byte for byte, and the words
// around them as the model translates the line without them (it never sees
// them); --no-placeholders gives the model everything, and --keep-verbatim
// keeps a user's own strings.
#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/sample_model_util.h"
#include "tests/test_support.h"
#include "text/masked_text.h"
#include "text/placeholders.h"

namespace nmt::test {
namespace {

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// Words of `text` with the protected strings taken out, one space between.
std::string rest_of(std::string text, const std::vector<std::string>& literals) {
  for (const auto& l : literals) {
    for (size_t at = text.find(l); at != std::string::npos; at = text.find(l)) text.erase(at, l.size());
  }
  std::istringstream in(text);
  std::string out;
  for (std::string w; in >> w;) out += (out.empty() ? "" : " ") + w;
  return out;
}

class PlaceholderTranslation : public SampleModelTest {
 protected:
  static std::vector<std::string> translate(const std::vector<std::string>& lines, const std::string& flags = "") {
    const auto r = translate_sample(*dir_, lines, flags);
    EXPECT_EQ(r.code, 0) << r.log;
    return r.lines;
  }
};

const std::vector<std::string> kStrings = {
    "She %s shows %1$s the girl the car because the girl has given the woman the beautiful apple.",
    "The brother wants to show {name} the old woman the house.",
    "The mice come into the shop of {{ user }} .",
    "<b>The cup</b> is cheap, see https://example.com/cups?id=3 for %d cups.",
    "We know that ${doctor} and the doctors have got up, write to info@example.org.",
    "The children put the picture next to the red doors <x id=\"1\"/> because the girl does not open the door.",
    "{0}",
    "%s %s",
};

TEST_F(PlaceholderTranslation, EveryPlaceholderOnceAndTheRestAsWithoutThem) {
  const auto out = translate(kStrings);
  ASSERT_EQ(out.size(), kStrings.size());
  std::vector<std::string> without;
  std::vector<std::vector<std::string>> literals;
  for (const auto& line : kStrings) {
    const auto spans = text::find_placeholders(line, {});
    ASSERT_FALSE(spans.empty()) << line;
    literals.emplace_back();
    for (const auto& s : spans) literals.back().emplace_back(s.of(line));
    without.push_back(text::mask_spans(line, spans).text);
  }
  const auto bare = translate(without);
  for (size_t i = 0; i < kStrings.size(); ++i) {
    for (const auto& l : literals[i]) {
      EXPECT_EQ(count_of(out[i], l), count_of(kStrings[i], l)) << l << " in: " << out[i];
    }
    EXPECT_EQ(rest_of(out[i], literals[i]), rest_of(bare[i], {})) << out[i];
  }
  EXPECT_EQ(out[6], "{0}");
  EXPECT_EQ(out[7], "%s %s");
  // The placeholders sit inside the sentence, not piled at an end.
  EXPECT_NE(out[0].find(" %s "), std::string::npos) << out[0];
  EXPECT_NE(out[0].find(" %1$s "), std::string::npos) << out[0];
}

TEST_F(PlaceholderTranslation, OffTheModelSeesThemAndKeepVerbatimProtectsTheUsersStrings) {
  const std::string line = "The brother wants to show the old woman the house.";
  const auto plain = translate({line});
  const auto kept = translate({line}, "--keep-verbatim \"old woman\"");
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(count_of(kept[0], "old woman"), 1u) << kept[0];
  EXPECT_EQ(count_of(plain[0], "old woman"), 0u) << plain[0];
  const auto off = translate({"The cup is cheap {0}."}, "--no-placeholders");
  const auto on = translate({"The cup is cheap {0}."});
  EXPECT_EQ(count_of(on[0], "{0}"), 1u);
  EXPECT_NE(off[0], on[0]);
}

TEST_F(PlaceholderTranslation, NbestAndSentenceSplittingKeepThemToo) {
  const auto out = translate({"The cup is cheap %s. The mice come into the shop {0}."}, "--split-sentences --nbest 3 --beam 4");
  ASSERT_EQ(out.size(), 3u);
  for (const auto& line : out) {
    EXPECT_EQ(count_of(line, "%s"), 1u) << line;
    EXPECT_EQ(count_of(line, "{0}"), 1u) << line;
    EXPECT_LT(line.find("%s"), line.find("{0}")) << line;
  }
}

}  // namespace
}  // namespace nmt::test
