// Corrections users suggest for translations (LibreTranslate's /suggest),
// kept durably in an SQLite file: each with its language pair, the source as
// given and its key (memory/segment_key.h), the translation the server gave
// (when known), the suggestion, the API key that sent it, its time and its
// review status. The file survives a crash at any instant (SQLite's
// write-ahead log, synchronous=FULL: a suggestion acknowledged is on disk);
// it carries a format version (PRAGMA user_version). Safe to share between
// threads.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace nmt::memory {

enum class SuggestionStatus { kPending, kAccepted, kRejected };
std::string status_name(SuggestionStatus status);                 // "pending", ...
std::optional<SuggestionStatus> parse_status(const std::string& name);  // none for another word

struct Suggestion {
  int64_t id = 0;  // given by the store
  std::string source_lang, target_lang;
  std::string source, translation, suggestion;
  std::string api_key;  // who sent it ("" for no key)
  double time = 0;      // seconds since the epoch; 0: now, when added
  SuggestionStatus status = SuggestionStatus::kPending;
};

class SuggestionStore {
 public:
  static constexpr int kFormatVersion = 1;

  // Opens the store at `path`, making it if absent; a DataError naming the
  // file when it is not a store of this format.
  explicit SuggestionStore(const std::string& path);
  ~SuggestionStore();
  SuggestionStore(const SuggestionStore&) = delete;
  SuggestionStore& operator=(const SuggestionStore&) = delete;

  // Stores `s` and returns its id; an Error naming the file when it cannot be
  // written (a full disk): nothing is half-stored.
  int64_t add(const Suggestion& s);
  // All of `suggestions` in one transaction: all stored, or (an Error) none.
  void add_all(const std::vector<Suggestion>& suggestions);
  // The correction for `source` in this pair: the newest accepted one, else
  // the newest pending one; none when every one was rejected or none exists.
  std::optional<std::string> lookup(const std::string& source_lang, const std::string& target_lang,
                                    const std::string& source) const;
  // Newest first (or oldest, for exports); `status`: only those.
  std::vector<Suggestion> list(std::optional<SuggestionStatus> status, int64_t limit, int64_t offset = 0,
                               bool oldest_first = false) const;
  // Whether a suggestion with that id exists (and now has `status`).
  bool set_status(int64_t id, SuggestionStatus status);
  int64_t count() const;
  const std::string& path() const { return path_; }

 private:
  void check(int code, const char* what) const;  // throws naming the file unless SQLITE_OK/ROW/DONE
  int64_t insert(const Suggestion& s);            // with the mutex held

  std::string path_;
  sqlite3* db_ = nullptr;
  mutable std::mutex mutex_;
};

}  // namespace nmt::memory
