// What several models in one server can translate (routes through a pivot
// language, English first), language identification limited to the
// server's sources, API keys with per-minute limits, and the folder of
// translated files: without HTTP or models.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "serve/access_control.h"
#include "serve/file_store.h"
#include "serve/http_error.h"
#include "tests/http_error_test_util.h"
#include "serve/route_table.h"
#include "tests/data_test_util.h"
#include "text/language_detector.h"
#include "util/error.h"

namespace nmt::serve {
namespace {

namespace fs = std::filesystem;


TEST(RouteTable, DirectPairsFirstThenTwoModelsThroughEnglishFirst) {
  // 0 de->en, 1 en->de, 2 en->fr, 3 fr->en, 4 fr->es, 5 es->de
  const RouteTable t({{"de", "en"}, {"en", "de"}, {"en", "fr"}, {"fr", "en"}, {"fr", "es"}, {"es", "de"}});
  EXPECT_EQ(t.find("de", "en")->models, (std::vector<size_t>{0}));
  EXPECT_EQ(t.find("de", "en")->pivot, "");
  const auto de_fr = t.find("de", "fr");
  ASSERT_TRUE(de_fr);
  EXPECT_EQ(de_fr->models, (std::vector<size_t>{0, 2}));
  EXPECT_EQ(de_fr->pivot, "en");
  // fr->de: through en (fr->en, en->de) and through es (fr->es, es->de); English wins.
  EXPECT_EQ(t.find("fr", "de")->models, (std::vector<size_t>{3, 1}));
  EXPECT_EQ(t.find("es", "en")->models, (std::vector<size_t>{5, 0}));  // only through de
  EXPECT_EQ(t.find("es", "en")->pivot, "de");
  EXPECT_EQ(t.find("en", "es")->models, (std::vector<size_t>{2, 4}));  // through fr, the one shared language
  EXPECT_FALSE(t.find("de", "es"));  // would need three models: de->en->fr->es
  EXPECT_FALSE(t.find("de", "de"));
  EXPECT_FALSE(t.find("xx", "en"));
  EXPECT_EQ(t.sources(), (std::vector<std::string>{"de", "en", "es", "fr"}));
  EXPECT_EQ(t.targets("de"), (std::vector<std::string>{"en", "fr"}));
  EXPECT_EQ(t.targets("en"), (std::vector<std::string>{"de", "es", "fr"}));
  EXPECT_EQ(t.targets("es"), (std::vector<std::string>{"de", "en"}));
  EXPECT_NE(t.describe().find("de->fr (through en)"), std::string::npos) << t.describe();
}

TEST(LanguageDetector, FindsOnlyTheAllowedLanguagesWithConfidence) {
  const std::vector<std::string> allowed = {"de", "en", "fr"};
  const auto en = text::detect_languages("The man sees the dog and the woman walks to the house.", allowed);
  ASSERT_FALSE(en.empty());
  EXPECT_EQ(en[0].language, "en");
  EXPECT_GT(en[0].confidence, 80.0);
  EXPECT_LE(en[0].confidence, 100.0);
  EXPECT_EQ(text::detect_languages("Der Mann sieht den Hund und die Frau geht zum Haus.", allowed).at(0).language, "de");
  EXPECT_EQ(text::detect_languages("L'homme voit le chien et la femme marche vers la maison.", allowed).at(0).language,
            "fr");
  // Another language than the allowed ones, too little text, nothing: none found.
  EXPECT_TRUE(text::detect_languages("El hombre ve el perro y la mujer camina hacia la casa.", allowed).empty());
  EXPECT_TRUE(text::detect_languages("ok", allowed).empty());
  EXPECT_TRUE(text::detect_languages("", allowed).empty());
  EXPECT_TRUE(text::detect_languages(std::string("\xff\xfe", 2), allowed).empty());
  // Control characters, which CLD2 refuses, are read as spaces.
  EXPECT_EQ(text::detect_languages("The man sees the dog\x01 and\x0b the woman walks to the house.", allowed).at(0).language,
            "en");
  // A code with a region takes CLD2's language.
  EXPECT_EQ(text::detect_languages("O homem vê o cão e a mulher caminha para a casa grande.", {"pt-BR"}).at(0).language,
            "pt-BR");
}

TEST(AccessControl, KeysFileLimitsAndRefusals) {
  test::TempDir dir;
  const std::string file = dir.path("keys.txt");
  std::ofstream(file) << "# key, requests per minute\nfast 0\nslow 2  # two a minute\n\nplain\n";
  const auto keys = read_api_keys(file);
  ASSERT_EQ(keys.size(), 3u);
  EXPECT_EQ(keys[1].key, "slow");
  EXPECT_EQ(keys[1].per_minute, 2);
  EXPECT_EQ(keys[2].per_minute, 0);

  AccessOptions o;
  o.api_keys_file = file;
  o.req_limit = 3;
  AccessControl access(o);
  EXPECT_TRUE(access.keys_enabled());
  EXPECT_FALSE(access.key_required());
  EXPECT_EQ(test::refusal_status([&] { access.admit("slow", "10.0.0.1"); }), 0);
  EXPECT_EQ(test::refusal_status([&] { access.admit("slow", "10.0.0.2"); }), 0);
  EXPECT_EQ(test::refusal_status([&] { access.admit("slow", "10.0.0.3"); }), 429);  // the key's limit, from any address
  for (int i = 0; i < 50; ++i) EXPECT_EQ(test::refusal_status([&] { access.admit("fast", "10.0.0.1"); }), 0);
  EXPECT_EQ(test::refusal_status([&] { access.admit("wrong", "10.0.0.1"); }), 403);
  // Without a key ("" as many clients send): --req-limit per address; a batch counts its texts.
  EXPECT_EQ(test::refusal_status([&] { access.admit("", "10.0.0.9", 2); }), 0);
  EXPECT_EQ(test::refusal_status([&] { access.admit("", "10.0.0.9", 2); }), 429);
  EXPECT_EQ(test::refusal_status([&] { access.admit("", "10.0.0.9"); }), 0);
  EXPECT_EQ(test::refusal_status([&] { access.admit("", "10.0.0.8", 3); }), 0);
  try {
    access.admit("", "10.0.0.9");
    FAIL() << "no 429";
  } catch (const HttpError& e) {
    EXPECT_STREQ(e.what(), "Slowdown: 3 per 1 minute");
  }

  o.require_api_key = true;
  AccessControl required(o);
  EXPECT_EQ(test::refusal_status([&] { required.admit("", "10.0.0.1"); }), 400);
  EXPECT_EQ(test::refusal_status([&] { required.admit("plain", "10.0.0.1"); }), 0);

  AccessOptions one;
  one.api_key = "s3cret";
  AccessControl single(one);
  EXPECT_EQ(test::refusal_status([&] { single.admit("", "a"); }), 400);
  EXPECT_EQ(test::refusal_status([&] { single.admit("s3cre", "a"); }), 403);
  EXPECT_EQ(test::refusal_status([&] { single.admit("s3cret", "a"); }), 0);

  AccessOptions none;
  AccessControl open_server(none);
  EXPECT_EQ(test::refusal_status([&] { open_server.admit("anything", "a"); }), 0);  // no keys: a key is ignored
}

TEST(AccessControl, BadKeysFilesAreOneClearError) {
  test::TempDir dir;
  auto message = [&](const std::string& content) {
    std::ofstream(dir.path("k")) << content;
    try {
      read_api_keys(dir.path("k"));
    } catch (const DataError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("a 5\na 6\n").find("line 2: this key is listed twice"), std::string::npos);
  EXPECT_NE(message("a many\n").find("line 1: the requests per minute (the second field) must be a whole number."),
            std::string::npos);
  EXPECT_EQ(message("secret-key other-key\n").find("other-key"), std::string::npos);  // a key is never printed
  EXPECT_NE(message("a 1 2\n").find("line 1"), std::string::npos);
  EXPECT_NE(message("# nothing\n").find("lists no key"), std::string::npos);
  EXPECT_NE(message("").find("lists no key"), std::string::npos);
  EXPECT_THROW(read_api_keys(dir.path("missing")), DataError);
}

TEST(FileStore, KeepsFilesInItsFolderForALimitedTimeAndCount) {
  std::string folder;
  {
    FileStore store({/*max_files=*/2, /*keep_seconds=*/3600});
    folder = store.folder();
    const std::string a = store.put("a.txt", "A"), b = store.put("b.txt", "B");
    EXPECT_EQ(a.substr(32), ".a.txt");  // 128 random bits in hex, then the name
    EXPECT_EQ(store.get(a), "A");
    EXPECT_EQ(store.get(b), "B");
    const std::string c = store.put("c.txt", "C");
    EXPECT_FALSE(store.get(a));  // the oldest went
    EXPECT_EQ(store.get(c), "C");
    EXPECT_FALSE(store.get("../" + fs::path(folder).filename().string() + "/" + b));
    EXPECT_FALSE(store.get("nothing.txt"));
    for (const char* bad : {"../x.txt", "a/b.txt", "a\\b.txt", ".hidden", "", "tab\t.txt"}) {
      EXPECT_EQ(test::refusal_status([&] { store.put(bad, "x"); }), 400) << bad;
    }
    size_t files = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(folder)) ++files;
    EXPECT_EQ(files, 2u);
  }
  EXPECT_FALSE(fs::exists(folder));  // removed with the server
  FileStore brief({10, /*keep_seconds=*/1});
  const std::string name = brief.put("a.txt", "A");
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));
  EXPECT_FALSE(brief.get(name));
}

}  // namespace
}  // namespace nmt::serve
