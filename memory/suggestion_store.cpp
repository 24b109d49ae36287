#include "memory/suggestion_store.h"

#include <sqlite3.h>

#include <chrono>

#include "memory/segment_key.h"
#include "util/error.h"

namespace nmt::memory {
namespace {

constexpr const char* kSchema =
    "CREATE TABLE IF NOT EXISTS suggestions ("
    " id INTEGER PRIMARY KEY,"
    " source_lang TEXT NOT NULL, target_lang TEXT NOT NULL,"
    " source TEXT NOT NULL, source_key TEXT NOT NULL,"
    " translation TEXT NOT NULL, suggestion TEXT NOT NULL,"
    " api_key TEXT NOT NULL, time REAL NOT NULL,"
    " status INTEGER NOT NULL);"
    "CREATE INDEX IF NOT EXISTS suggestions_by_source ON suggestions (source_lang, target_lang, source_key);";

// A prepared statement, finalized when it goes.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) { rc_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr); }
  ~Statement() { sqlite3_finalize(stmt_); }
  int prepared() const { return rc_; }
  void bind(int i, const std::string& v) { sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT); }
  void bind(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  void bind(int i, double v) { sqlite3_bind_double(stmt_, i, v); }
  int step() { return sqlite3_step(stmt_); }
  std::string text(int col) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, col))) : std::string();
  }
  int64_t integer(int col) const { return sqlite3_column_int64(stmt_, col); }
  double real(int col) const { return sqlite3_column_double(stmt_, col); }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int rc_ = SQLITE_OK;
};

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

std::string status_name(SuggestionStatus status) {
  switch (status) {
    case SuggestionStatus::kAccepted: return "accepted";
    case SuggestionStatus::kRejected: return "rejected";
    default: return "pending";
  }
}

std::optional<SuggestionStatus> parse_status(const std::string& name) {
  for (auto s : {SuggestionStatus::kPending, SuggestionStatus::kAccepted, SuggestionStatus::kRejected}) {
    if (status_name(s) == name) return s;
  }
  return std::nullopt;
}

SuggestionStore::SuggestionStore(const std::string& path) : path_(path) {
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw DataError("Cannot open the suggestions store " + path + ": " + why + ".");
  }
  sqlite3_busy_timeout(db_, 5000);
  try {
    int64_t v = 0;
    {  // finalized before the next statement: an open read would block the journal mode's change
      Statement version(db_, "PRAGMA user_version");
      check(version.prepared(), "read");
      check(version.step(), "read");
      v = version.integer(0);
    }
    if (v != 0 && v != kFormatVersion) {
      throw DataError("The suggestions store " + path + " has format version " + std::to_string(v) +
                      "; this program reads version " + std::to_string(kFormatVersion) + ".");
    }
    // Write-ahead log, every commit synced: an acknowledged suggestion survives a crash or power loss.
    check(sqlite3_exec(db_, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;", nullptr, nullptr, nullptr), "set up");
    check(sqlite3_exec(db_, kSchema, nullptr, nullptr, nullptr), "set up");
    if (v == 0) {
      const std::string set = "PRAGMA user_version=" + std::to_string(kFormatVersion);
      check(sqlite3_exec(db_, set.c_str(), nullptr, nullptr, nullptr), "set up");
    }
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

SuggestionStore::~SuggestionStore() { sqlite3_close(db_); }

void SuggestionStore::check(int code, const char* what) const {
  if (code == SQLITE_OK || code == SQLITE_ROW || code == SQLITE_DONE) return;
  const std::string message = "The suggestions store " + path_ + " could not be " + what + ": " + sqlite3_errstr(code) +
                              (db_ ? std::string(" (") + sqlite3_errmsg(db_) + ")" : std::string()) + ".";
  if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT) throw DataError(message);
  throw Error(message, kExitOther);
}

int64_t SuggestionStore::add(const Suggestion& s) {
  std::lock_guard<std::mutex> lock(mutex_);
  return insert(s);
}

void SuggestionStore::add_all(const std::vector<Suggestion>& suggestions) {
  std::lock_guard<std::mutex> lock(mutex_);
  check(sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), "written");
  try {
    for (const auto& s : suggestions) insert(s);
    check(sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr), "written");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

int64_t SuggestionStore::insert(const Suggestion& s) {
  Statement insert(db_,
                   "INSERT INTO suggestions (source_lang, target_lang, source, source_key, translation, suggestion,"
                   " api_key, time, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  check(insert.prepared(), "written");
  insert.bind(1, s.source_lang);
  insert.bind(2, s.target_lang);
  insert.bind(3, s.source);
  insert.bind(4, segment_key(s.source));
  insert.bind(5, s.translation);
  insert.bind(6, s.suggestion);
  insert.bind(7, s.api_key);
  insert.bind(8, s.time > 0 ? s.time : now_seconds());
  insert.bind(9, static_cast<int64_t>(s.status));
  check(insert.step(), "written");
  return sqlite3_last_insert_rowid(db_);
}

std::optional<std::string> SuggestionStore::lookup(const std::string& source_lang, const std::string& target_lang,
                                                   const std::string& source) const {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement find(db_,
                 "SELECT suggestion FROM suggestions WHERE source_lang = ? AND target_lang = ? AND source_key = ?"
                 " AND status != ? ORDER BY status = ? DESC, id DESC LIMIT 1");
  check(find.prepared(), "read");
  find.bind(1, source_lang);
  find.bind(2, target_lang);
  find.bind(3, segment_key(source));
  find.bind(4, static_cast<int64_t>(SuggestionStatus::kRejected));
  find.bind(5, static_cast<int64_t>(SuggestionStatus::kAccepted));
  const int rc = find.step();
  check(rc, "read");
  if (rc != SQLITE_ROW) return std::nullopt;
  return find.text(0);
}

std::vector<Suggestion> SuggestionStore::list(std::optional<SuggestionStatus> status, int64_t limit,
                                              int64_t offset, bool oldest_first) const {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement select(db_, oldest_first
                            ? "SELECT id, source_lang, target_lang, source, translation, suggestion, api_key, time, status"
                              " FROM suggestions WHERE ? < 0 OR status = ? ORDER BY id ASC LIMIT ? OFFSET ?"
                            : "SELECT id, source_lang, target_lang, source, translation, suggestion, api_key, time, status"
                              " FROM suggestions WHERE ? < 0 OR status = ? ORDER BY id DESC LIMIT ? OFFSET ?");
  check(select.prepared(), "read");
  const int64_t wanted = status ? static_cast<int64_t>(*status) : -1;
  select.bind(1, wanted);
  select.bind(2, wanted);
  select.bind(3, limit);
  select.bind(4, offset);
  std::vector<Suggestion> out;
  for (int rc = select.step();; rc = select.step()) {
    check(rc, "read");
    if (rc != SQLITE_ROW) break;
    Suggestion s;
    s.id = select.integer(0);
    s.source_lang = select.text(1);
    s.target_lang = select.text(2);
    s.source = select.text(3);
    s.translation = select.text(4);
    s.suggestion = select.text(5);
    s.api_key = select.text(6);
    s.time = select.real(7);
    s.status = static_cast<SuggestionStatus>(select.integer(8));
    out.push_back(std::move(s));
  }
  return out;
}

bool SuggestionStore::set_status(int64_t id, SuggestionStatus status) {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement update(db_, "UPDATE suggestions SET status = ? WHERE id = ?");
  check(update.prepared(), "written");
  update.bind(1, static_cast<int64_t>(status));
  update.bind(2, id);
  check(update.step(), "written");
  return sqlite3_changes(db_) > 0;
}

int64_t SuggestionStore::count() const {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement n(db_, "SELECT COUNT(*) FROM suggestions");
  check(n.prepared(), "read");
  check(n.step(), "read");
  return n.integer(0);
}

}  // namespace nmt::memory
