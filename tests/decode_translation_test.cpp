// Translator on text lines with a real SentencePiece vocabulary and a small
// random model: empty, invalid and over-long lines, input order, streaming in
// chunks, and the cross-attention picture.
#include <memory>
#include <sstream>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "data_test_util.h"
#include "decode/attention_svg.h"
#include "decode/translation.h"
#include "decode/translation_stream.h"
#include "decode/word_alignment.h"
#include "tests/test_support.h"
#include "tests/vocab_test_util.h"
#include "util/config.h"
#include "util/error.h"
#include "vocab/vocabularies.h"

namespace nmt::decode {
namespace {

class TranslatorText : public test::ToyVocabularyTest {
 protected:
  Translator make(int64_t beam, int64_t batch, int64_t max_len = 24) {
    auto model = test::tiny_model(5, max_len, vocabs_->src->size());
    TranslatorOptions o;
    o.search.beam = beam;
    o.search.nbest = beam;
    o.batch_size = batch;
    return Translator(model, *vocabs_, o);
  }

};


const std::vector<std::string> kLines = {"Ein Mann sieht dem Hund.", "", "Ein Kind fährt.", "   ",
                                         "Ein Hund spielt mit dem Ball und der Mann geht zu dem Haus.",
                                         "Ein Haus."};

TEST_F(TranslatorText, EmptyLinesGiveEmptyOutputsAndOrderIsKept) {
  auto t = make(2, 2);
  const auto out = t.translate(kLines);
  ASSERT_EQ(out.size(), kLines.size());
  for (size_t i : {1u, 3u}) {
    EXPECT_TRUE(out[i].hypotheses.empty()) << "line " << i;
    EXPECT_TRUE(out[i].texts.empty()) << "line " << i;
  }
  for (size_t i : {0u, 2u, 4u, 5u}) {
    ASSERT_EQ(out[i].hypotheses.size(), out[i].plan.pieces.size()) << "line " << i;
    ASSERT_EQ(out[i].hypotheses[0].size(), 2u) << "line " << i;
    ASSERT_EQ(out[i].texts.size(), 2u) << "line " << i;
    if (out[i].plan.pieces.size() == 1) {  // line 4 is longer than this model takes: two pieces
      EXPECT_EQ(out[i].texts[0], vocabs_->tgt->decode(out[i].hypotheses[0][0].tokens));
      EXPECT_EQ(out[i].scores[1], out[i].hypotheses[0][1].score);
    }
    // Each line alone gives the same result: nothing moved between lines.
    const auto alone = t.translate({kLines[i]});
    EXPECT_EQ(alone[0].texts, out[i].texts) << "line " << i;
  }
}

TEST_F(TranslatorText, InvalidUtf8LineIsFlaggedAndOthersTranslate) {
  auto t = make(1, 4);
  std::vector<std::string> lines = kLines;
  lines[2] = "Ein \xC3\x28 Hund.";
  const auto out = t.translate(lines);
  EXPECT_TRUE(out[2].plan.invalid_utf8);
  EXPECT_TRUE(out[2].hypotheses.empty());
  EXPECT_TRUE(out[2].texts.empty());
  const auto clean = t.translate(kLines);
  for (size_t i : {0u, 4u, 5u}) {
    EXPECT_FALSE(out[i].plan.invalid_utf8);
    EXPECT_EQ(out[i].texts, clean[i].texts) << "line " << i;
  }
}

// Nothing is cut: every token of an over-long line goes to the model in
// pieces that fit, and the line is rebuilt from the pieces' translations.
TEST_F(TranslatorText, OverlongLineIsTranslatedWholeInPieces) {
  auto t = make(2, 4, 12);
  std::string longest;
  for (int i = 0; i < 40; ++i) longest += "Ein Mann sieht dem Hund und ";
  longest.pop_back();
  const auto out = t.translate({longest, "Ein Haus."});
  const LinePlan& plan = out[0].plan;
  EXPECT_EQ(plan.sentences, 1);
  EXPECT_EQ(plan.long_sentences, 1);
  ASSERT_GT(plan.pieces.size(), 1u);
  std::vector<int64_t> all;
  for (const auto& piece : plan.pieces) {
    EXPECT_LE(static_cast<int64_t>(piece.size()), t.max_source_tokens());
    all.insert(all.end(), piece.begin(), piece.end());
  }
  const auto whole = vocabs_->src->encode(longest);
  EXPECT_EQ(all, std::vector<int64_t>(whole.begin(), whole.end()));  // cut at word boundaries: the same tokens
  for (size_t k = 1; k + 1 < plan.gaps.size(); ++k) EXPECT_EQ(plan.gaps[k], " ");
  // The line is its pieces' best translations joined by the source's spaces.
  ASSERT_EQ(out[0].hypotheses.size(), plan.pieces.size());
  std::string joined;
  for (size_t k = 0; k < plan.pieces.size(); ++k) {
    const std::string piece = vocabs_->tgt->decode(out[0].hypotheses[k][0].tokens);
    joined += (k && !joined.empty() && !piece.empty() ? " " : "") + piece;
  }
  EXPECT_EQ(out[0].texts[0], joined);
  EXPECT_EQ(out[1].plan.long_sentences, 0);
  EXPECT_EQ(out[1].plan.pieces.size(), 1u);
}

// A line without breaks must not take the translator's memory: it is read to
// its first max_line_bytes (a whole UTF-8 character last), the rest passed,
// and the line's number reported.
TEST(IstreamLines, LongLinesAreCutOnACharacterAndTheRestSkipped) {
  std::istringstream in(std::string(100, 'x') + "\r\n" + std::string(30, 'y') + "\n" +
                        "\xE6\x97\xA5\xE6\x97\xA5\xE6\x97\xA5\n" + "\xC3\xA4\xC3\xA4\n" + "last");
  std::vector<int64_t> cut;
  const LineSource source = istream_lines(in, 7, &cut);
  std::vector<std::string> lines;
  for (std::string line; source(line);) lines.push_back(line);
  // 7 bytes: "xxxxxxx"; 7 of 30 y; two of three 3-byte characters (6 bytes);
  // "ää" is 4 bytes, whole; the last line without a line end.
  EXPECT_EQ(lines, (std::vector<std::string>{"xxxxxxx", "yyyyyyy", "\xE6\x97\xA5\xE6\x97\xA5", "\xC3\xA4\xC3\xA4",
                                             "last"}));
  EXPECT_EQ(cut, (std::vector<int64_t>{1, 2, 3}));
}

TEST_F(TranslatorText, StreamInChunksMatchesOneCallAndCountsLines) {
  auto t = make(1, 3);
  std::string text;
  for (const auto& l : kLines) text += l + "\r\n";  // CRLF input
  text = "\xEF\xBB\xBF" + text + "Ein \xFF.\n";      // BOM, then an invalid line
  std::istringstream in(text);
  std::vector<std::pair<int64_t, std::string>> seen;
  const auto report = translate_stream(t, istream_lines(in), 4, [&](int64_t i, const LineTranslation& r) {
    seen.emplace_back(i, r.texts.empty() ? "" : r.texts[0]);
  });
  EXPECT_EQ(report.lines, static_cast<int64_t>(kLines.size()) + 1);
  EXPECT_EQ(report.invalid_lines, std::vector<int64_t>({static_cast<int64_t>(kLines.size()) + 1}));
  const auto whole = t.translate(kLines);
  ASSERT_EQ(seen.size(), kLines.size() + 1);
  for (size_t i = 0; i < kLines.size(); ++i) {
    EXPECT_EQ(seen[i].first, static_cast<int64_t>(i));
    EXPECT_EQ(seen[i].second, whole[i].texts.empty() ? "" : whole[i].texts[0]) << "line " << i;
  }
}

TEST_F(TranslatorText, CrossAttentionRowsAreDistributions) {
  auto t = make(1, 1);
  const auto out = t.translate({"Ein Mann sieht dem Hund."});
  const auto& r = out[0];
  const auto& source = r.plan.pieces.at(0);
  const auto& best = r.hypotheses.at(0).at(0);
  const auto w = t.cross_attention(source, best.tokens, -1);
  ASSERT_EQ(w.dim(), 2);
  EXPECT_EQ(w.size(0), static_cast<int64_t>(best.tokens.size()) + 1);
  EXPECT_EQ(w.size(1), static_cast<int64_t>(source.size()) + 2);
  EXPECT_TRUE(torch::allclose(w.sum(1), torch::ones({w.size(0)}), 1e-4, 1e-5));
  EXPECT_THROW(t.cross_attention(source, best.tokens, 2), UsageError);
}

// Words are runs of tokens from a "▁" piece to the next; each aligns to the
// source token its rows give the most attention in sum.
TEST_F(TranslatorText, WordsAlignToTheSourceTokenWithTheMostAttention) {
  const auto& tgt = *vocabs_->tgt;
  const auto ids = tgt.encode("Ein Mannschaft sieht");
  std::vector<int64_t> target(ids.begin(), ids.end());
  std::vector<size_t> word_of;  // expected word per token
  for (size_t t = 0; t < target.size(); ++t) {
    const bool starts = tgt.id_to_piece(static_cast<int32_t>(target[t])).rfind("\xE2\x96\x81", 0) == 0;
    word_of.push_back(word_of.empty() ? 0 : word_of.back() + (starts ? 1 : 0));
  }
  ASSERT_EQ(word_of.back(), 2u) << "three words";
  const size_t source = 4;
  // Word w's tokens look at source token (2 - w): the order reversed.
  auto attention = torch::full({static_cast<int64_t>(target.size()) + 1, static_cast<int64_t>(source) + 2}, 0.01f);
  for (size_t t = 0; t < target.size(); ++t) attention[static_cast<int64_t>(t)][static_cast<int64_t>(3 - word_of[t])] = 0.9f;
  attention[0][0] = 5.0f;  // sos is never a word's source
  const auto words = align_words(attention, target, source, tgt);
  ASSERT_EQ(words.size(), 3u);
  for (size_t w = 0; w < 3; ++w) {
    EXPECT_EQ(words[w].source, 2 - w) << "word " << w;
    for (size_t t = words[w].begin; t < words[w].end; ++t) EXPECT_EQ(word_of[t], w);
  }
  EXPECT_EQ(words.back().end, target.size());
  EXPECT_TRUE(align_words(attention, {}, source, tgt).empty());
  EXPECT_THROW(align_words(attention, target, source + 1, tgt), std::invalid_argument);
}

TEST(AttentionSvg, EscapesLabelsAndDrawsEveryCell) {
  AttentionPicture p;
  p.source_labels = {"<s>", "▁A&B", "</s>"};
  p.target_labels = {"▁x", "\"y\""};
  p.weights = {{0.1f, 0.8f, 0.1f}, {0.0f, 0.0f, 1.0f}};
  p.title = "t";
  const std::string svg = attention_svg(p);
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("&lt;s&gt;"), std::string::npos);
  EXPECT_NE(svg.find("▁A&amp;B"), std::string::npos);
  EXPECT_NE(svg.find("&quot;y&quot;"), std::string::npos);
  EXPECT_EQ(svg.find("<s>"), std::string::npos);
  size_t cells = 0;
  for (size_t at = svg.find("<title>"); at != std::string::npos; at = svg.find("<title>", at + 1)) ++cells;
  EXPECT_EQ(cells, 6u);
  EXPECT_NE(svg.find("rgb(8,48,107)"), std::string::npos);  // weight 1 is the darkest colour
  p.outlined = {{0, 1}, {1, 2}};
  const std::string framed = attention_svg(p);
  size_t frames = 0;
  for (size_t at = framed.find("#e6550d"); at != std::string::npos; at = framed.find("#e6550d", at + 1)) ++frames;
  EXPECT_EQ(frames, 2u);
  p.outlined = {{2, 0}};
  EXPECT_THROW(attention_svg(p), std::invalid_argument);
  p.outlined.clear();
  p.weights.pop_back();
  EXPECT_THROW(attention_svg(p), std::invalid_argument);
}

// A language tag (TranslatorOptions::source_tag) goes after sos: the search
// sees exactly the source a translator without the tag sees with the tag's
// id put first, and attention and coverage read as for the source alone
// (the tag's column added to sos's).
TEST_F(TranslatorText, ALanguageTagGoesAfterSosAndLeavesAttentionAsWithoutIt) {
  auto model = test::tiny_model(5, 24, vocabs_->src->size());
  TranslatorOptions plain;
  plain.search.beam = 2;
  plain.coverage.check = true;  // coverage tracked per source position
  // The output limit counts source tokens, and the tag is none of them:
  // a fixed limit, so that the two searches compare.
  plain.search.max_len_a = 0;
  plain.search.max_len_b = 20;
  TranslatorOptions tagged = plain;
  const int32_t tag_id = 7;
  tagged.source_tag = vocabs_->src->id_to_piece(tag_id);
  Translator with_tag(model, *vocabs_, tagged), without(model, *vocabs_, plain);
  EXPECT_EQ(with_tag.max_source_tokens(), without.max_source_tokens() - 1);
  std::vector<std::vector<int64_t>> sources, tag_first;
  for (const auto& line : {"Ein Mann sieht dem Hund.", "Ein Kind fährt.", "Ein Haus."}) {
    std::vector<int64_t> ids;
    for (int id : vocabs_->src->encode(line)) ids.push_back(id);
    sources.push_back(ids);
    ids.insert(ids.begin(), tag_id);
    tag_first.push_back(ids);
  }
  const auto a = with_tag.translate_ids(sources);
  const auto b = without.translate_ids(tag_first);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].size(), b[i].size());
    for (size_t k = 0; k < a[i].size(); ++k) {
      EXPECT_EQ(a[i][k].tokens, b[i][k].tokens) << i;
      EXPECT_FLOAT_EQ(static_cast<float>(a[i][k].log_prob), static_cast<float>(b[i][k].log_prob)) << i;
      auto folded = b[i][k].coverage;
      ASSERT_GE(folded.size(), 3u);
      folded[0] += folded[1];
      folded.erase(folded.begin() + 1);
      ASSERT_EQ(a[i][k].coverage.size(), folded.size()) << i;
      for (size_t p = 0; p < folded.size(); ++p) EXPECT_FLOAT_EQ(a[i][k].coverage[p], folded[p]) << i << " " << p;
    }
  }
  const auto& target = a[0][0].tokens;
  const auto w = with_tag.cross_attention(sources[0], target, -1);
  const auto v = without.cross_attention(tag_first[0], target, -1);
  ASSERT_EQ(w.size(1), static_cast<int64_t>(sources[0].size()) + 2);  // sos, the ids, eos: no tag column
  EXPECT_TRUE(torch::allclose(w.select(1, 0), v.select(1, 0) + v.select(1, 1)));
  EXPECT_TRUE(torch::equal(w.narrow(1, 1, w.size(1) - 1), v.narrow(1, 2, v.size(1) - 2)));
  TranslatorOptions unknown = plain;
  unknown.source_tag = "<2xx>";
  EXPECT_TRUE(test::throws_with<DataError>([&] { Translator(model, *vocabs_, unknown); },
                                           {"<2xx>", "is not a piece of the source vocabulary"}));
}

}  // namespace
}  // namespace nmt::decode
