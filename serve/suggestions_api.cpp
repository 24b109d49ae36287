#include "serve/suggestions_api.h"

#include <limits>
#include <optional>

#include "memory/tmx.h"
#include "serve/http_error.h"
#include "serve/libretranslate_api.h"
#include "text/utf8.h"
#include "util/error.h"

namespace nmt::serve {

nlohmann::json store_suggestion(memory::SuggestionStore& store, const nlohmann::json& fields,
                                const std::string& api_key, const RequestLimits& limits) {
  if (!fields.is_object()) throw HttpError(400, "Invalid JSON format");
  memory::Suggestion s;
  s.source = string_field(fields, "q", true);
  s.suggestion = string_field(fields, "s", true);
  s.source_lang = string_field(fields, "source", true);
  s.target_lang = string_field(fields, "target", true);
  for (const auto& [name, value] : {std::pair<const char*, const std::string*>{"q", &s.source}, {"s", &s.suggestion}}) {
    if (value->find_first_not_of(" \t\r\n") == std::string::npos) {
      throw HttpError(400, std::string("Invalid request: missing ") + name + " parameter");
    }
  }
  limits.check({s.source, s.suggestion});
  s.api_key = api_key;
  try {
    store.add(s);
  } catch (const Error& e) {
    throw HttpError(507, e.what());
  }
  return {{"success", true}};
}

namespace {

constexpr int64_t kMaxListed = 1000;

std::optional<memory::SuggestionStatus> status_filter(const std::string& status, const char* fallback) {
  const std::string name = status.empty() ? fallback : status;
  if (name == "all") return std::nullopt;
  const auto s = memory::parse_status(name);
  if (!s) throw HttpError(400, "Invalid request: status must be pending, accepted, rejected or all (got \"" + name + "\").");
  return s;
}

int64_t whole_number(const std::string& text, const char* name, int64_t fallback, int64_t max) {
  if (text.empty()) return fallback;
  if (text.size() > 12 || text.find_first_not_of("0123456789") != std::string::npos || std::stoll(text) > max) {
    throw HttpError(400, std::string("Invalid request: ") + name + " must be a whole number up to " + std::to_string(max) +
                             " (got \"" + text + "\").");
  }
  return std::stoll(text);
}

}  // namespace

nlohmann::json list_suggestions(const memory::SuggestionStore& store, const std::string& status,
                                const std::string& limit, const std::string& offset) {
  const auto filter = status_filter(status, "all");
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : store.list(filter, whole_number(limit, "limit", 100, kMaxListed),
                                  whole_number(offset, "offset", 0, int64_t{1} << 40))) {
    out.push_back({{"id", s.id}, {"source", s.source_lang}, {"target", s.target_lang}, {"q", s.source},
                   {"s", s.suggestion}, {"status", memory::status_name(s.status)}, {"time", s.time},
                   {"with_key", !s.api_key.empty()}});
  }
  return {{"suggestions", out}, {"total", store.count()}};
}

nlohmann::json review_suggestion(memory::SuggestionStore& store, const std::string& id, const std::string& decision) {
  const auto status = decision == "accept"   ? memory::SuggestionStatus::kAccepted
                      : decision == "reject" ? memory::SuggestionStatus::kRejected
                                             : throw HttpError(404, "No route POST /suggestions/" + id + "/" + decision +
                                                                        "; the decisions are accept and reject.");
  const int64_t n = whole_number(id, "the id", 0, int64_t{1} << 62);
  try {
    if (!store.set_status(n, status)) throw HttpError(404, "No suggestion with id " + id + ".");
  } catch (const HttpError&) {
    throw;
  } catch (const Error& e) {
    throw HttpError(507, e.what());
  }
  return {{"id", n}, {"status", memory::status_name(status)}};
}

ExportedSuggestions export_suggestions(const memory::SuggestionStore& store, const std::string& format,
                                       const std::string& status) {
  const auto filter = status_filter(status, "accepted");
  const auto all = store.list(filter, std::numeric_limits<int64_t>::max(), 0, /*oldest_first=*/true);
  if (format.empty() || format == "tmx") return {memory::write_tmx(all), "application/x-tmx+xml", "suggestions.tmx"};
  if (format == "tsv") return {memory::write_tsv(all), "text/tab-separated-values; charset=utf-8", "suggestions.tsv"};
  throw HttpError(400, "Invalid request: format must be tmx or tsv (got \"" + format + "\").");
}

nlohmann::json import_suggestions(memory::SuggestionStore& store, const std::string& tmx) {
  std::vector<memory::Suggestion> read;
  try {
    read = memory::read_tmx(tmx, "The TMX file");
  } catch (const DataError& e) {
    throw HttpError(400, e.what());
  }
  try {
    store.add_all(read);
  } catch (const Error& e) {
    throw HttpError(507, e.what());
  }
  return {{"imported", read.size()}};
}

}  // namespace nmt::serve
