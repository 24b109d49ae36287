// Pieces of a split sentence dressed as training sentences and their
// translations undressed: conjunctions moved across languages by meaning,
// capitals raised only for words that open sentences and lowered only for
// those the target capitalizes at a start alone, clause marks kept.
#include <string>

#include <gtest/gtest.h>

#include "text/clause_shape.h"

namespace nmt::text {
namespace {

SentenceShape english() {
  return {"en", [](std::string_view w) { return w == "The" || w == "A"; }, "."};
}
SentenceShape german() {
  return {"de", [](std::string_view w) { return w == "Die" || w == "Der" || w == "Ein"; }, "."};
}

TEST(ClauseShape, AMiddlePieceIsDressedAsASentenceAndUndressedAfter) {
  const auto piece = shape_piece("and the cup is cheap;", false, false, english(), german());
  EXPECT_EQ(piece.text, "The cup is cheap.");
  EXPECT_EQ(piece.conjunction, 0);
  EXPECT_TRUE(piece.capitalized);
  EXPECT_EQ(piece.end_mark, ";");
  EXPECT_EQ(unshape_translation("Die Tasse ist billig.", piece, german()), "und die Tasse ist billig;");
}

TEST(ClauseShape, NounsKeepTheirCapitalsAndTheSentenceItsEnds) {
  // The first piece keeps its start; its comma becomes the final mark and back.
  const auto first = shape_piece("The mice come in,", true, false, english(), german());
  EXPECT_EQ(first.text, "The mice come in.");
  EXPECT_EQ(unshape_translation("Die Mäuse kommen herein.", first, german()), "Die Mäuse kommen herein,");
  // A German noun is not an opener: "Mäuse" stays capitalized in the middle.
  const auto middle = shape_piece("mice come in", false, false, english(), german());
  EXPECT_FALSE(middle.capitalized);  // "Mice" opens no English training sentence
  EXPECT_EQ(middle.text, "mice come in.");
  EXPECT_EQ(unshape_translation("Mäuse kommen herein.", middle, german()), "Mäuse kommen herein");
  // The last piece keeps the sentence's own end.
  const auto last = shape_piece("but the cup is cheap!", false, true, english(), german());
  EXPECT_EQ(last.text, "The cup is cheap!");
  EXPECT_FALSE(last.final_added);
  EXPECT_EQ(unshape_translation("Die Tasse ist billig!", last, german()), "aber die Tasse ist billig!");
}

TEST(ClauseShape, WithoutAListOrAShapePiecesGoAsTheyAre) {
  const SentenceShape unknown{"xx", nullptr, ""};
  const auto piece = shape_piece("and the cup is cheap;", false, false, unknown, unknown);
  EXPECT_EQ(piece.text, "and the cup is cheap;");
  EXPECT_EQ(unshape_translation("und die Tasse ist billig;", piece, unknown), "und die Tasse ist billig;");
  EXPECT_EQ(coordinating_conjunctions("de-AT"), (std::vector<std::string>{"und", "aber", "oder"}));
  EXPECT_TRUE(coordinating_conjunctions("ja").empty());
  // A lone conjunction is a word to translate, not a joint to move.
  EXPECT_EQ(shape_piece("and", false, false, english(), german()).conjunction, -1);
}

TEST(ClauseShape, CasesChangeByUnicodeNotByByte) {
  const SentenceShape shape{"de", [](std::string_view w) { return w == "Über"; }, "."};
  const auto piece = shape_piece("über die Brücke", false, false, shape, shape);
  EXPECT_EQ(piece.text, "Über die Brücke.");
  EXPECT_EQ(unshape_translation("Über die Brücke.", piece, shape), "über die Brücke");
}

}  // namespace
}  // namespace nmt::text
