// TMX and TSV: what export writes, that importing an export into an empty
// store and exporting again gives the same bytes, what import takes from
// other tools' TMX, and the line it names when it refuses one.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "memory/tmx.h"
#include "tests/data_test_util.h"
#include "util/error.h"

namespace nmt::memory {
namespace {

std::vector<Suggestion> some() {
  std::vector<Suggestion> out;
  for (int i = 0; i < 3; ++i) {
    Suggestion s;
    s.source_lang = "en";
    s.target_lang = "de";
    s.source = "Line " + std::to_string(i) + " <b>&amp;</b>\t\"x\"";
    s.suggestion = "Zeile " + std::to_string(i) + " \xC3\xA4\n&";
    s.time = 1764633600 + i;  // 2025-12-02T00:00:00Z
    s.status = i == 2 ? SuggestionStatus::kRejected : SuggestionStatus::kAccepted;
    out.push_back(s);
  }
  return out;
}

TEST(Tmx, ExportImportExportGivesTheSameBytes) {
  test::TempDir dir;
  const std::string first = write_tmx(some());
  EXPECT_NE(first.find("<tmx version=\"1.4\">"), std::string::npos);
  EXPECT_NE(first.find("srclang=\"en\""), std::string::npos);
  EXPECT_NE(first.find("creationdate=\"20251202T000001Z\""), std::string::npos);
  SuggestionStore store(dir.path("s.db"));
  store.add_all(read_tmx(first, "first.tmx"));
  const std::string second = write_tmx(store.list(std::nullopt, 100, 0, /*oldest_first=*/true));
  EXPECT_EQ(first, second);
  const auto back = read_tmx(second, "second.tmx");
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[0].source, some()[0].source);
  EXPECT_EQ(back[0].suggestion, some()[0].suggestion);
  EXPECT_EQ(back[2].status, SuggestionStatus::kRejected);
}

TEST(Tmx, OtherToolsTmxIsRead) {
  const std::string tmx = R"(<?xml version="1.0" encoding="UTF-8"?>
<tmx version="1.4"><header srclang="en-US" datatype="plaintext" segtype="sentence" adminlang="en" o-tmf="x" creationtool="x" creationtoolversion="1"/>
<body>
  <tu><tuv xml:lang="de-DE"><seg>Hallo <ph>&lt;b/&gt;</ph>Welt</seg></tuv><tuv xml:lang="en-US"><seg>Hello world</seg></tuv>
      <tuv lang="FR"><seg>Bonjour</seg></tuv></tu>
</body></tmx>)";
  const auto got = read_tmx(tmx, "other.tmx");
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].source_lang, "en");
  EXPECT_EQ(got[0].source, "Hello world");
  EXPECT_EQ(got[0].target_lang, "de");
  EXPECT_EQ(got[0].suggestion, "Hallo <b/>Welt");
  EXPECT_EQ(got[1].target_lang, "fr");
  EXPECT_EQ(got[1].status, SuggestionStatus::kAccepted);
}

TEST(Tmx, BadFilesAreRefusedNamingTheLine) {
  auto message = [](const std::string& tmx) {
    try {
      read_tmx(tmx, "bad.tmx");
    } catch (const DataError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("<tmx>\n<body>\n<tu>\n</body></tmx>").find("bad.tmx line 4"), std::string::npos);
  EXPECT_NE(message("<tmx><header srclang=\"en\"/><body>\n\n<tu><tuv xml:lang=\"en\"><seg>a</seg></tuv></tu></body></tmx>")
                .find("bad.tmx line 3: a <tu> needs two"),
            std::string::npos);
  EXPECT_NE(message("<tmx><body><tu><tuv xml:lang=\"en\"><seg>a</seg></tuv><tuv xml:lang=\"de\"/></tu></body></tmx>")
                .find("no <seg>"),
            std::string::npos);
  EXPECT_NE(message("<!DOCTYPE x [<!ENTITY a \"b\">]><tmx/>").find("DOCTYPE"), std::string::npos);
  EXPECT_NE(message("<html/>").find("not TMX"), std::string::npos);
}

TEST(Tsv, EscapesWhatWouldBreakItsLines) {
  const std::string tsv = write_tsv(some());
  EXPECT_EQ(tsv.substr(0, tsv.find('\n')), "source_lang\ttarget_lang\tsource\tsuggestion\tstatus");
  EXPECT_NE(tsv.find("en\tde\tLine 0 <b>&amp;</b>\\t\"x\"\tZeile 0 \xC3\xA4\\n&\taccepted\n"), std::string::npos) << tsv;
  size_t lines = 0;
  for (char c : tsv) lines += c == '\n';
  EXPECT_EQ(lines, 4u);
}

}  // namespace
}  // namespace nmt::memory
