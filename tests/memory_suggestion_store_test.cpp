// The suggestions store: what a lookup finds (normalized keys, per pair,
// accepted before pending, never rejected), what it keeps verbatim, and that
// it survives its writer's kill -9 and refuses files that are not stores.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "memory/segment_key.h"
#include "memory/suggestion_store.h"
#include "tests/data_test_util.h"
#include "tests/test_support.h"
#include "util/error.h"

namespace nmt::memory {
namespace {

Suggestion suggestion(const std::string& source, const std::string& text, const std::string& pair = "en-de") {
  Suggestion s;
  s.source_lang = pair.substr(0, 2);
  s.target_lang = pair.substr(3);
  s.source = source;
  s.suggestion = text;
  return s;
}

TEST(SegmentKey, WhitespaceAndCompositionDoNotCountCaseDoes) {
  EXPECT_EQ(segment_key("  Ein \t Hund.\n"), "Ein Hund.");
  EXPECT_EQ(segment_key("Ma\xCC\x88" "dchen"), segment_key("M\xC3\xA4" "dchen"));  // a + combining diaeresis
  EXPECT_NE(segment_key("ein Hund."), segment_key("Ein Hund."));
}

TEST(SuggestionStore, ALookupFindsTheNewestCorrectionOfItsPairAndSentence) {
  test::TempDir dir;
  SuggestionStore store(dir.path("s.db"));
  EXPECT_FALSE(store.lookup("en", "de", "The cup is cheap."));
  store.add(suggestion("The cup  is cheap.", "Die Tasse kostet wenig."));
  EXPECT_EQ(store.lookup("en", "de", " The cup is cheap. ").value_or(""), "Die Tasse kostet wenig.");
  EXPECT_FALSE(store.lookup("en", "fr", "The cup is cheap."));
  EXPECT_FALSE(store.lookup("en", "de", "the cup is cheap."));
  store.add(suggestion("The cup is cheap.", "Die Tasse ist billig."));
  EXPECT_EQ(store.lookup("en", "de", "The cup is cheap.").value_or(""), "Die Tasse ist billig.");
  EXPECT_EQ(store.count(), 2);
}

TEST(SuggestionStore, AcceptedWinsOverPendingAndRejectedNeverAnswers) {
  test::TempDir dir;
  SuggestionStore store(dir.path("s.db"));
  const int64_t first = store.add(suggestion("A.", "Eins."));
  const int64_t second = store.add(suggestion("A.", "Zwei."));
  EXPECT_TRUE(store.set_status(first, SuggestionStatus::kAccepted));
  EXPECT_EQ(store.lookup("en", "de", "A.").value_or(""), "Eins.");
  EXPECT_TRUE(store.set_status(first, SuggestionStatus::kRejected));
  EXPECT_TRUE(store.set_status(second, SuggestionStatus::kRejected));
  EXPECT_FALSE(store.lookup("en", "de", "A."));
  EXPECT_FALSE(store.set_status(999, SuggestionStatus::kAccepted));
  const auto rejected = store.list(SuggestionStatus::kRejected, 10);
  ASSERT_EQ(rejected.size(), 2u);
  EXPECT_EQ(rejected[0].id, second);  // newest first
  EXPECT_TRUE(store.list(SuggestionStatus::kPending, 10).empty());
  EXPECT_EQ(store.list(std::nullopt, 1, 1).at(0).id, first);
}

TEST(SuggestionStore, WhatLooksLikeSqlIsKeptAsText) {
  test::TempDir dir;
  const std::string evil = "x'); DROP TABLE suggestions; --";
  {
    SuggestionStore store(dir.path("s.db"));
    store.add(suggestion(evil, evil + " \"%s\" \xF0\x9F\x98\x80"));
  }
  SuggestionStore again(dir.path("s.db"));
  EXPECT_EQ(again.lookup("en", "de", evil).value_or(""), evil + " \"%s\" \xF0\x9F\x98\x80");
  EXPECT_EQ(again.count(), 1);
}

TEST(SuggestionStore, EveryAcknowledgedSuggestionSurvivesItsWritersKill9) {
  test::TempDir dir;
  const std::string path = dir.path("s.db");
  int acks[2];
  ASSERT_EQ(::pipe(acks), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // the writer: one suggestion after another, each acknowledged once stored
    ::close(acks[0]);
    SuggestionStore store(path);
    for (int32_t i = 0;; ++i) {
      store.add(suggestion("Sentence " + std::to_string(i) + ".", "Satz " + std::to_string(i) + "."));
      if (::write(acks[1], &i, sizeof i) != sizeof i) ::_exit(1);
    }
  }
  ::close(acks[1]);
  int32_t last = -1, got = 0;
  while (last < 40 && ::read(acks[0], &got, sizeof got) == sizeof got) last = got;
  ::kill(child, SIGKILL);  // in the middle of a write, most likely
  int status = 0;
  ::waitpid(child, &status, 0);
  while (::read(acks[0], &got, sizeof got) == sizeof got) last = got;
  ::close(acks[0]);
  ASSERT_GE(last, 40);
  SuggestionStore store(path);
  EXPECT_GE(store.count(), last + 1);
  for (int32_t i = 0; i <= last; ++i) {
    EXPECT_EQ(store.lookup("en", "de", "Sentence " + std::to_string(i) + ".").value_or(""),
              "Satz " + std::to_string(i) + ".");
  }
}

TEST(SuggestionStore, AFullDiskIsAnErrorNamingTheFileAndLosesNothingStored) {
  test::TempDir dir;
  const std::string path = dir.path("full.db");
  {
    SuggestionStore store(path);
    store.add(suggestion("Before.", "Vorher."));
  }
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // a disk that fills: no file of this process may grow past 256 KiB
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit {};
    limit.rlim_cur = limit.rlim_max = 256 * 1024;
    ::setrlimit(RLIMIT_FSIZE, &limit);
    SuggestionStore store(path);
    const std::string long_text(2000, 'x');
    for (int i = 0; i < 100000; ++i) {
      try {
        store.add(suggestion("Line " + std::to_string(i) + " " + long_text, "Zeile."));
      } catch (const Error& e) {
        const std::string what = e.what();
        ::_exit(what.find(path) != std::string::npos && what.find("could not be written") != std::string::npos ? 0 : 2);
      }
    }
    ::_exit(3);  // the limit never hit
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  SuggestionStore store(path);  // opens: nothing half-written
  EXPECT_EQ(store.lookup("en", "de", "Before.").value_or(""), "Vorher.");
  EXPECT_GT(store.count(), 1);
}

TEST(SuggestionStore, AFileThatIsNotAStoreIsRefusedNamingIt) {
  test::TempDir dir;
  const std::string path = dir.path("notes.db");
  std::ofstream(path) << std::string(4096, 'x');
  try {
    SuggestionStore store(path);
    FAIL() << "opened";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_THROW(SuggestionStore(dir.path("missing/dir/s.db")), DataError);
}

}  // namespace
}  // namespace nmt::memory
