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
#include "tests/test_support.h"
#include "util/config.h"
#include "util/error.h"
#include "vocab/vocabularies.h"

namespace nmt::decode {
namespace {

class TranslatorText : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test::TempDir();
    const Config c = test::toy_corpus_config(*dir_, 300);
    vocabs_ = new vocab::Vocabularies(vocab::prepare_vocabularies(c, dir_->path("out")));
  }
  static void TearDownTestSuite() {
    delete vocabs_;
    delete dir_;
  }

  Translator make(int64_t beam, int64_t batch, int64_t max_len = 24) {
    auto model = test::tiny_model(5, max_len, vocabs_->src->size());
    TranslatorOptions o;
    o.search.beam = beam;
    o.search.nbest = beam;
    o.batch_size = batch;
    return Translator(model, *vocabs_, o);
  }

  static test::TempDir* dir_;
  static vocab::Vocabularies* vocabs_;
};

test::TempDir* TranslatorText::dir_ = nullptr;
vocab::Vocabularies* TranslatorText::vocabs_ = nullptr;

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
    ASSERT_EQ(out[i].hypotheses.size(), 2u) << "line " << i;
    EXPECT_EQ(out[i].texts[0], vocabs_->tgt->decode(out[i].hypotheses[0].tokens));
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
  EXPECT_TRUE(out[2].invalid_utf8);
  EXPECT_TRUE(out[2].hypotheses.empty());
  const auto clean = t.translate(kLines);
  for (size_t i : {0u, 4u, 5u}) {
    EXPECT_FALSE(out[i].invalid_utf8);
    EXPECT_EQ(out[i].texts, clean[i].texts) << "line " << i;
  }
}

TEST_F(TranslatorText, OverlongLineIsTruncatedToTheModel) {
  auto t = make(2, 4, 12);
  std::string longest;
  for (int i = 0; i < 40; ++i) longest += "Ein Mann sieht dem Hund und ";
  const auto out = t.translate({longest, "Ein Haus."});
  EXPECT_TRUE(out[0].truncated);
  EXPECT_EQ(static_cast<int64_t>(out[0].source.size()), t.max_source_tokens());
  EXPECT_FALSE(out[0].hypotheses.empty());
  EXPECT_FALSE(out[1].truncated);
  for (const auto& h : out[0].hypotheses) EXPECT_LE(static_cast<int64_t>(h.tokens.size()) + 1, 12);
}

// A line without breaks must not take the translator's memory: it is read to
// its first max_line_bytes (a whole UTF-8 character last) and the rest passed.
TEST(IstreamLines, LongLinesAreCutOnACharacterAndTheRestSkipped) {
  std::istringstream in(std::string(100, 'x') + "\r\n" + std::string(30, 'y') + "\n" +
                        "\xE6\x97\xA5\xE6\x97\xA5\xE6\x97\xA5\n" + "\xC3\xA4\xC3\xA4\n" + "last");
  const LineSource source = istream_lines(in, 7);
  std::vector<std::string> lines;
  for (std::string line; source(line);) lines.push_back(line);
  // 7 bytes: "xxxxxxx"; 7 of 30 y; two of three 3-byte characters (6 bytes);
  // "ää" is 4 bytes, whole; the last line without a line end.
  EXPECT_EQ(lines, (std::vector<std::string>{"xxxxxxx", "yyyyyyy", "\xE6\x97\xA5\xE6\x97\xA5", "\xC3\xA4\xC3\xA4",
                                             "last"}));
}

TEST_F(TranslatorText, StreamInChunksMatchesOneCallAndCountsLines) {
  auto t = make(1, 3);
  std::string text;
  for (const auto& l : kLines) text += l + "\r\n";  // CRLF input
  text = "\xEF\xBB\xBF" + text + "Ein \xFF.\n";      // BOM, then an invalid line
  std::istringstream in(text);
  std::vector<std::pair<int64_t, std::string>> seen;
  const auto report = translate_stream(t, istream_lines(in), 4, [&](int64_t i, const SentenceTranslation& r) {
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
  const auto w = t.cross_attention(r.source, r.hypotheses[0].tokens, -1);
  ASSERT_EQ(w.dim(), 2);
  EXPECT_EQ(w.size(0), static_cast<int64_t>(r.hypotheses[0].tokens.size()) + 1);
  EXPECT_EQ(w.size(1), static_cast<int64_t>(r.source.size()) + 2);
  EXPECT_TRUE(torch::allclose(w.sum(1), torch::ones({w.size(0)}), 1e-4, 1e-5));
  EXPECT_THROW(t.cross_attention(r.source, r.hypotheses[0].tokens, 2), UsageError);
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
  p.weights.pop_back();
  EXPECT_THROW(attention_svg(p), std::invalid_argument);
}

}  // namespace
}  // namespace nmt::decode
