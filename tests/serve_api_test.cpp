// The server's request and answer shapes without HTTP: LibreTranslate's and
// OpenNMT-py's JSON, request limits, texts split into lines and put back,
// and the language pair a model directory declares.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "data/language_pair.h"
#include "serve/http_error.h"
#include "tests/http_error_test_util.h"
#include "serve/libretranslate_api.h"
#include "serve/opennmt_api.h"
#include "serve/text_translation.h"
#include "util/language_code.h"

namespace nmt::serve {
namespace {

using nlohmann::json;

const data::LanguagePair kPair{"de", "en"};


TEST(LanguagePair, CodesComeFromTheConfigElseFromTheTrainingFileNames) {
  EXPECT_TRUE(is_language_code("de"));
  EXPECT_TRUE(is_language_code("pt-BR"));
  EXPECT_TRUE(is_language_code("zh_Hant"));
  EXPECT_TRUE(is_language_code("fil"));
  for (const char* bad : {"", "d", "DE", "deutsch", "de-", "de-B", "de-Hant12", "d1"}) {
    EXPECT_FALSE(is_language_code(bad)) << bad;
  }
  EXPECT_EQ(data::language_code_of_path("/data/multi30k/train.de.gz"), "de");
  EXPECT_EQ(data::language_code_of_path("corpus.pt-BR"), "pt-BR");
  EXPECT_EQ(data::language_code_of_path("train.txt"), "");
  EXPECT_EQ(data::language_code_of_path("train"), "");
  DataConfig d;
  d.train_src = "x/train.de.gz";
  d.train_tgt = "x/train.en.gz";
  EXPECT_EQ(data::language_pair(d).source, "de");
  EXPECT_EQ(data::language_pair(d).target, "en");
  d.src_lang = "gsw";  // the config wins over the file name
  EXPECT_EQ(data::language_pair(d).source, "gsw");
  d.train_tgt = "x/target.txt";
  EXPECT_FALSE(data::language_pair(d).known());
  EXPECT_EQ(language_name("de"), "German");
  EXPECT_EQ(language_name("pt-BR"), "Portuguese");
  EXPECT_EQ(language_name("gsw"), "gsw");
}

TEST(LibreTranslateApi, StringAndArrayQKeepTheirShape) {
  const auto one = parse_libretranslate(json{{"q", "Ein Hund."}, {"source", "de"}, {"target", "en"}});
  EXPECT_FALSE(one.array);
  ASSERT_EQ(one.texts.size(), 1u);
  const std::vector<TextTranslation> dog = {{{"A dog.", "One dog."}, {-1.0, -2.0}, {}}};
  EXPECT_EQ(libretranslate_response(one, dog), (json{{"translatedText", "A dog."}}));

  auto many = parse_libretranslate(
      json{{"q", {"Ein Hund.", "Eine Katze."}}, {"source", "de"}, {"target", "en"}, {"alternatives", 1}});
  EXPECT_TRUE(many.array);
  EXPECT_EQ(many.alternatives, 1);
  const std::vector<TextTranslation> two = {{{"A dog.", "One dog."}, {-1, -2}, {}}, {{"A cat."}, {-1}, {}}};
  EXPECT_EQ(libretranslate_response(many, two),
            (json{{"translatedText", {"A dog.", "A cat."}},
                  {"alternatives", json::array({json::array({"One dog."}), json::array()})}}));
  // Form fields arrive as strings.
  const auto form = parse_libretranslate(
      json{{"q", "Ein Hund."}, {"source", "de"}, {"target", "en"}, {"alternatives", "2"}, {"api_key", "k"}});
  EXPECT_EQ(form.alternatives, 2);
  EXPECT_EQ(form.api_key, "k");
}

TEST(LibreTranslateApi, BadRequestsAreRefusedWith400) {
  const json good = {{"q", "Ein Hund."}, {"source", "de"}, {"target", "en"}};
  auto with = [&](const char* key, const json& value) {
    json j = good;
    j[key] = value;
    return j;
  };
  auto without = [&](const char* key) {
    json j = good;
    j.erase(key);
    return j;
  };
  for (const json& body :
       {json::array(), json("text"), without("q"), without("source"), without("target"), with("q", 5),
        with("q", json{"a", 5}), with("source", 7), with("alternatives", -1), with("alternatives", "many")}) {
    EXPECT_EQ(test::refusal_status([&] { parse_libretranslate(body); }), 400) << body.dump();
  }
  EXPECT_EQ(test::refusal_status([&] { parse_libretranslate(with("format", "text")); }), 0);
  EXPECT_EQ(test::refusal_status([&] { parse_libretranslate(with("format", "html")); }), 0);
  // The format is checked by the service, after the languages, as LibreTranslate does.
  EXPECT_EQ(test::refusal_status([&] { parse_libretranslate(with("format", "xml")); }), 0);
}

TEST(LibreTranslateApi, LanguagesListBothCodesWithNames) {
  const json languages = libretranslate_languages(RouteTable({kPair}));
  ASSERT_EQ(languages.size(), 2u);
  EXPECT_EQ(languages[0], (json{{"code", "de"}, {"name", "German"}, {"targets", json::array({"en"})}}));
  EXPECT_EQ(languages[1], (json{{"code", "en"}, {"name", "English"}, {"targets", json::array()}}));
}

TEST(LibreTranslateApi, DetectedLanguageFollowsQsShape) {
  const std::vector<TextTranslation> dog = {{{"A dog."}, {-1.0}, {}}};
  const auto one = parse_libretranslate(json{{"q", "Ein Hund."}, {"source", "auto"}, {"target", "en"}});
  EXPECT_EQ(libretranslate_response(one, dog, {{"de", 97.0}}),
            (json{{"translatedText", "A dog."}, {"detectedLanguage", {{"confidence", 97.0}, {"language", "de"}}}}));
  const auto many = parse_libretranslate(json{{"q", {"Ein Hund."}}, {"source", "auto"}, {"target", "en"}});
  EXPECT_EQ(libretranslate_response(many, dog, {{"de", 97.0}}).at("detectedLanguage"),
            json::array({{{"confidence", 97.0}, {"language", "de"}}}));
  // api_key null (libretranslate-ts without a key) is no key.
  EXPECT_EQ(parse_libretranslate(json{{"q", "x"}, {"source", "de"}, {"target", "en"}, {"api_key", nullptr}}).api_key, "");
}

TEST(LibreTranslateApi, FrontendSettingsHaveLibreTranslatesFields) {
  FrontendSettings s;
  s.char_limit = 5000;
  s.api_keys = true;
  s.source = "auto";
  s.target = "de";
  const json j = libretranslate_frontend_settings(s);
  EXPECT_EQ(j.at("charLimit"), 5000);
  EXPECT_EQ(j.at("apiKeys"), true);
  EXPECT_EQ(j.at("keyRequired"), false);
  EXPECT_EQ(j.at("suggestions"), false);
  EXPECT_EQ(j.at("filesTranslation"), true);
  // LibreTranslate's in its order (but .pdf), then ours.
  EXPECT_EQ(j.at("supportedFilesFormat"),
            (json{".txt", ".odt", ".odp", ".docx", ".pptx", ".epub", ".html", ".srt", ".md", ".htm"}));
  EXPECT_EQ(j.at("language").at("source"), (json{{"code", "auto"}, {"name", "Auto Detect"}}));
  EXPECT_EQ(j.at("language").at("target"), (json{{"code", "de"}, {"name", "German"}}));
  EXPECT_TRUE(j.at("frontendTimeout").is_number());
}

TEST(OpenNmtApi, NBestListsOfInputsInOrder) {
  const auto request = parse_opennmt(json::parse(R"([{"src": "Ein Hund.", "id": 101}, {"src": "Eine Katze."}])"));
  const auto& texts = request.texts;
  ASSERT_EQ(texts, (std::vector<std::string>{"Ein Hund.", "Eine Katze."}));
  EXPECT_EQ(request.id, 101);
  EXPECT_EQ(parse_opennmt(json::parse(R"([{"src": "x"}])")).id, 100);  // no id: the first model
  const std::vector<TextTranslation> t = {{{"A dog.", "One dog."}, {-0.5, -0.9}, {}}, {{""}, {0.0}, {}}};
  const json out = opennmt_response(texts, t, 2);
  ASSERT_EQ(out.size(), 2u);     // one list per rank
  ASSERT_EQ(out[0].size(), 2u);  // one entry per input
  EXPECT_EQ(out[0][0], (json{{"src", "Ein Hund."}, {"tgt", "A dog."}, {"n_best", 2}, {"pred_score", -0.5}, {"complete", true}}));
  EXPECT_EQ(out[1][0].at("tgt"), "One dog.");
  EXPECT_EQ(out[1][1].at("tgt"), "");  // an empty line has one (empty) hypothesis
  for (const char* bad :
       {R"({"src": "x"})", R"([{"text": "x"}])", R"([{"src": 3}])", R"(["x"])", R"([{"src": "x", "id": "one"}])",
        R"([{"src": "x", "id": 0}, {"src": "y", "id": 1}])"}) {
    EXPECT_EQ(test::refusal_status([&] { parse_opennmt(json::parse(bad)); }), 400) << bad;
  }
}

TEST(RequestLimits, CharactersLinesAndUtf8) {
  RequestLimits limits;
  limits.max_chars = 4;
  limits.max_sentences = 2;
  EXPECT_EQ(test::refusal_status([&] { limits.check({"äöüß"}); }), 0);  // 4 characters in 8 bytes
  EXPECT_EQ(test::refusal_status([&] { limits.check({"äöüßa"}); }), 400);
  EXPECT_EQ(test::refusal_status([&] { limits.check({"a\nb"}); }), 0);
  EXPECT_EQ(test::refusal_status([&] { limits.check({"a\nb", "c"}); }), 400);
  EXPECT_EQ(test::refusal_status([&] { limits.check({"a\nb", "c"}, /*count_lines=*/false); }), 0);  // HTML: lines are markup's
  EXPECT_EQ(test::refusal_status([&] { limits.check({std::string("\xff", 1)}); }), 400);
}

TEST(TextTranslation, LinesSplitAtNewlinesWithoutCarriageReturns) {
  EXPECT_EQ(split_lines("a\r\nb\n\nc"), (std::vector<std::string>{"a", "b", "", "c"}));
  EXPECT_EQ(split_lines(""), (std::vector<std::string>{""}));
  EXPECT_EQ(split_lines("a\n"), (std::vector<std::string>{"a", ""}));
}

TEST(TextTranslation, ServingOptionsSplitSentencesAndTakeNoTabPrefix) {
  decode::TranslatorOptions o;
  o.target_prefix = true;  // the command line's --target-prefix
  o.search.beam = 3;
  const auto served = serving_options(o, "de", "en");
  EXPECT_TRUE(served.split_sentences);
  EXPECT_FALSE(served.target_prefix) << "a tab in a request's text is text";
  EXPECT_EQ(served.source_language, "de");
  EXPECT_EQ(served.search.beam, 3);
}

}  // namespace
}  // namespace nmt::serve
