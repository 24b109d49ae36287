// POST /suggest with a store (--suggestions DB): LibreTranslate's fields q
// (the source), s (the suggested translation), source and target, from JSON
// or form data; stored durably (memory/suggestion_store.h) and answered
// with LibreTranslate's {"success": true}. The store answers /translate from
// then on (decode::Translator::set_memory).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "memory/suggestion_store.h"
#include "serve/text_translation.h"

namespace nmt::serve {

// An HttpError 400 naming the field when one is missing, empty, not a
// string, or over `limits`; 507 when the store cannot be written (a full
// disk): the server goes on, nothing half-stored.
nlohmann::json store_suggestion(memory::SuggestionStore& store, const nlohmann::json& fields,
                                const std::string& api_key, const RequestLimits& limits);

// The review routes (a key with the review right; the server checks it):
// GET /suggestions?status=pending&limit=100&offset=0, newest first (keys are
// never shown, only whether one was used).
nlohmann::json list_suggestions(const memory::SuggestionStore& store, const std::string& status,
                                const std::string& limit, const std::string& offset);
// POST /suggestions/{id}/accept or .../reject: 404 for an unknown id.
nlohmann::json review_suggestion(memory::SuggestionStore& store, const std::string& id, const std::string& decision);
// GET /suggestions/export?format=tmx|tsv&status=accepted (default: accepted,
// TMX; status=all for every one): the file's bytes and media type.
struct ExportedSuggestions {
  std::string content, media_type, filename;
};
ExportedSuggestions export_suggestions(const memory::SuggestionStore& store, const std::string& format,
                                       const std::string& status);
// POST /suggestions/import with a TMX file as the body: every pair in it
// stored as accepted (unless it says otherwise), all or none; a 400 naming
// the line of what is wrong.
nlohmann::json import_suggestions(memory::SuggestionStore& store, const std::string& tmx);

}  // namespace nmt::serve
