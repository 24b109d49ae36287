// Inline elements carried to the target words their source words align to,
// the element tree kept whatever the alignment says.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "text/markup_transfer.h"

namespace nmt::text {
namespace {

MarkupElement element(size_t begin, size_t end, int parent, const std::string& name) {
  return {begin, end, parent, "<" + name + ">", "</" + name + ">"};
}

// Source "a big dog runs" (positions 0, 2, 6, 10) translated word for word.
TEST(MarkupTransfer, WrapsTheWordsAlignedToTheElement) {
  const std::vector<AlignedWord> words = {{"ein", 0}, {"großer", 2}, {"Hund", 6}, {"rennt", 10}};
  EXPECT_EQ(transfer_markup(words, {element(6, 9, -1, "b")}), "ein großer <b>Hund</b> rennt");
  EXPECT_EQ(transfer_markup(words, {element(2, 9, -1, "b"), element(6, 9, 0, "i")}),
            "ein <b>großer <i>Hund</i></b> rennt");
  EXPECT_EQ(transfer_markup(words, {}), "ein großer Hund rennt");
}

TEST(MarkupTransfer, ReorderedWordsStayInOneStretchPerElement) {
  // "red car" -> "voiture rouge": <b>red</b> lands on "rouge".
  EXPECT_EQ(transfer_markup({{"voiture", 4}, {"rouge", 0}}, {element(0, 3, -1, "b")}), "voiture <b>rouge</b>");
  // An element whose words are apart wraps everything between them once.
  EXPECT_EQ(transfer_markup({{"x", 0}, {"y", 5}, {"z", 2}}, {element(0, 4, -1, "b")}), "<b>x y z</b>");
}

TEST(MarkupTransfer, SiblingsKeepTheirOrderAndChildrenStayInsideTheirParent) {
  // <b>red</b> <i>car</i> -> "voiture rouge": b first in the tree, so i wraps nothing after it.
  EXPECT_EQ(transfer_markup({{"voiture", 4}, {"rouge", 0}}, {element(0, 3, -1, "b"), element(4, 7, -1, "i")}),
            "voiture <b>rouge</b><i></i>");
  // x <b>y <i>z</i></b> -> z' x' y': the parent's stretch takes in its child's words.
  EXPECT_EQ(transfer_markup({{"z'", 4}, {"x'", 0}, {"y'", 2}}, {element(2, 5, -1, "b"), element(4, 5, 0, "i")}),
            "<b><i>z'</i> x' y'</b>");
}

TEST(MarkupTransfer, AnElementWithoutWordsStaysAfterTheWordsBeforeIt) {
  EXPECT_EQ(transfer_markup({{"x", 0}, {"y", 5}}, {element(3, 3, -1, "a")}), "x<a></a> y");
  EXPECT_EQ(transfer_markup({}, {element(0, 0, -1, "a")}), "<a></a>");
  auto punctuation = element(3, 4, -1, "a");  // around a mark only: nothing to take
  punctuation.holds_words = false;
  EXPECT_EQ(transfer_markup({{"x", 0}, {"y", 5}}, {punctuation}), "x<a></a> y");
}

// "I am in the small <b>city</b>." -> "... kleinen Stadt." with no target word
// aligned to "city": the word aligned nearest to it is taken, never nothing.
TEST(MarkupTransfer, AnElementOfWordsNoneAlignsToTakesTheNearestWord) {
  const std::vector<AlignedWord> words = {{"in", 5}, {"der", 8}, {"kleinen", 12}, {"Stadt.", 22}};
  EXPECT_EQ(transfer_markup(words, {element(18, 22, -1, "b")}), "in der kleinen <b>Stadt.</b>");
  // Not a word another element holds: "kleinen" is the <i>'s; what is left
  // ("in", "der") comes before its earlier sibling, and the tree's order wins.
  EXPECT_EQ(transfer_markup({{"in", 5}, {"der", 8}, {"kleinen", 12}}, {element(12, 17, -1, "i"), element(18, 22, -1, "b")}),
            "in der <i>kleinen</i><b></b>");
  // Two such siblings do not take the same word: each takes its own.
  EXPECT_EQ(transfer_markup({{"x", 0}, {"y", 10}}, {element(2, 4, -1, "a"), element(5, 7, -1, "b")}),
            "<a>x</a> <b>y</b>");
  // A kept piece (verbatim) is never taken.
  EXPECT_EQ(transfer_markup({{"<code>k</code>", 1, true}, {"y", 10}}, {element(2, 4, -1, "a")}),
            "<code>k</code> <a>y</a>");
  // Inside its parent: the child takes a word and the parent grows around it.
  EXPECT_EQ(transfer_markup({{"a", 0}, {"b", 2}, {"c", 9}}, {element(4, 8, -1, "p"), element(5, 7, 0, "q")}),
            "a <p><q>b</q></p> c");
}

TEST(MarkupTransfer, EscapesWordsAndJoinsScriptsWithoutSpaces) {
  EXPECT_EQ(transfer_markup({{"a<b", 0}, {"&", 4}}, {}), "a&lt;b &amp;");
  EXPECT_EQ(transfer_markup({{"今日", 0}, {"は", 2}, {"晴れ", 4}}, {element(4, 6, -1, "b")}), "今日は<b>晴れ</b>");
}

}  // namespace
}  // namespace nmt::text
