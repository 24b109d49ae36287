// Unknown target tokens replaced by the source piece the model attends to
// (CTranslate2's replace_unknowns, which argos-translate asks for), and a
// target tag that starts every translation unwritten (an Argos package's
// target_prefix): on models built with CTranslate2's specs whose decoder
// writes the unknown token most of the time (tests/fixtures/ctranslate2/
// unknowns), what CTranslate2 4.8.1 itself wrote, at its default alignment
// (the last layer's first head) and another (the first layer's heads
// averaged), read from model.bin; and how copies are written into text.
#include <regex>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "decode/html_translation.h"
#include "interop/ct2_export.h"
#include "interop/ct2_model_file.h"
#include "interop/imported_model.h"
#include "interop/model_loader.h"
#include "util/error.h"
#include "tests/ct2_expected_util.h"
#include "tests/sample_model_util.h"
#include "tests/serve_test_util.h"
#include "tests/test_support.h"
#include "vocab/copied_pieces.h"
#include "vocab/token_list_vocab.h"

namespace nmt {
namespace {

std::string unknowns_dir() { return test::fixtures_dir() + "/ctranslate2/unknowns"; }

std::string joined(const nlohmann::json& tokens, size_t from = 0) {
  std::string text;
  for (size_t i = from; i < tokens.size(); ++i) text += (text.empty() ? "" : " ") + tokens[i].get<std::string>();
  return text;
}

TEST(UnknownCopies, CopiesAndTargetPrefixAsCTranslate2WritesThemAtEachAlignment) {
  const auto expected = nlohmann::json::parse(test::read_text(unknowns_dir() + "/expected.json"));
  std::vector<std::string> lines;
  for (const auto& s : expected.at("sources")) lines.push_back(joined(s));
  const std::map<std::string, std::pair<int64_t, int64_t>> alignments = {{"last_layer_first_head", {-1, 1}},
                                                                         {"first_layer_all_heads", {0, 0}}};
  size_t copies = 0;
  for (const auto& [name, alignment] : alignments) {
    SCOPED_TRACE(name);
    const auto loaded = interop::load_model(unknowns_dir() + "/" + name, "", torch::kCPU);
    ASSERT_TRUE(loaded.decoding && loaded.decoding->alignment_layer);
    EXPECT_EQ(*loaded.decoding->alignment_layer, alignment.first);
    EXPECT_EQ(loaded.decoding->alignment_heads, alignment.second);
    const auto& want = expected.at("variants").at(name);
    for (const char* run : {"beam1", "beam2", "beam2_prefix"}) {
      SCOPED_TRACE(run);
      const bool prefixed = std::string(run) == "beam2_prefix";
      auto options = test::ct2_fixture_search(prefixed || std::string(run) == "beam2" ? 2 : 1);
      options.replace_unknowns = true;
      options.alignment_layer = loaded.decoding->alignment_layer;
      options.alignment_heads = loaded.decoding->alignment_heads;
      if (prefixed) options.target_tag = "w5";
      decode::Translator translator(loaded.model, loaded.vocabs, options);
      const auto found = translator.translate(lines);
      for (size_t i = 0; i < lines.size(); ++i) {
        const auto& row = want.at(run).at(i);
        ASSERT_LT(row.at("tokens").size(), test::kCt2FixtureLimit) << "a fixture that ends before the limit";
        // CTranslate2 writes the prefix; the tag is not written.
        EXPECT_EQ(found[i].texts.at(0), joined(row.at("tokens"), prefixed ? 1 : 0)) << "line " << i;
        EXPECT_NEAR(found[i].scores.at(0), row.at("score").get<double>(), 1e-4) << "line " << i;
        for (const auto& h : found[i].hypotheses.at(0)) copies += h.unknown_copies.size();
      }
    }
  }
  EXPECT_GE(copies, 20u) << "the fixtures must exercise the copies";
}

// The command line's --replace-unknowns (off by default for a CTranslate2
// directory, as CTranslate2 has it), and the alignment kept through
// --import and --export ct2.
TEST(UnknownCopies, TheCommandLineFlagAndTheAlignmentThroughImportAndExport) {
  const std::string model = unknowns_dir() + "/first_layer_all_heads";
  const auto expected = nlohmann::json::parse(test::read_text(unknowns_dir() + "/expected.json"));
  const std::string line = joined(expected.at("sources").at(0));
  const std::string want = joined(expected.at("variants").at("first_layer_all_heads").at("beam2").at(0).at("tokens"));
  EXPECT_EQ(test::cli_translations(model, {line}, "--no-coverage-check --replace-unknowns"),
            std::vector<std::string>{want});
  const auto plain = test::cli_translations(model, {line}, "--no-coverage-check");
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_NE(plain[0], want);
  EXPECT_NE(plain[0].find("<unk>"), std::string::npos) << plain[0];

  test::TempDir dir;
  interop::write_native_model_dir(interop::import_model(model), dir.path("native"));
  const auto native = interop::load_model(dir.path("native"), "", torch::kCPU);
  ASSERT_TRUE(native.decoding && native.decoding->alignment_layer);
  EXPECT_EQ(*native.decoding->alignment_layer, 0);
  EXPECT_EQ(native.decoding->alignment_heads, 0);
  EXPECT_TRUE(native.decoding->ctranslate2_prefix);
  EXPECT_EQ(test::cli_translations(dir.path("native"), {line}, "--no-coverage-check --replace-unknowns"),
            std::vector<std::string>{want});
  interop::export_ct2(native, dir.path("ct2"));
  const auto file = interop::read_ct2_model_file(dir.path("ct2/model.bin"));
  EXPECT_EQ(file.scalar("decoder/alignment_layer", -9), 0);
  EXPECT_EQ(file.scalar("decoder/alignment_heads", -9), 0);
}

// Through HTML (words placed by alignment, as documents are too): the copies
// are the words carried, never the unknown token.
TEST(UnknownCopies, HtmlCarriesTheCopiesIntoItsMarkup) {
  const auto loaded = interop::load_model(unknowns_dir() + "/first_layer_all_heads", "", torch::kCPU);
  const auto expected = nlohmann::json::parse(test::read_text(unknowns_dir() + "/expected.json"));
  auto options = test::ct2_fixture_search(2);
  options.replace_unknowns = true;
  options.alignment_layer = loaded.decoding->alignment_layer;
  options.alignment_heads = loaded.decoding->alignment_heads;
  decode::Translator translator(loaded.model, loaded.vocabs, options);
  decode::HtmlTranslator html(translator);
  const auto out = html.translate({"<p><b>w1</b> xq w3</p>"}).at(0).html;
  const std::string text = std::regex_replace(out, std::regex("<[^>]*>"), "");
  EXPECT_EQ(text, joined(expected.at("variants").at("first_layer_all_heads").at("beam2").at(0).at("tokens"))) << out;
  EXPECT_EQ(out.find("unk"), std::string::npos) << out;
}

TEST(UnknownCopies, AScoredTargetAfterTheTagScoresAsTheTaggedTargetLessItsFirstToken) {
  const auto loaded = interop::load_model(unknowns_dir() + "/last_layer_first_head", "", torch::kCPU);
  const auto& v = *loaded.vocabs.tgt;
  const std::vector<std::vector<int64_t>> sources = {{v.piece_id("w1"), v.piece_id("w2")}, {v.piece_id("w9")}};
  const std::vector<std::vector<int64_t>> targets = {{v.piece_id("w3")}, {v.piece_id("w4"), v.piece_id("w6")}};
  decode::TranslatorOptions tagged;
  tagged.target_tag = "w5";
  const auto with_tag = decode::Translator(loaded.model, loaded.vocabs, tagged).score_targets(sources, targets);
  std::vector<std::vector<int64_t>> spelled = targets;
  for (auto& t : spelled) t.insert(t.begin(), v.piece_id("w5"));
  const auto plain = decode::Translator(loaded.model, loaded.vocabs, {}).score_targets(sources, spelled);
  for (size_t i = 0; i < targets.size(); ++i) {
    EXPECT_EQ(with_tag[i], std::vector<float>(plain[i].begin() + 1, plain[i].end())) << i;
  }
  decode::TranslatorOptions unknown;
  unknown.target_tag = "w99";
  EXPECT_TRUE(test::throws_with<DataError>([&] { decode::Translator(loaded.model, loaded.vocabs, unknown); },
                                           {"\"w99\"", "not a piece of the target vocabulary"}));
}

using SampleUnknownCopies = test::SampleModelTest;

TEST_F(SampleUnknownCopies, CopiesAreWrittenAsTheTargetsTokensAreJoined) {
  // Tokens separated by spaces: the copy is one more token.
  const vocab::TokenListVocab list(std::vector<std::string>{"<blank>", "<s>", "</s>", "<unk>", "a", "b"}, "list");
  EXPECT_EQ(vocab::decode_with_copies(list, {4, 3, 5, 3}, {"xq", "yq"}), "a xq b yq");
  EXPECT_EQ(vocab::decode_with_copies(list, {3, 4}, {}), list.decode(std::vector<int64_t>{3, 4}));
  // SentencePiece: "▁" starts a word, a copy without it joins the word before.
  const auto spm = vocab::load_vocab(test::sample_model_dir() + "/vocab/spm.model");
  const auto ids = [&](const std::string& text) {
    const auto got = spm->encode(text);
    return std::vector<int64_t>(got.begin(), got.end());
  };
  auto tokens = ids("the house");
  tokens.insert(tokens.begin() + static_cast<std::ptrdiff_t>(ids("the").size()), spm->unk_id());
  EXPECT_EQ(vocab::decode_with_copies(*spm, tokens, {"\xE2\x96\x81Zq"}), "the Zq house");
  EXPECT_EQ(vocab::decode_with_copies(*spm, tokens, {"zq"}), "thezq house");
  tokens = ids("house");
  tokens.insert(tokens.begin(), spm->unk_id());
  EXPECT_EQ(vocab::decode_with_copies(*spm, tokens, {"\xE2\x96\x81Zq"}), "Zq house");
  tokens.push_back(spm->unk_id());
  EXPECT_EQ(vocab::decode_with_copies(*spm, tokens, {"\xE2\x96\x81Zq", "\xE2\x96\x81."}), "Zq house .");
}

}  // namespace
}  // namespace nmt
